#include "localserverlauncher.h"

#include "config/commandline.h"
#include "transport/childreaper.h"
#include "transport/processgroupstop.h"

#include <QProcess>
#include <QTcpSocket>
#include <QTimer>

#include <unistd.h>

namespace mcpscope {

namespace {
constexpr int PortProbes = 200; ///< 150 ms apart: 30 s
constexpr int PortProbeIntervalMs = 150;
constexpr int StopGraceMs = 1500;
} // namespace

LocalServerLauncher::~LocalServerLauncher()
{
    if (!isRunning())
        return;
    m_process->disconnect(this);
    ProcessGroupStop::detach(m_process, m_process->processId(), StopGraceMs);
}

bool LocalServerLauncher::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

void LocalServerLauncher::start(const ServerConfig& config)
{
    m_config = config;
    const QStringList words = CommandLine::split(m_config.launchCommand);
    if (words.isEmpty()) {
        Q_EMIT failed(tr("Server '%1' has an empty launch command.").arg(m_config.name));
        return;
    }
    if (isRunning()) {
        // A restart: the old server's group is stopped like at exit, not left to QProcess's kill of its leader.
        m_process->disconnect(this);
        ProcessGroupStop::detach(m_process, m_process->processId(), StopGraceMs);
    } else if (m_process) {
        m_process->deleteLater();
    }
    auto* process = new QProcess(this);
    m_process = process;
    process->setProgram(words.first());
    process->setArguments(words.mid(1));
    process->setProcessChannelMode(QProcess::MergedChannels);
    // Its own process group, so stopping it reaches what it started.
    process->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(process, &QProcess::readyReadStandardOutput, this, [this, process] {
        const QList<QByteArray> lines = process->readAllStandardOutput().split('\n');
        for (const QByteArray& line : lines)
            if (!line.trimmed().isEmpty())
                Q_EMIT serverLog(QString::fromUtf8(line));
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        Q_EMIT failed(tr("Server '%1': the launch command '%2' could not start (%3).")
                          .arg(m_config.name, m_config.launchCommand, process->errorString()));
    });
    connect(process, &QProcess::finished, this, [this](int code) { Q_EMIT exited(code); });
    Q_EMIT starting();
    Q_EMIT notice(tr("Server '%1': starting its launch command %2").arg(m_config.name, m_config.launchCommand));
    process->start();
    ChildReaper::hold(process);
    waitForPort(PortProbes);
}

void LocalServerLauncher::waitForPort(int attemptsLeft)
{
    if (!isRunning())
        return;
    if (attemptsLeft <= 0) {
        Q_EMIT failed(tr("Server '%1': the launch command did not start listening on %2:%3 within 30 s.")
                          .arg(m_config.name, m_config.url.host())
                          .arg(m_config.url.port(80)));
        return;
    }
    auto* probe = new QTcpSocket(this);
    connect(probe, &QTcpSocket::connected, this, [this, probe] {
        probe->deleteLater();
        Q_EMIT listening();
    });
    connect(probe, &QTcpSocket::errorOccurred, this, [this, probe, attemptsLeft] {
        probe->deleteLater();
        QTimer::singleShot(PortProbeIntervalMs, this, [this, attemptsLeft] { waitForPort(attemptsLeft - 1); });
    });
    probe->connectToHost(
        m_config.url.host(), quint16(m_config.url.port(m_config.url.scheme() == QLatin1String("https") ? 443 : 80)));
}

} // namespace mcpscope
