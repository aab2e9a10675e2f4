#include "stdiotransport.h"

#include "jsonrpc/jsonrpccodec.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMetaMethod>
#include <QRegularExpression>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/types.h>
#include <unistd.h>
#include <utility>

namespace mcpscope {

namespace {
constexpr qsizetype ExcerptBytes = 256;
constexpr qsizetype ReadChunkBytes = 64 * 1024;
constexpr int ReadsPerActivation = 16; ///< 1 MiB, so a fast writer cannot starve the event loop
constexpr int ReadsAfterExit = 1024; ///< what the leader left in the pipe, up to 64 MiB
constexpr qsizetype MaxRecordedRequests = 4096;

void closeFd(int& fd)
{
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

// "9 (SIGKILL)": the number alone means little to most people, the name alone hides what the
// kernel reported.
QString signalDescription(int signal)
{
    static const std::pair<int, const char*> names[] = { { SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" },
        { SIGQUIT, "SIGQUIT" }, { SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
        { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" },
        { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" }, { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
        { SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" } };
    for (const auto& [number, name] : names) {
        if (number == signal)
            return QString::number(signal) + QStringLiteral(" (") + QLatin1String(name) + QLatin1Char(')');
    }
    return QString::number(signal);
}

// Fds 0-2 would be overwritten in the child by QProcess's own redirections before ours.
bool moveAboveStdio(int& fd)
{
    if (fd > STDERR_FILENO)
        return true;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    ::close(fd);
    fd = moved;
    return moved >= 0;
}

// Writing to a pipe whose reader is gone raises SIGPIPE, which by default kills us; QProcess
// does not ignore it (it resets it to the default in its children either way). The default is
// replaced by SIG_IGN, once for the process. A handler someone installed (a crash reporter,
// QtTest's) stays: then SIGPIPE is blocked around each of our writes instead. Returns whether
// writes need that.
bool writesNeedSigpipeBlocked()
{
    struct sigaction current = {};
    if (::sigaction(SIGPIPE, nullptr, &current) != 0)
        return true;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN)
        return false;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL) {
        struct sigaction ignore = {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        return ::sigaction(SIGPIPE, &ignore, nullptr) != 0;
    }
    return true;
}

// write() without SIGPIPE reaching a handler: the signal an EPIPE raises stays blocked and is
// taken back, as Qt's own qt_safe_write_nosignal() does.
ssize_t writeWithSigpipeBlocked(int fd, const char* data, size_t size)
{
    sigset_t pipeSet;
    sigemptyset(&pipeSet);
    sigaddset(&pipeSet, SIGPIPE);
    sigset_t oldSet;
    ::pthread_sigmask(SIG_BLOCK, &pipeSet, &oldSet);
    sigset_t pending;
    sigemptyset(&pending);
    ::sigpending(&pending);
    const bool wasPending = sigismember(&pending, SIGPIPE);
    const ssize_t n = ::write(fd, data, size);
    const int error = errno;
    if (n < 0 && error == EPIPE && !wasPending) {
        const struct timespec noWait = {};
        while (::sigtimedwait(&pipeSet, nullptr, &noWait) < 0 && errno == EINTR) { }
    }
    ::pthread_sigmask(SIG_SETMASK, &oldSet, nullptr);
    errno = error;
    return n;
}
} // namespace

StdioTransport::StdioTransport(Options options, QObject* parent)
    : Transport(parent)
    , m_options(std::move(options))
{
    m_shutdownTimer.setSingleShot(true);
    connect(&m_shutdownTimer, &QTimer::timeout, this, [this] {
        const bool leaderRunning = m_process && m_process->state() != QProcess::NotRunning;
        if (!leaderRunning && !groupAlive()) {
            finishClose();
            return;
        }
        if (m_shutdownStep == 1) {
            signalGroup(SIGTERM);
            m_shutdownStep = 2;
            m_shutdownTimer.start(m_options.shutdownStepMs);
            return;
        }
        signalGroup(SIGKILL);
        if (!leaderRunning)
            finishClose(); // otherwise onFinished() completes the close
    });
}

StdioTransport::~StdioTransport()
{
    closeFds();
    if (m_process) {
        m_process->disconnect(this);
        if (m_process->state() != QProcess::NotRunning) {
            signalGroup(SIGKILL);
            m_process->waitForFinished(1000);
        }
    }
    // Reap what the leader left behind in its group, so no orphan outlives us.
    if (m_pid > 0)
        signalGroup(SIGKILL);
}

QProcessEnvironment StdioTransport::childEnvironment(const QMap<QString, QString>& extra)
{
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    QProcessEnvironment env;
    for (const char* name : { "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER" }) {
        const QString key = QString::fromLatin1(name);
        if (system.contains(key))
            env.insert(key, system.value(key));
    }
    for (auto it = extra.cbegin(); it != extra.cend(); ++it)
        env.insert(it.key(), it.value());
    return env;
}

void StdioTransport::open()
{
    m_blockSigpipe = writesNeedSigpipeBlocked();
    int stdinPipe[2] = { -1, -1 };
    int stdoutPipe[2] = { -1, -1 };
    if (::pipe2(stdinPipe, O_CLOEXEC) != 0 || ::pipe2(stdoutPipe, O_CLOEXEC) != 0 || !moveAboveStdio(stdinPipe[0])
        || !moveAboveStdio(stdinPipe[1]) || !moveAboveStdio(stdoutPipe[0]) || !moveAboveStdio(stdoutPipe[1])) {
        const QString reason = QString::fromLocal8Bit(::strerror(errno));
        for (int* fd : { &stdinPipe[0], &stdinPipe[1], &stdoutPipe[0], &stdoutPipe[1] })
            closeFd(*fd);
        m_failedReported = true;
        TransportFailure failure;
        failure.event = TransportEvent::NotSent;
        failure.networkError = reason;
        failure.message = tr("Could not start stdio server '%1': no pipes for its stdin and stdout (%2).")
                              .arg(m_options.serverName, reason);
        Q_EMIT channelFailed(failure);
        return;
    }
    m_childStdinFd = stdinPipe[0];
    m_stdinFd = stdinPipe[1];
    m_stdoutFd = stdoutPipe[0];
    m_childStdoutFd = stdoutPipe[1];

    auto* process = new QProcess(this);
    m_process = process;
    process->setProgram(m_options.command);
    process->setArguments(m_options.args);
    process->setProcessEnvironment(childEnvironment(m_options.env));
    if (!m_options.cwd.isEmpty())
        process->setWorkingDirectory(m_options.cwd);
    // QProcess keeps stderr; stdin and stdout are our pipes, put in place by the modifier below.
    process->setStandardInputFile(QProcess::nullDevice());
    process->setStandardOutputFile(QProcess::nullDevice());
    // Runs in the child between fork and exec: async-signal-safe calls only. Own process group,
    // so SIGTERM/SIGKILL reach grandchildren (npx → sh → node). dup2() clears close-on-exec on
    // the copies; the originals (all above 2) close at exec.
    const int childStdin = m_childStdinFd;
    const int childStdout = m_childStdoutFd;
    process->setChildProcessModifier([childStdin, childStdout] {
        ::setpgid(0, 0);
        ::signal(SIGPIPE, SIG_DFL);
        ::dup2(childStdin, STDIN_FILENO);
        ::dup2(childStdout, STDOUT_FILENO);
    });
    connect(process, &QProcess::readyReadStandardError, this, &StdioTransport::onStderr);
    connect(process, &QProcess::finished, this, &StdioTransport::onFinished);
    connect(process, &QProcess::errorOccurred, this, &StdioTransport::onError);
    connect(process, &QProcess::started, this, [this] {
        m_pid = m_process->processId();
        // Reading starts now, so that opened() comes before any message.
        if (m_stdoutFd >= 0 && !m_readNotifier) {
            m_readNotifier = new QSocketNotifier(qintptr(m_stdoutFd), QSocketNotifier::Read, this);
            connect(m_readNotifier, &QSocketNotifier::activated, this, &StdioTransport::onReadable);
        }
        Q_EMIT opened();
    });
    process->start(QIODevice::ReadOnly | QIODevice::Unbuffered);
    // The child has its copies now (or never will): ours must go, or its stdin would never see EOF.
    closeFd(m_childStdinFd);
    closeFd(m_childStdoutFd);
    if (m_stdinFd < 0 || process->state() == QProcess::NotRunning) {
        closeFds();
        return;
    }
    ::fcntl(m_stdinFd, F_SETFL, ::fcntl(m_stdinFd, F_GETFL) | O_NONBLOCK);
    ::fcntl(m_stdoutFd, F_SETFL, ::fcntl(m_stdoutFd, F_GETFL) | O_NONBLOCK);
}

QString StdioTransport::sessionId() const
{
    return m_pid > 0 ? QStringLiteral("pid:") + QString::number(m_pid) : QString();
}

qint64 StdioTransport::processId() const
{
    return m_pid;
}

bool StdioTransport::trafficWatched() const
{
    static const QMetaMethod signal = QMetaMethod::fromSignal(&Transport::traffic);
    return isSignalConnected(signal);
}

void StdioTransport::send(const JsonRpcMessage& message)
{
    if (!m_process || m_process->state() != QProcess::Running || m_closing) {
        if (message.isRequest()) {
            TransportFailure failure;
            failure.event = TransportEvent::NotSent;
            failure.message = tr("Could not send %1 to stdio server '%2': the process is not running.")
                                  .arg(message.method, m_options.serverName);
            Q_EMIT requestFailed(message.id, failure);
        }
        return;
    }
    QByteArray bytes = JsonRpcCodec::encode(message);
    bytes.append('\n');
    if (trafficWatched())
        Q_EMIT traffic(WireDirection::Outgoing, bytes);
    if (m_stdinFd < 0 || m_closeStdinAfterFlush)
        return; // stdin is closed (the fault, or the child closed its end): the bytes go nowhere
    if (message.isRequest() && recordsExchanges()) {
        // Answers that never came (timed out above us) must not pile up without bound.
        if (m_wireRequests.size() >= MaxRecordedRequests)
            m_wireRequests.clear();
        m_wireRequests.insert(idKey(message.id),
            { message.id,
                StdioLine::make(QDateTime::currentMSecsSinceEpoch(), true, QByteArrayView(bytes).chopped(1)) });
    }
    m_queued += bytes.size();
    if (m_writeBuffer.isEmpty()) {
        // Nothing waits ahead of it: straight into the pipe, which almost always takes it whole.
        qsizetype done = 0;
        while (done < bytes.size()) {
            const qint64 n = writeStdin(bytes.constData() + done, bytes.size() - done);
            if (n > 0) {
                done += n;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0 && errno == EAGAIN) {
                break;
            } else {
                // EPIPE: the child closed its stdin or is gone; its exit is reported by onFinished().
                m_written += done;
                closeWriteEnd();
                return;
            }
        }
        m_written += done;
        if (done == bytes.size()) {
            if (message.isRequest())
                Q_EMIT requestWritten(message.id);
            return;
        }
        m_writeBuffer = std::move(bytes);
        m_writeOffset = done;
    } else {
        m_writeBuffer.append(bytes);
    }
    if (message.isRequest())
        m_pendingWrites.emplace_back(m_queued, message.id);
    if (!m_writeNotifier) {
        m_writeNotifier = new QSocketNotifier(qintptr(m_stdinFd), QSocketNotifier::Write, this);
        connect(m_writeNotifier, &QSocketNotifier::activated, this, &StdioTransport::onWritable);
    }
    m_writeNotifier->setEnabled(true);
}

qint64 StdioTransport::writeStdin(const char* data, qsizetype size)
{
    return m_blockSigpipe ? writeWithSigpipeBlocked(m_stdinFd, data, size_t(size))
                          : ::write(m_stdinFd, data, size_t(size));
}

void StdioTransport::onWritable()
{
    writePending();
}

void StdioTransport::writePending()
{
    bool broken = false;
    while (m_stdinFd >= 0 && m_writeOffset < m_writeBuffer.size()) {
        const qint64 n = writeStdin(m_writeBuffer.constData() + m_writeOffset, m_writeBuffer.size() - m_writeOffset);
        if (n > 0) {
            m_writeOffset += n;
            m_written += n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            break;
        } else {
            broken = true; // EPIPE: as in send()
            break;
        }
    }
    if (m_writeOffset == m_writeBuffer.size()) {
        m_writeBuffer.clear();
        m_writeOffset = 0;
        if (m_writeNotifier)
            m_writeNotifier->setEnabled(false);
    } else if (m_writeOffset >= ReadChunkBytes && m_writeOffset * 2 >= m_writeBuffer.size()) {
        m_writeBuffer.remove(0, m_writeOffset);
        m_writeOffset = 0;
    }
    const QPointer<StdioTransport> self(this);
    while (!m_pendingWrites.empty() && m_pendingWrites.front().first <= m_written) {
        const QJsonValue id = m_pendingWrites.front().second;
        m_pendingWrites.pop_front();
        Q_EMIT requestWritten(id);
        if (!self)
            return;
    }
    if (broken || (m_closeStdinAfterFlush && m_writeBuffer.isEmpty()))
        closeWriteEnd();
}

void StdioTransport::closeWriteEnd()
{
    if (m_writeNotifier) {
        m_writeNotifier->setEnabled(false);
        m_writeNotifier->deleteLater();
        m_writeNotifier = nullptr;
    }
    closeFd(m_stdinFd);
    m_writeBuffer.clear();
    m_writeOffset = 0;
    m_pendingWrites.clear(); // never written whole: no requestWritten for them
    m_closeStdinAfterFlush = false;
}

void StdioTransport::closeReadEnd()
{
    if (m_readNotifier) {
        m_readNotifier->setEnabled(false);
        m_readNotifier->deleteLater();
        m_readNotifier = nullptr;
    }
    closeFd(m_stdoutFd);
}

void StdioTransport::closeFds()
{
    closeWriteEnd();
    closeReadEnd();
    closeFd(m_childStdinFd);
    closeFd(m_childStdoutFd);
}

void StdioTransport::onReadable()
{
    readStdout(ReadsPerActivation);
}

void StdioTransport::readStdout(int maxReads)
{
    if (m_reading) {
        // A slot we called runs a nested event loop: what follows in the pipe must wait until the
        // lines before it are handled, or messages would arrive out of order.
        if (m_readNotifier)
            m_readNotifier->setEnabled(false);
        m_readDeferred = true;
        return;
    }
    const QPointer<StdioTransport> self(this);
    m_reading = true;
    char buffer[ReadChunkBytes];
    for (int i = 0; i < maxReads && m_stdoutFd >= 0; ++i) {
        const ssize_t n = ::read(m_stdoutFd, buffer, sizeof buffer);
        if (n > 0) {
            if (!feedStdout(QByteArrayView(buffer, n), self))
                return; // we were deleted
            // A read that did not fill the buffer emptied the pipe: the notifier tells when there
            // is more, which saves the read() that would only say EAGAIN.
            if (n < qsizetype(sizeof buffer))
                break;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            break;
        } else {
            // EOF (or a broken pipe): the child closed its stdout. Its exit, if it comes, is
            // reported by onFinished() with its exit code.
            closeReadEnd();
            break;
        }
    }
    m_reading = false;
    if (m_readDeferred) {
        m_readDeferred = false;
        if (m_readNotifier)
            m_readNotifier->setEnabled(true);
    }
}

bool StdioTransport::feedStdout(QByteArrayView chunk, const QPointer<StdioTransport>& self)
{
    if (m_discardingLine) {
        const qsizetype nl = chunk.indexOf('\n');
        const QByteArrayView part = nl < 0 ? chunk : chunk.first(nl);
        m_oversizedBytes += part.size();
        m_oversizedTail.append(part.last(std::min(part.size(), ExcerptBytes)));
        m_oversizedTail = m_oversizedTail.right(ExcerptBytes);
        if (nl < 0)
            return true;
        handleOversizedLine();
        if (!self)
            return false;
        chunk = chunk.sliced(nl + 1);
    }
    if (!m_stdout.isEmpty()) {
        // The end of a line begun in an earlier read.
        const qsizetype nl = chunk.indexOf('\n');
        if (nl < 0) {
            m_stdout.append(chunk);
            checkStdoutOverflow();
            return true;
        }
        m_stdout.append(chunk.first(nl));
        const QByteArray line = std::exchange(m_stdout, QByteArray());
        takeLine(line);
        if (!self)
            return false;
        chunk = chunk.sliced(nl + 1);
    }
    // Whole lines are handled where they were read, without a copy.
    qsizetype start = 0;
    for (qsizetype nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
        takeLine(chunk.sliced(start, nl - start));
        if (!self)
            return false;
        start = nl + 1;
    }
    if (start < chunk.size()) {
        m_stdout.append(chunk.sliced(start));
        checkStdoutOverflow();
    }
    return true;
}

void StdioTransport::checkStdoutOverflow()
{
    if (m_stdout.size() <= m_options.maxMessageBytes)
        return;
    // Too large to hold: keep only the ends, which is where an id can be recovered from.
    m_discardingLine = true;
    m_oversizedHead = m_stdout.left(ExcerptBytes);
    m_oversizedTail = m_stdout.right(ExcerptBytes);
    m_oversizedBytes = m_stdout.size();
    m_stdout.clear();
}

void StdioTransport::takeLine(QByteArrayView line)
{
    if (line.size() > m_options.maxMessageBytes) {
        // A line that ended in the read that crossed the limit is still over it.
        m_oversizedHead = line.first(ExcerptBytes).toByteArray();
        m_oversizedTail = line.last(ExcerptBytes).toByteArray();
        m_oversizedBytes = line.size();
        handleOversizedLine();
    } else {
        processLine(line);
    }
}

void StdioTransport::handleOversizedLine()
{
    // SDK servers put "id" last, others first. Only an id at the top level counts: right after the
    // opening brace (optionally behind "jsonrpc") or right before the closing one.
    static const QRegularExpression tailPattern(QStringLiteral(R"re("id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$)re"));
    static const QRegularExpression headPattern(
        QStringLiteral(R"re(^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+))re"));
    QJsonValue id;
    for (const auto& [part, pattern] :
        { std::pair { &m_oversizedTail, &tailPattern }, std::pair { &m_oversizedHead, &headPattern } }) {
        const auto match = pattern->match(QString::fromUtf8(*part));
        if (match.hasMatch()) {
            // Parsing the captured literal as JSON decodes escapes in string ids.
            const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("[") + match.captured(1).toUtf8() + ']');
            id = doc.array().first();
            break;
        }
    }
    if (!m_wireRequests.isEmpty() && !id.isUndefined()) {
        StdioLine answer = StdioLine::make(QDateTime::currentMSecsSinceEpoch(), false, m_oversizedHead);
        answer.size = m_oversizedBytes;
        answer.truncated = true;
        settleWire(id, answer);
    }
    Q_EMIT malformedMessage(tr("a message from stdio server '%1' is %2 bytes, over the %3-byte limit")
                                .arg(m_options.serverName)
                                .arg(m_oversizedBytes)
                                .arg(m_options.maxMessageBytes),
        m_oversizedHead, id);
    m_discardingLine = false;
    m_oversizedHead.clear();
    m_oversizedTail.clear();
    m_oversizedBytes = 0;
}

void StdioTransport::processLine(QByteArrayView line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    if (line.trimmed().isEmpty())
        return;
    if (trafficWatched())
        Q_EMIT traffic(WireDirection::Incoming, line.toByteArray());
    DecodeResult decoded = JsonRpcCodec::decode(line);
    if (!decoded) {
        if (!m_wireRequests.isEmpty() && !decoded.id.isUndefined())
            settleWire(decoded.id, StdioLine::make(QDateTime::currentMSecsSinceEpoch(), false, line));
        Q_EMIT malformedMessage(tr("stdio server '%1' wrote a line that is not a JSON-RPC message: %2")
                                    .arg(m_options.serverName, decoded.error),
            line.first(std::min<qsizetype>(line.size(), ExcerptBytes)).toByteArray(), decoded.id);
        return;
    }
    if (!m_wireRequests.isEmpty() && decoded.message.isReply())
        settleWire(decoded.message.id, StdioLine::make(QDateTime::currentMSecsSinceEpoch(), false, line));
    Q_EMIT messageReceived(decoded.message);
}

void StdioTransport::settleWire(const QJsonValue& id, const StdioLine& answer)
{
    const auto it = m_wireRequests.find(idKey(id));
    if (it == m_wireRequests.end())
        return;
    WireExchange exchange;
    exchange.stdio = { it->line, answer };
    m_wireRequests.erase(it);
    Q_EMIT exchangeRecorded(id, exchange);
}

void StdioTransport::onStderr()
{
    m_stderr.append(m_process->readAllStandardError());
    qsizetype start = 0;
    for (qsizetype nl = m_stderr.indexOf('\n'); nl >= 0; nl = m_stderr.indexOf('\n', start)) {
        QByteArrayView line = QByteArrayView(m_stderr).sliced(start, nl - start);
        if (line.endsWith('\r'))
            line.chop(1);
        Q_EMIT serverLog(QString::fromUtf8(line));
        start = nl + 1;
    }
    m_stderr.remove(0, start);
    // A child that never ends its stderr lines must not grow our buffer without bound.
    if (m_stderr.size() > 64 * 1024) {
        Q_EMIT serverLog(QString::fromUtf8(m_stderr));
        m_stderr.clear();
    }
}

void StdioTransport::onFinished(int exitCode, QProcess::ExitStatus status)
{
    // What the child wrote before it died comes before the news of its death. Then the pipes go,
    // as QProcess's own would: something the leader started must not keep feeding a dead channel.
    if (!m_reading) {
        const QPointer<StdioTransport> self(this);
        readStdout(ReadsAfterExit);
        if (!self)
            return;
        closeReadEnd();
    }
    closeWriteEnd();
    if (!m_stderr.isEmpty()) {
        Q_EMIT serverLog(QString::fromUtf8(m_stderr));
        m_stderr.clear();
    }
    if (m_closing) {
        // Something the leader started may still hold the group: the running timer escalates.
        if (!groupAlive() || !m_shutdownTimer.isActive())
            finishClose();
        return;
    }
    if (m_failedReported)
        return;
    m_failedReported = true;
    TransportFailure failure;
    failure.event = TransportEvent::ProcessGone;
    failure.exitCode = exitCode;
    failure.crashed = status == QProcess::CrashExit;
    failure.sessionId = sessionId();
    // QProcess reports the signal's number as the exit code of a child a signal ended.
    failure.message = status == QProcess::CrashExit
        ? tr("stdio server '%1' (%2) was killed by signal %3.")
              .arg(m_options.serverName, sessionId(), signalDescription(exitCode))
        : tr("stdio server '%1' (%2) exited with code %3.").arg(m_options.serverName, sessionId()).arg(exitCode);
    signalGroup(SIGKILL);
    // The requests that died with the channel: what was written for them is all there is.
    const auto unanswered = std::exchange(m_wireRequests, {});
    for (auto it = unanswered.cbegin(); it != unanswered.cend(); ++it) {
        WireExchange exchange;
        exchange.stdio = { it->line };
        Q_EMIT exchangeRecorded(it->id, exchange);
    }
    Q_EMIT channelFailed(failure);
}

void StdioTransport::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || m_failedReported)
        return;
    m_failedReported = true;
    closeFds();
    TransportFailure failure;
    failure.event = TransportEvent::NotSent;
    failure.networkError = m_process->errorString();
    failure.message = tr("Could not start stdio server '%1': command '%2' failed to start (%3).")
                          .arg(m_options.serverName, m_options.command, m_process->errorString());
    Q_EMIT channelFailed(failure);
}

void StdioTransport::closeStdin()
{
    // Like QProcess::closeWriteChannel(): what is still buffered goes out first.
    if (m_stdinFd < 0)
        return;
    if (m_writeBuffer.isEmpty())
        closeWriteEnd();
    else
        m_closeStdinAfterFlush = true;
}

void StdioTransport::close()
{
    if (m_closing)
        return;
    m_closing = true;
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        m_shutdownStep = 2;
        m_shutdownTimer.start(0);
        return;
    }
    closeStdin();
    m_shutdownStep = 1;
    m_shutdownTimer.start(m_options.shutdownStepMs);
}

void StdioTransport::abort()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    signalGroup(SIGKILL);
}

void StdioTransport::suspend()
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        signalGroup(SIGSTOP);
}

void StdioTransport::signalGroup(int signal)
{
    if (m_pid > 0)
        ::kill(-pid_t(m_pid), signal);
}

bool StdioTransport::groupAlive() const
{
    if (m_pid <= 0 || ::kill(-pid_t(m_pid), 0) != 0)
        return false;
#ifdef Q_OS_LINUX
    // kill() also finds zombies. Members orphaned by the leader's death stay zombies until init
    // reaps them, which container inits do only every second or two, so only a member that still
    // runs counts. /proc/PID/stat reads "pid (comm) state ppid pgrp ..."; comm may hold spaces.
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        if (entry.isEmpty() || !entry.front().isDigit())
            continue;
        QFile stat(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 2 && fields.at(2).toLongLong() == m_pid && fields.at(0) != "Z" && fields.at(0) != "X")
            return true;
    }
    return false;
#else
    return true;
#endif
}

void StdioTransport::finishClose()
{
    if (m_closedEmitted)
        return;
    m_closedEmitted = true;
    m_shutdownTimer.stop();
    if (m_pid > 0)
        signalGroup(SIGKILL);
    closeFds();
    Q_EMIT closed();
}

} // namespace mcpscope
