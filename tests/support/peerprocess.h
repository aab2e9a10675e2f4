#pragma once

// Test support: starts a Node peer on the pinned Node 22 and waits until it listens.

#include "config/serverconfig.h"
#include "freeport.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTest>

namespace mcpscope::test {

inline QString peersDir()
{
    return QStringLiteral(MCPSCOPE_PEERS_DIR);
}

inline QString nodeBinary()
{
    return QStringLiteral(MCPSCOPE_NODE);
}

inline QString everythingScript()
{
    return peersDir() + QStringLiteral("/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
}

/// server-everything over stdio on the pinned Node, as a configured server (named "everything" unless told).
inline ServerConfig everythingStdioConfig(const QString& name = QStringLiteral("everything"))
{
    ServerConfig config;
    config.name = name;
    config.transport = TransportKind::Stdio;
    config.command = nodeBinary();
    config.args = { everythingScript(), QStringLiteral("stdio") };
    config.cwd = peersDir();
    return config;
}

/// A child peer that is killed (with its output shown on failure) when the test is done.
class PeerProcess
{
public:
    PeerProcess() = default;
    PeerProcess(const PeerProcess&) = delete;
    PeerProcess& operator=(const PeerProcess&) = delete;
    ~PeerProcess() { stop(); }

    /// Starts `node script args` and waits until its output contains readyText.
    bool start(const QString& script, const QStringList& args, const QString& readyText,
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProgram(nodeBinary());
        m_process.setArguments(QStringList { script } + args);
        m_process.setWorkingDirectory(peersDir());
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
        if (!m_process.waitForStarted(10000))
            return false;
        for (int i = 0; i < 200 && !m_output.contains(readyText.toUtf8()); ++i) {
            if (!m_process.waitForReadyRead(100) && m_process.state() != QProcess::Running)
                return false;
            m_output += m_process.readAll();
        }
        return m_output.contains(readyText.toUtf8());
    }

    void stop()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    QByteArray output()
    {
        m_output += m_process.readAll();
        return m_output;
    }

private:
    QProcess m_process;
    QByteArray m_output;
};

/// Runs mcpscope-cli to completion and returns its exit code; stdout and stderr are captured.
struct CliRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline CliRun runCli(const QStringList& args, int timeoutMs = 60000)
{
    QProcess process;
    process.start(QStringLiteral(MCPSCOPE_CLI), args);
    CliRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

} // namespace mcpscope::test
