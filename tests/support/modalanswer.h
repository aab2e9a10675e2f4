#pragma once

// Test support: answering a modal dialog from inside its own event loop. exec() shows the dialog and then
// runs its loop, but on a loaded machine a timer queued before the click that opens it can fire before
// the dialog is the active modal widget; a one-shot check then misses it and exec() blocks until the test
// times out (tst_authtab failed that way in CI). So the next modal widget is polled for, every 10 ms for
// up to 30 s, and answered once it is there.

#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QString>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>

namespace mcpscope::test {

/// Runs answer(widget) on the next modal widget once it is on screen. *seen (optional) tells whether one
/// came.
inline void answerNextModal(std::function<void(QWidget*)> answer, bool* seen = nullptr)
{
    if (seen)
        *seen = false;
    auto polls = std::make_shared<int>(0);
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [answer = std::move(answer), seen, polls, weak = std::weak_ptr(poll)] {
        QWidget* modal = QApplication::activeModalWidget();
        if (!modal || !modal->isVisible()) {
            // The pending timer holds the only strong reference, so the poll lives exactly as long as
            // it is still looking.
            if (const auto again = weak.lock(); again && ++*polls < 3000)
                QTimer::singleShot(10, qApp, [again] { (*again)(); });
            return;
        }
        if (seen)
            *seen = true;
        answer(modal);
    };
    QTimer::singleShot(0, qApp, [poll] { (*poll)(); });
}

/// Presses button on the next QMessageBox (any other modal widget is closed). *text (optional) gets the
/// box's text.
inline void pressOnNextMessageBox(QMessageBox::StandardButton button, bool* seen = nullptr, QString* text = nullptr)
{
    answerNextModal(
        [button, text](QWidget* modal) {
            auto* box = qobject_cast<QMessageBox*>(modal);
            if (!box || !box->button(button)) {
                modal->close();
                return;
            }
            if (text)
                *text = box->text();
            box->button(button)->click();
        },
        seen);
}

} // namespace mcpscope::test
