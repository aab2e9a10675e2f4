#pragma once

#include "transport.h"

#include <QElapsedTimer>
#include <QHash>
#include <QMap>
#include <QPointer>
#include <QProcess>
#include <QStringList>

#include <deque>
#include <optional>
#include <utility>

class QSocketNotifier;

namespace mcpscope {

class ProcessGroupStop;
struct DecodeResult;

/// MCP over a child process's stdin/stdout: one UTF-8 JSON message per line. stderr is log text.
///
/// The child runs in its own process group, so shutdown reaches everything it started (an `npx`
/// wrapper and the real server under it): close stdin, wait exitWaitMs (2 s), SIGTERM the group,
/// wait 2 s, SIGKILL the group.
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
        int exitWaitMs = 2000; ///< from closing stdin to SIGTERM: the SDK's 2 s
        int shutdownStepMs = 2000; ///< from SIGTERM to SIGKILL: the SDK's 2 s
    };

    explicit StdioTransport(Options options, QObject* parent = nullptr);
    ~StdioTransport() override;

    void open() override;
    void send(const JsonRpcMessage& message) override;
    void close() override;
    void abort() override;
    /// Stops the child's process group (SIGSTOP).
    void suspendPeer() override;
    QString sessionId() const override;

    qint64 processId() const;
    /// Closes the child's stdin without shutting down; what is still queued goes out first.
    void closeWriteChannel() override;

    /// The environment a child gets: HOME, LOGNAME, PATH, SHELL, TERM and USER from ours, plus extra.
    static QProcessEnvironment childEnvironment(const QMap<QString, QString>& extra);

private:
    /// tests/fuzz/stdioframing.cpp feeds the line framer directly, without a child process.
    friend struct StdioFramingFuzz;

    static constexpr qsizetype ReadChunkBytes = 64 * 1024;

    void onReadable();
    void onWritable();
    /// How a pass over the child's stdout ended: a slot deleted us; the pipe is empty (or closed) and
    /// nothing waits; or there may be more (a backlog, a budget or maxReads used up, a nested loop).
    enum class ReadEnd { Deleted, Empty, More };
    /// Handles what waits in m_unhandled, then reads and handles up to maxReads chunks. With a budget,
    /// stops handling lines once busy for budgetMs: the rest waits in m_unhandled for a later pass.
    /// *reads: how many reads it made.
    ReadEnd readStdout(int maxReads, qint64 budgetMs = -1, int* reads = nullptr);
    /// After the child exited: handles what it left in the pipe in slices, then reports the exit.
    void drainAfterExit();
    void reportExit(int exitCode, QProcess::ExitStatus status);
    /// Splits what was read into lines and handles them, until busy (started by the caller) passes
    /// budgetMs. Returns how many bytes of chunk it took (all of them without a budget), or -1 when a
    /// slot deleted us meanwhile.
    qsizetype feedStdout(QByteArrayView chunk, const QPointer<StdioTransport>& self,
        const QElapsedTimer* busy = nullptr, qint64 budgetMs = -1);
    /// After a pass: a backlog in m_unhandled is handled on a later pass of the event loop, and the pipe
    /// is not read meanwhile (the child then waits on a full pipe); without one, the notifier reads again.
    void scheduleReading();
    /// Adds to the unfinished line; past maxMessageBytes it is dropped and only its ends are kept.
    void appendPartial(QByteArrayView piece);
    /// The unfinished line, whole, now that its end arrived.
    QByteArray takePartial();
    void takeLine(QByteArrayView line);
    qint64 writeStdin(const char* data, qsizetype size);
    void writePending();
    void closeWriteEnd();
    void closeReadEnd();
    void closeFds();
    bool trafficWatched() const;
    void onStderr();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void processLine(QByteArrayView line);
    /// A line of WorkerLineBytes or more, now whole in m_partial: joined and parsed on a worker thread,
    /// while reading waits, so that nothing overtakes it. lineDecoded() goes on from there.
    void decodeOnWorker();
    void lineDecoded(QByteArray line, DecodeResult decoded);
    /// What follows the parse of a line: the traffic, the wire record and the message. owned, when set,
    /// holds the line's bytes, which the traffic then shares instead of copying.
    void deliverLine(QByteArrayView line, DecodeResult decoded, const QByteArray* owned);
    void handleOversizedLine();
    void signalGroup(int signal);
    void finishClose();
    /// Emits exchangeRecorded for the request with this id, if it is one we recorded.
    void settleWire(const QJsonValue& id, const StdioLine& answer);

    Options m_options;
    QPointer<QProcess> m_process;
    qint64 m_pid = 0;
    mutable qint64 m_sessionIdPid = 0; ///< the pid m_sessionId was made from
    mutable QString m_sessionId;
    // Our own pipes for the child's stdin and stdout (QProcess keeps only stderr): a request is
    // written at once with one write(), and a reply is read with one read(), without QProcess's
    // buffering and notifier toggling. -1 when closed.
    int m_stdinFd = -1; ///< our write end of the child's stdin
    int m_stdoutFd = -1; ///< our read end of the child's stdout
    int m_childStdinFd = -1; ///< the child's ends, open in this process only while it starts
    int m_childStdoutFd = -1;
    QSocketNotifier* m_readNotifier = nullptr;
    QSocketNotifier* m_writeNotifier = nullptr;
    QByteArray m_writeBuffer; ///< bytes the pipe did not take yet
    qsizetype m_writeOffset = 0; ///< how much of m_writeBuffer is written
    bool m_closeStdinAfterFlush = false;
    bool m_blockSigpipe = true; ///< someone handles SIGPIPE: block it around our writes
    bool m_reading = false; ///< inside readStdout(); a nested event loop must not read past our lines
    bool m_readDeferred = false;
    bool m_decoding = false; ///< a line is being parsed on a worker: reading waits for it
    quint64 m_lineGeneration = 0; ///< a worker's line counts only while this is unchanged (finishClose())
    /// The start of a line whose end has not arrived, in the pieces it was read in; never holds a newline.
    QList<QByteArray> m_partial;
    qsizetype m_partialBytes = 0;
    /// Read from the pipe but not handled yet: a pass that used up its time budget left it, in order.
    QByteArray m_unhandled;
    bool m_passScheduled = false;
    /// The child's exit, while drainAfterExit() reads what it left, with the reads it may still make.
    std::optional<std::pair<int, QProcess::ExitStatus>> m_exit;
    int m_exitReadsLeft = 0;
    bool m_discardingLine = false;
    QByteArray m_oversizedHead;
    QByteArray m_oversizedTail;
    qint64 m_oversizedBytes = 0;
    QByteArray m_stderr;
    qint64 m_written = 0;
    qint64 m_queued = 0;
    std::deque<std::pair<qint64, QJsonValue>> m_pendingWrites; ///< end offset of each queued request
    struct RecordedRequest
    {
        QJsonValue id;
        StdioLine line;
    };
    QHash<IdKey, RecordedRequest> m_wireRequests; ///< request lines awaiting their answer (while recording)
    ProcessGroupStop* m_stop = nullptr; ///< the shutdown close() began
    bool m_closing = false;
    bool m_failedReported = false;
    bool m_closedEmitted = false;
};

} // namespace mcpscope
