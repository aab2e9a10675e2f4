#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace mcpscope {

class MainWindow;

/// `make screenshot`'s Tasks tab: tasks.png, server-everything's simulate-research-query run twice as a task
/// (its execution.taskSupport is required), one to completion with its report below, one cancelled with
/// tasks/cancel. done() once written, failed(why) otherwise.
class TasksShots : public QObject
{
    Q_OBJECT
public:
    using Save = std::function<void(QWidget*, const QString&)>;
    TasksShots(MainWindow* window, Save save, QObject* parent = nullptr);
    void start();

Q_SIGNALS:
    void done();
    void failed(const QString& why);

private:
    void waitUntil(std::function<bool()> condition, std::function<void()> then, const QString& what);
    QString callTask(const QString& topic);

    QPointer<MainWindow> m_window;
    Save m_save;
    QString m_completedCall;
    QString m_cancelledCall;
};

} // namespace mcpscope
