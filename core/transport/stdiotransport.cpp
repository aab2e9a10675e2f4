#include "stdiotransport.h"

#include "childreaper.h"
#include "jsonrpc/jsonrpccodec.h"
#include "processgroupstop.h"
#include "stdiopipes.h"

#include <QDateTime>
#include <QMetaMethod>
#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace mcpscope {

using stdiopipes::closeFd;

namespace {
constexpr int ReadsAfterExit = 1024; ///< what the leader left in the pipe, up to 64 MiB
constexpr qsizetype MaxRecordedRequests = 4096;
} // namespace

StdioTransport::StdioTransport(Options options, QObject* parent)
    : Transport(parent)
    , m_options(std::move(options))
{ }

StdioTransport::~StdioTransport()
{
    closeFds();
    if (m_process) {
        m_process->disconnect(this);
        // Killed now, and reaped by a stop of its own once it is gone: nothing waits for it here.
        if (m_process->state() != QProcess::NotRunning) {
            ProcessGroupStop::detach(m_process, m_pid, 0);
            return;
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
    m_blockSigpipe = stdiopipes::writesNeedSigpipeBlocked();
    int stdinPipe[2] = { -1, -1 };
    int stdoutPipe[2] = { -1, -1 };
    if (::pipe2(stdinPipe, O_CLOEXEC) != 0 || ::pipe2(stdoutPipe, O_CLOEXEC) != 0
        || !stdiopipes::moveAboveStdio(stdinPipe[0]) || !stdiopipes::moveAboveStdio(stdinPipe[1])
        || !stdiopipes::moveAboveStdio(stdoutPipe[0]) || !stdiopipes::moveAboveStdio(stdoutPipe[1])) {
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
    // The group is known from the fork on, not from started(), which comes on a later pass of the
    // event loop: a transport destroyed before then (a respawn at exit) still stops the whole group.
    if (process->state() != QProcess::NotRunning)
        m_pid = process->processId();
    ChildReaper::hold(process);
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
    // Asked for at each attempt and record: built once per child, not per call.
    if (m_sessionIdPid != m_pid) {
        m_sessionId = m_pid > 0 ? QStringLiteral("pid:") + QString::number(m_pid) : QString();
        m_sessionIdPid = m_pid;
    }
    return m_sessionId;
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
    return m_blockSigpipe ? stdiopipes::writeWithSigpipeBlocked(m_stdinFd, data, size_t(size))
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
    if (!m_reading && !m_closing) {
        if (m_readNotifier)
            m_readNotifier->setEnabled(false);
        m_exit = { exitCode, status };
        m_exitReadsLeft = ReadsAfterExit;
        drainAfterExit();
        return;
    }
    if (!m_reading) {
        // Closing: the stop that ends the close waits for this, so the rest is read at once.
        const QPointer<StdioTransport> self(this);
        readStdout(ReadsAfterExit);
        if (!self)
            return;
        m_unhandled.clear();
        closeReadEnd();
    }
    reportExit(exitCode, status);
}

void StdioTransport::reportExit(int exitCode, QProcess::ExitStatus status)
{
    closeWriteEnd();
    if (!m_stderr.isEmpty()) {
        Q_EMIT serverLog(QString::fromUtf8(m_stderr));
        m_stderr.clear();
    }
    if (m_closing)
        return; // the stop completes the close
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
              .arg(m_options.serverName, sessionId(), stdiopipes::signalDescription(exitCode))
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

void StdioTransport::closeWriteChannel()
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
    m_stop = new ProcessGroupStop(m_process, m_pid, this);
    connect(m_stop, &ProcessGroupStop::finished, this, &StdioTransport::finishClose);
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        m_stop->kill();
        return;
    }
    closeWriteChannel();
    m_stop->stop(m_options.exitWaitMs, m_options.shutdownStepMs);
}

void StdioTransport::abort()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    signalGroup(SIGKILL);
}

void StdioTransport::suspendPeer()
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        signalGroup(SIGSTOP);
}

void StdioTransport::signalGroup(int signal)
{
    ProcessGroupStop::signalGroup(m_pid, signal);
}

void StdioTransport::finishClose()
{
    if (m_closedEmitted)
        return;
    m_closedEmitted = true;
    m_unhandled.clear();
    ++m_lineGeneration; // a line still on a worker is dropped: nothing is reported after closed()
    m_decoding = false;
    m_exit.reset();
    closeFds();
    Q_EMIT closed();
}

} // namespace mcpscope
