#pragma once

// Runs the real mcpscope-cli binary (MCPSCOPE_CLI) as a test would: from tests/peers, stdin closed,
// with a generous bound on node start-up on a shared, busy machine (a run that works ends far sooner).

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStringList>

namespace mcpscope::test {

constexpr int CliRunTimeoutMs = 90000;

struct CliRun
{
    bool finished = false;
    int exitCode = -1;
    QProcess::ExitStatus exitStatus = QProcess::CrashExit;
    QByteArray out;
    QByteArray err;

    /// Everything a failing check should show.
    QByteArray report() const
    {
        return "exit " + QByteArray::number(exitCode) + (exitStatus == QProcess::CrashExit ? " (crashed)" : "")
            + "\n--- stdout:\n" + out + "\n--- stderr:\n" + err;
    }

    /// stdout as the JSON objects it holds, one per line.
    QList<QJsonObject> objects() const
    {
        QList<QJsonObject> list;
        for (const QByteArray& line : out.split('\n')) {
            if (!line.trimmed().isEmpty())
                list.append(QJsonDocument::fromJson(line).object());
        }
        return list;
    }
};

/// server-everything over stdio, as --stdio takes it (the pinned Node 22, quoted paths).
inline QString everythingStdioCommand()
{
    return QLatin1Char('"') + QStringLiteral(MCPSCOPE_NODE) + QStringLiteral("\" \"")
        + QStringLiteral(MCPSCOPE_PEERS_DIR)
        + QStringLiteral("/node_modules/@modelcontextprotocol/server-everything/dist/index.js\" stdio");
}

inline void startCli(QProcess& process, const QStringList& arguments)
{
    process.setProgram(QStringLiteral(MCPSCOPE_CLI));
    process.setArguments(arguments);
    process.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
    process.start();
    process.closeWriteChannel();
}

/// Waits for a started CLI to exit. errSoFar is stderr a caller already read.
inline CliRun finishCli(QProcess& process, const QByteArray& errSoFar = {})
{
    CliRun run;
    if (process.state() != QProcess::NotRunning) {
        QSignalSpy finished(&process, &QProcess::finished);
        run.finished = finished.wait(CliRunTimeoutMs);
    } else {
        run.finished = true;
    }
    if (!run.finished) {
        process.kill();
        process.waitForFinished();
    }
    run.exitCode = process.exitCode();
    run.exitStatus = process.exitStatus();
    run.out = process.readAllStandardOutput();
    run.err = errSoFar + process.readAllStandardError();
    return run;
}

inline CliRun runCli(const QStringList& arguments)
{
    QProcess process;
    startCli(process, arguments);
    return finishCli(process);
}

} // namespace mcpscope::test
