#include "requestsshots.h"

#include "composer/schemaform.h"
#include "dialogs/serverdialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"
#include "requests/elicitationeditor.h"
#include "requests/samplingeditor.h"
#include "requests/serverrequestsdock.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>

namespace mcpscope::RequestsShots {

namespace {

const QString Server = QStringLiteral("everything-stdio");

struct Context
{
    MainWindow* window;
    FrictionShots::Save save;
    FrictionShots::Wait wait;
    std::function<void()> done;
};

void call(const Context& c, const QString& tool, const QJsonObject& arguments)
{
    c.window->engine()->call(Server, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), arguments } }, {}, [](const CallRecord&) {});
}

void click(QWidget* editor, const char* name)
{
    if (auto* button = editor ? editor->findChild<QPushButton*>(QLatin1String(name)) : nullptr)
        button->click();
}

template <typename Editor> void whenEditor(const Context& c, const QString& what, std::function<void(Editor*)> then)
{
    ServerRequestsDock* dock = c.window->serverRequestsDock();
    c.wait([dock] { return qobject_cast<Editor*>(dock->currentEditor()) != nullptr; }, 20000,
        [dock, then] {
            auto* editor = qobject_cast<Editor*>(dock->currentEditor());
            // A moment for the dock to lay out before the grab.
            QTimer::singleShot(300, dock, [editor, then] { then(editor); });
        },
        what);
}

void rootsDialog(const Context& c)
{
    auto* dialog = new ServerDialog({}, c.window);
    ServerConfig config = c.window->engine()->connection(Server)->config();
    config.roots = { QStringLiteral("/home/ada/src/mcpscope"), QStringLiteral("/srv/fixtures/shared") };
    config.autoReply = QJsonObject { { QStringLiteral("sampling"),
        QJsonObject { { QStringLiteral("text"), QStringLiteral("Canned reply for scripted runs") },
            { QStringLiteral("model"), QStringLiteral("mcpscope-canned") } } } };
    dialog->setConfig(config);
    dialog->resize(760, dialog->sizeHint().height());
    dialog->show();
    QTimer::singleShot(400, dialog, [c, dialog] {
        c.save(dialog, QStringLiteral("roots.png"));
        dialog->reject();
        dialog->deleteLater();
        c.done();
    });
}

void urlElicitation(const Context& c)
{
    call(c, QStringLiteral("trigger-url-elicitation"),
        { { QStringLiteral("url"), QStringLiteral("https://auth.example.com/connect/github?state=af31c9") },
            { QStringLiteral("message"),
                QStringLiteral("Connect your GitHub account so the server can open pull requests.") },
            { QStringLiteral("elicitationId"), QStringLiteral("gh-connect-1") } });
    whenEditor<ElicitationEditor>(c, QStringLiteral("the URL elicitation"), [c](ElicitationEditor* editor) {
        click(editor, "elicitationOpen"); // the consent step, not the browser
        QTimer::singleShot(200, editor, [c, editor] {
            c.save(c.window->serverRequestsDock(), QStringLiteral("elicitation-url.png"));
            click(editor, "elicitationConsentBack");
            click(editor, "elicitationDecline");
            rootsDialog(c);
        });
    });
}

void formElicitation(const Context& c)
{
    call(c, QStringLiteral("trigger-elicitation-request"), {});
    whenEditor<ElicitationEditor>(c, QStringLiteral("the form elicitation"), [c](ElicitationEditor* editor) {
        if (auto* name = editor->form()->findChild<QLineEdit*>(QStringLiteral("args.name")))
            name->setText(QStringLiteral("Ada Lovelace"));
        if (auto* email = editor->form()->findChild<QLineEdit*>(QStringLiteral("args.email")))
            email->setText(QStringLiteral("ada@example.org"));
        if (auto* check = editor->form()->findChild<QCheckBox*>(QStringLiteral("args.check")))
            check->setChecked(true);
        c.save(c.window->serverRequestsDock(), QStringLiteral("elicitation-form.png"));
        click(editor, "elicitationAccept");
        urlElicitation(c);
    });
}

} // namespace

void run(MainWindow* window, FrictionShots::Save save, FrictionShots::Wait wait, std::function<void()> done)
{
    const Context c { window, std::move(save), std::move(wait), std::move(done) };
    ServerRequestsDock* dock = window->serverRequestsDock();
    dock->setUrlOpener([](const QUrl&) { return true; }); // screenshots never open a browser
    window->selectServer(Server);
    window->centreTabs()->setCurrentIndex(0);
    call(c, QStringLiteral("trigger-sampling-request"),
        { { QStringLiteral("prompt"), QStringLiteral("Summarise the open issues in one line") },
            { QStringLiteral("maxTokens"), 200 } });
    whenEditor<SamplingEditor>(c, QStringLiteral("the sampling request"), [c, window, dock](SamplingEditor* editor) {
        window->resizeDocks({ dock }, { 560 }, Qt::Horizontal);
        if (auto* text = editor->findChild<QPlainTextEdit*>(QStringLiteral("samplingReplyText")))
            text->setPlainText(QStringLiteral("Four issues are open; sampling and elicitation now reach the user."));
        QTimer::singleShot(300, editor, [c, editor] {
            c.save(c.window->serverRequestsDock(), QStringLiteral("sampling-panel.png"));
            click(editor, "samplingApprove");
            formElicitation(c);
        });
    });
}

} // namespace mcpscope::RequestsShots
