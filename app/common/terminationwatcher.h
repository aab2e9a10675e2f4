#pragma once

#include <QObject>

class QSocketNotifier;

namespace mcpscope {

/// Turns SIGINT and SIGTERM into a signal on the event loop (through a self-pipe), so the app and
/// the CLI shut down the normal way: sessions close, stdio children and launched servers are stopped.
/// Without it a terminated McpScope would leave the HTTP servers it launched running.
class TerminationWatcher : public QObject
{
    Q_OBJECT
public:
    explicit TerminationWatcher(QObject* parent = nullptr);
    ~TerminationWatcher() override;

    /// Installs the handlers; false with *error when the pipe cannot be made.
    bool watch(QString* error = nullptr);

Q_SIGNALS:
    /// Fires once per signal received, on the thread the watcher lives on.
    void terminationRequested(int signal);

private:
    QSocketNotifier* m_notifier = nullptr;
};

} // namespace mcpscope
