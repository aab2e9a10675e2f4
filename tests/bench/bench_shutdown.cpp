// Shutdown time of a stdio server started the way people start them: `mcpscope-cli --stdio "npx -y
// @modelcontextprotocol/server-everything" tools`. npx runs the server two processes down (npm exec →
// sh -c → node); the CLI lists the tools, then stops the whole tree (stdin closed, 2 s, SIGTERM, 2 s,
// SIGKILL) and exits. tst_shutdown checks that nothing is left behind; how long it takes is measured here.
//
// Side by side, as a ratio:
// - the baseline: a bare child process (sleep) from SIGTERM to its exit, the least any stop can cost;
// - the CLI: from the tool list on its stdout to its exit, which is the shutdown of the npx tree.
// The CLI's whole run (start, initialize, list, shutdown) is printed as well; the goal is under 5 s.
//
// Timing is only printed, never asserted: the machine's load decides the numbers. The run fails only
// when a client fails functionally (no tool list, a non-zero exit, a process that did not end).
// Several rounds take turns; the best round counts, the median is printed next to it.

#include "benchsupport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;
using mcpscope::bench::best;
using mcpscope::bench::median;
using mcpscope::bench::print;

namespace {

constexpr int RunTimeoutMs = 60'000;
constexpr double WholeRunGoalMs = 5000;

struct Measurement
{
    bool ok = false;
    double shutdownMs = 0; ///< SIGTERM (bare) or the tool list (CLI) to the exit
    double wholeMs = 0; ///< start to exit
    QString error;
};

struct Row
{
    Row(QString key, QString name)
        : key(std::move(key))
        , name(std::move(name))
    { }

    QString key;
    QString name;
    bool selected = true;
    bool failed = false;
    QList<double> shutdownMs;
    QList<double> wholeMs;
};

Measurement runBare()
{
    Measurement result;
    const QString sleep = QStandardPaths::findExecutable(u"sleep"_s);
    if (sleep.isEmpty()) {
        result.error = u"sleep is not on PATH"_s;
        return result;
    }
    QElapsedTimer whole;
    whole.start();
    QProcess child;
    child.start(sleep, { u"60"_s });
    if (!child.waitForStarted()) {
        result.error = u"could not start %1: %2"_s.arg(sleep, child.errorString());
        return result;
    }
    QElapsedTimer timer;
    timer.start();
    child.terminate();
    if (!child.waitForFinished(RunTimeoutMs)) {
        child.kill();
        child.waitForFinished();
        result.error = u"sleep did not end on SIGTERM"_s;
        return result;
    }
    result.shutdownMs = double(timer.nsecsElapsed()) / 1e6;
    result.wholeMs = double(whole.nsecsElapsed()) / 1e6;
    result.ok = true;
    return result;
}

Measurement runCli()
{
    Measurement result;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // As in tst_shutdown: the pinned Node first on PATH, run from tests/peers so that npx needs no network.
    env.insert(u"PATH"_s, QFileInfo(QStringLiteral(MCPSCOPE_NODE)).absolutePath() + u':' + env.value(u"PATH"_s));
    QProcess cli;
    cli.setProgram(QStringLiteral(MCPSCOPE_CLI));
    cli.setArguments({ u"--stdio"_s, u"npx -y @modelcontextprotocol/server-everything"_s, u"tools"_s });
    cli.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
    cli.setProcessEnvironment(env);
    cli.setProcessChannelMode(QProcess::ForwardedErrorChannel);

    QElapsedTimer whole;
    whole.start();
    cli.start();
    if (!cli.waitForStarted()) {
        result.error = u"could not start %1: %2"_s.arg(cli.program(), cli.errorString());
        return result;
    }
    cli.closeWriteChannel();
    QByteArray out;
    qint64 listedNs = -1;
    while (cli.state() != QProcess::NotRunning && whole.elapsed() < RunTimeoutMs) {
        cli.waitForReadyRead(50);
        out += cli.readAllStandardOutput();
        if (listedNs < 0 && out.contains("\ntrigger-long-running-operation"))
            listedNs = whole.nsecsElapsed();
    }
    if (cli.state() != QProcess::NotRunning) {
        cli.kill();
        cli.waitForFinished();
        result.error = u"mcpscope-cli did not exit within %1 s"_s.arg(RunTimeoutMs / 1000);
        return result;
    }
    const qint64 endNs = whole.nsecsElapsed();
    out += cli.readAllStandardOutput();
    if (cli.exitStatus() != QProcess::NormalExit || cli.exitCode() != 0) {
        result.error = u"mcpscope-cli failed (exit code %1)"_s.arg(cli.exitCode());
        return result;
    }
    if (!out.startsWith("echo") || !out.contains("\nget-sum") || listedNs < 0) {
        result.error = u"mcpscope-cli printed no tool list: %1"_s.arg(QString::fromUtf8(out.left(200)));
        return result;
    }
    result.shutdownMs = double(endNs - listedNs) / 1e6;
    result.wholeMs = double(endNs) / 1e6;
    result.ok = true;
    return result;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Shutdown time of mcpscope-cli over an npx stdio server, against a bare child"_s);
    parser.addHelpOption();
    const QCommandLineOption roundsOption(u"rounds"_s, u"Rounds (default 5)."_s, u"n"_s, u"5"_s);
    const QCommandLineOption onlyOption(u"only"_s, u"Run only these rows: bare, cli (comma-separated)."_s, u"rows"_s);
    const QCommandLineOption pinOption(
        u"pin"_s, u"Pin everything to one CPU (off by default: the stop spans several processes)."_s);
    parser.addOptions({ roundsOption, onlyOption, pinOption });
    parser.process(app);

    const int rounds = std::max(1, parser.value(roundsOption).toInt());
    QList<Row> rows { Row(u"bare"_s, u"bare child, SIGTERM to exit"_s),
        Row(u"cli"_s, u"mcpscope-cli over npx, tool list to exit"_s) };
    if (parser.isSet(onlyOption)
        && !mcpscope::bench::selectOnly(parser.value(onlyOption), { u"bare"_s, u"cli"_s }, rows))
        return 2;
    const QString where = parser.isSet(pinOption) ? mcpscope::bench::pinToCurrentCpu() : u"unpinned"_s;
    print(u"Shutdown benchmark: %1 rounds, %2\n"_s.arg(rounds).arg(where));

    for (int round = 1; round <= rounds; ++round) {
        for (Row& row : rows) {
            if (!row.selected || row.failed)
                continue;
            const Measurement m = row.key == u"bare"_s ? runBare() : runCli();
            if (!m.ok) {
                row.failed = true;
                print(u"  round %1, %2: FAILED: %3\n"_s.arg(round).arg(row.name, m.error));
                continue;
            }
            row.shutdownMs.append(m.shutdownMs);
            row.wholeMs.append(m.wholeMs);
            print(u"  round %1, %2: %3 ms (whole run %4 ms)\n"_s.arg(round)
                      .arg(row.name)
                      .arg(m.shutdownMs, 0, 'f', 1)
                      .arg(m.wholeMs, 0, 'f', 1));
        }
    }

    print(u"\n%1  %2  %3  %4\n"_s.arg(u"row"_s, -44)
              .arg(u"best ms"_s, 9)
              .arg(u"median ms"_s, 9)
              .arg(u"whole run, best ms"_s, 18));
    bool failed = false;
    for (const Row& row : std::as_const(rows)) {
        if (!row.selected)
            continue;
        failed = failed || row.failed;
        print(u"%1  %2  %3  %4\n"_s.arg(row.name, -44)
                  .arg(best(row.shutdownMs), 9, 'f', 1)
                  .arg(median(row.shutdownMs), 9, 'f', 1)
                  .arg(best(row.wholeMs), 18, 'f', 1));
    }
    if (rows.at(0).selected && rows.at(1).selected && !failed) {
        const double bare = best(rows.at(0).shutdownMs);
        const double cli = best(rows.at(1).shutdownMs);
        print(u"\nCLI shutdown / bare child: %1x (best rounds); CLI whole run %2 ms, goal under %3 ms\n"_s
                  .arg(bare > 0 ? cli / bare : 0.0, 0, 'f', 1)
                  .arg(best(rows.at(1).wholeMs), 0, 'f', 1)
                  .arg(WholeRunGoalMs, 0, 'f', 0));
    }
    return failed ? 1 : 0;
}
