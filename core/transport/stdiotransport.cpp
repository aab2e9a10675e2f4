#include "stdiotransport.h"

#include "jsonrpc/jsonrpccodec.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace mcpscope {

namespace {
constexpr qsizetype ExcerptBytes = 256;
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
    auto* process = new QProcess(this);
    m_process = process;
    process->setProgram(m_options.command);
    process->setArguments(m_options.args);
    process->setProcessEnvironment(childEnvironment(m_options.env));
    if (!m_options.cwd.isEmpty())
        process->setWorkingDirectory(m_options.cwd);
    // Own process group, so SIGTERM/SIGKILL reach grandchildren (npx → sh → node).
    process->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(process, &QProcess::readyReadStandardOutput, this, &StdioTransport::onStdout);
    connect(process, &QProcess::readyReadStandardError, this, &StdioTransport::onStderr);
    connect(process, &QProcess::bytesWritten, this, &StdioTransport::onBytesWritten);
    connect(process, &QProcess::finished, this, &StdioTransport::onFinished);
    connect(process, &QProcess::errorOccurred, this, &StdioTransport::onError);
    connect(process, &QProcess::started, this, [this] {
        m_pid = m_process->processId();
        Q_EMIT opened();
    });
    process->start(QIODevice::ReadWrite | QIODevice::Unbuffered);
}

QString StdioTransport::sessionId() const
{
    return m_pid > 0 ? QStringLiteral("pid:") + QString::number(m_pid) : QString();
}

qint64 StdioTransport::processId() const
{
    return m_pid;
}

void StdioTransport::send(const JsonRpcMessage& message)
{
    QByteArray bytes = JsonRpcCodec::encode(message);
    bytes.append('\n');
    if (!m_process || m_process->state() != QProcess::Running || m_closing) {
        if (message.isRequest()) {
            TransportFailure failure;
            failure.kind = FailureKind::NotSent;
            failure.message = tr("Could not send %1 to stdio server '%2': the process is not running.")
                                  .arg(message.method, m_options.serverName);
            Q_EMIT requestFailed(message.id, failure);
        }
        return;
    }
    Q_EMIT traffic(WireDirection::Outgoing, bytes);
    m_queued += bytes.size();
    if (message.isRequest())
        m_pendingWrites.emplace_back(m_queued, message.id);
    m_process->write(bytes);
}

void StdioTransport::onBytesWritten(qint64 bytes)
{
    m_written += bytes;
    while (!m_pendingWrites.empty() && m_pendingWrites.front().first <= m_written) {
        const QJsonValue id = m_pendingWrites.front().second;
        m_pendingWrites.pop_front();
        Q_EMIT requestWritten(id);
    }
}

void StdioTransport::onStdout()
{
    const QByteArray chunk = m_process->readAllStandardOutput();
    if (m_discardingLine) {
        const qsizetype nl = chunk.indexOf('\n');
        m_oversizedBytes += nl < 0 ? chunk.size() : nl;
        m_oversizedTail = QByteArray(m_oversizedTail + (nl < 0 ? chunk : chunk.left(nl))).right(ExcerptBytes);
        if (nl < 0)
            return;
        handleOversizedLine();
        m_stdout = chunk.mid(nl + 1);
    } else {
        m_stdout.append(chunk);
    }

    qsizetype start = 0;
    for (;;) {
        const qsizetype nl = m_stdout.indexOf('\n', std::max(start, m_scanFrom));
        if (nl < 0)
            break;
        const QByteArrayView line = QByteArrayView(m_stdout).sliced(start, nl - start);
        if (line.size() > m_options.maxMessageBytes) {
            // A line that ended in the read that crossed the limit is still over it.
            m_oversizedHead = line.first(ExcerptBytes).toByteArray();
            m_oversizedTail = line.last(ExcerptBytes).toByteArray();
            m_oversizedBytes = line.size();
            handleOversizedLine();
        } else {
            processLine(line);
        }
        start = nl + 1;
        m_scanFrom = start;
    }
    m_stdout.remove(0, start);
    m_scanFrom = m_stdout.size();

    if (m_stdout.size() > m_options.maxMessageBytes) {
        // Too large to hold: keep only the ends, which is where an id can be recovered from.
        m_discardingLine = true;
        m_oversizedHead = m_stdout.left(ExcerptBytes);
        m_oversizedTail = m_stdout.right(ExcerptBytes);
        m_oversizedBytes = m_stdout.size();
        m_stdout.clear();
        m_scanFrom = 0;
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
    for (const auto& [part, pattern] : { std::pair { &m_oversizedTail, &tailPattern }, std::pair { &m_oversizedHead, &headPattern } }) {
        const auto match = pattern->match(QString::fromUtf8(*part));
        if (match.hasMatch()) {
            // Parsing the captured literal as JSON decodes escapes in string ids.
            const QJsonDocument doc = QJsonDocument::fromJson(QByteArray("[") + match.captured(1).toUtf8() + ']');
            id = doc.array().first();
            break;
        }
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
    Q_EMIT traffic(WireDirection::Incoming, line.toByteArray());
    DecodeResult decoded = JsonRpcCodec::decode(line);
    if (!decoded) {
        Q_EMIT malformedMessage(
            tr("stdio server '%1' wrote a line that is not a JSON-RPC message: %2").arg(m_options.serverName, decoded.error),
            line.first(std::min<qsizetype>(line.size(), ExcerptBytes)).toByteArray(), decoded.id);
        return;
    }
    Q_EMIT messageReceived(decoded.message);
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
    failure.kind = FailureKind::TransportLost;
    failure.exitCode = exitCode;
    failure.crashed = status == QProcess::CrashExit;
    failure.sessionId = sessionId();
    failure.message = status == QProcess::CrashExit
        ? tr("stdio server '%1' (%2) was killed by a signal.").arg(m_options.serverName, sessionId())
        : tr("stdio server '%1' (%2) exited with code %3.").arg(m_options.serverName, sessionId()).arg(exitCode);
    signalGroup(SIGKILL);
    Q_EMIT channelFailed(failure);
}

void StdioTransport::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || m_failedReported)
        return;
    m_failedReported = true;
    TransportFailure failure;
    failure.kind = FailureKind::NotSent;
    failure.networkError = m_process->errorString();
    failure.message = tr("Could not start stdio server '%1': command '%2' failed to start (%3).")
                          .arg(m_options.serverName, m_options.command, m_process->errorString());
    Q_EMIT channelFailed(failure);
}

void StdioTransport::closeStdin()
{
    if (m_process)
        m_process->closeWriteChannel();
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
    m_process->closeWriteChannel();
    m_shutdownStep = 1;
    m_shutdownTimer.start(m_options.shutdownStepMs);
}

void StdioTransport::abort()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    signalGroup(SIGKILL);
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
    Q_EMIT closed();
}

} // namespace mcpscope
