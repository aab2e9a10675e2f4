#pragma once

#include "config/serverconfig.h"

#include <QObject>
#include <QPointer>

class QProcess;

namespace mcpscope {

/// The local server an HTTP configuration starts itself (launchCommand) before the transport
/// connects, in its own process group, and the wait until its port takes connections. Destroying
/// the launcher stops the process group without blocking: SIGTERM, then SIGKILL after a grace.
///
/// Signals: starting right before the command runs; notice for the start (McpScope's word);
/// serverLog for each line the process prints; listening once the port
/// takes a connection; failed with a message naming the server when the command is empty, cannot
/// start or the port does not listen within 30 s; exited when the process ends by itself.
class LocalServerLauncher : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~LocalServerLauncher() override;

    void start(const ServerConfig& config);
    bool isRunning() const;

Q_SIGNALS:
    void starting();
    void serverLog(const QString& line);
    void notice(const QString& text);
    void listening();
    void failed(const QString& message);
    void exited(int exitCode);

private:
    void waitForPort(int attemptsLeft);

    ServerConfig m_config;
    QPointer<QProcess> m_process;
};

} // namespace mcpscope
