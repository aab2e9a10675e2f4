#pragma once

#include "transport.h"

#include <QMap>
#include <QPointer>
#include <QProcess>
#include <QStringList>
#include <QTimer>

#include <deque>

namespace mcpscope {

/// MCP over a child process's stdin/stdout: one UTF-8 JSON message per line. stderr is log text.
///
/// The child runs in its own process group, so shutdown reaches everything it started (an `npx`
/// wrapper and the real server under it): close stdin, wait 2 s, SIGTERM the group, wait 2 s,
/// SIGKILL the group.
class StdioTransport final : public Transport
{
    Q_OBJECT
public:
    struct Options
    {
        QString serverName;
        QString command;
        QStringList args;
        QMap<QString, QString> env; ///< added to the minimal inherited set
        QString cwd;
        qint64 maxMessageBytes = 64LL * 1024 * 1024;
        int shutdownStepMs = 2000; ///< the SDK's 2 s between closing stdin, SIGTERM and SIGKILL
    };

    explicit StdioTransport(Options options, QObject* parent = nullptr);
    ~StdioTransport() override;

    Kind kind() const override { return Kind::Stdio; }
    void open() override;
    void send(const JsonRpcMessage& message) override;
    void close() override;
    void abort() override;
    QString sessionId() const override;

    qint64 processId() const;
    /// Closes the child's stdin without shutting down (a fault the user can trigger).
    void closeStdin();

    /// The environment a child gets: HOME, LOGNAME, PATH, SHELL, TERM and USER from ours, plus extra.
    static QProcessEnvironment childEnvironment(const QMap<QString, QString>& extra);

private:
    void onStdout();
    void onStderr();
    void onBytesWritten(qint64 bytes);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void processLine(QByteArrayView line);
    void handleOversizedLine();
    void signalGroup(int signal);
    void finishClose();
    bool groupAlive() const;

    Options m_options;
    QPointer<QProcess> m_process;
    qint64 m_pid = 0;
    QByteArray m_stdout;
    qsizetype m_scanFrom = 0;
    bool m_discardingLine = false;
    QByteArray m_oversizedHead;
    QByteArray m_oversizedTail;
    qint64 m_oversizedBytes = 0;
    QByteArray m_stderr;
    qint64 m_written = 0;
    qint64 m_queued = 0;
    std::deque<std::pair<qint64, QJsonValue>> m_pendingWrites; ///< end offset of each queued request
    QTimer m_shutdownTimer;
    int m_shutdownStep = 0;
    bool m_closing = false;
    bool m_failedReported = false;
    bool m_closedEmitted = false;
};

} // namespace mcpscope
