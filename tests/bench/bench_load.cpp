// Load (DESIGN.md "Performance goals"): `mcpscope-cli load` against the official Inspector's
// `--cli --load` on the same server and tool, side by side in one run, each for a few seconds at
// concurrency 1 and 10: the echo tool of the C++ echo peer (tests/bench/echopeer.cpp) and of the real
// server-everything, both over stdio. Both clients print one JSON report; throughput and p99 come from
// those. Goals: against the echo peer, at least 2x the Inspector's throughput and a p99 no worse, and
// within 1.5x of a bare loop (floorclient: one pre-built line written and one read, blocking, no JSON);
// against server-everything, at least its throughput and a lower p99. Printed, never asserted.
//
// The Inspector is a yardstick, not a pinned peer: MCPSCOPE_INSPECTOR_DIR names a scratch
// `npm install @modelcontextprotocol/inspector@2.12.0` (make bench makes one). Without it only
// McpScope's figures are printed. Options: --seconds S (default 10, as issue 17 asks).

#include "benchsupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <optional>

using namespace Qt::StringLiterals;
using mcpscope::bench::print;

namespace {

struct Report
{
    double throughput = 0;
    double p99 = 0;
    int requests = 0;
    int ok = 0;
};

std::optional<Report> parse(const QByteArray& out, const QString& who)
{
    // One JSON object: McpScope's report itself, the Inspector's under "result".
    for (const QByteArray& line : out.split('\n')) {
        QJsonObject object = QJsonDocument::fromJson(line.trimmed()).object();
        if (object.contains("result"_L1))
            object = object.value("result"_L1).toObject();
        if (!object.contains("throughput"_L1))
            continue;
        return Report { object.value("throughput"_L1).toDouble(),
            object.value("latencyMs"_L1).toObject().value("p99"_L1).toDouble(), object.value("requests"_L1).toInt(),
            object.value("ok"_L1).toInt() };
    }
    print(u"  %1: no report in its output:\n%2\n"_s.arg(who, QString::fromUtf8(out.left(2000))));
    return std::nullopt;
}

std::optional<Report> run(const QString& program, const QStringList& arguments, const QString& who, const QString& home)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // The Inspector keeps a catalog under HOME: a scratch one, never the user's.
    env.insert(u"HOME"_s, home);
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
    process.setStandardErrorFile(QProcess::nullDevice());
    process.start(program, arguments);
    process.closeWriteChannel();
    if (!process.waitForFinished(180000)) {
        process.kill();
        process.waitForFinished();
        print(u"  %1: did not finish\n"_s.arg(who));
        return std::nullopt;
    }
    return parse(process.readAllStandardOutput(), who);
}

void printRow(const QString& who, const Report& report)
{
    print(u"  %1 %2 calls/s  p99 %3 ms  (%4 calls, %5 ok)\n"_s.arg(who.leftJustified(13))
              .arg(report.throughput, 0, 'f', 0)
              .arg(report.p99, 0, 'f', 2)
              .arg(report.requests)
              .arg(report.ok));
}

/// The bare loop's calls per second against the echo peer (floorclient, sequential), or 0.
double bareLoop()
{
    QProcess process;
    process.setStandardErrorFile(QProcess::nullDevice());
    process.start(QStringLiteral(MCPSCOPE_BENCH_FLOORCLIENT),
        { QStringLiteral(MCPSCOPE_BENCH_ECHOPEER), u"300000"_s, u"20000"_s });
    if (!process.waitForFinished(120000) || process.exitCode() != 0) {
        process.kill();
        process.waitForFinished();
        print(u"  bare loop: floorclient failed\n"_s);
        return 0;
    }
    const double us
        = QJsonDocument::fromJson(process.readAllStandardOutput().trimmed()).object().value("usPerCall"_L1).toDouble();
    return us > 0 ? 1e6 / us : 0;
}

struct Server
{
    QString name;
    QStringList command; ///< program and arguments of a stdio server
    double throughputGoal; ///< at least this times the Inspector's
    bool p99Lower; ///< p99 below the Inspector's (else: no worse)
    bool bareLoop; ///< also within BareLoopGoal of the bare loop
};

constexpr double BareLoopGoal = 1.5;

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const qsizetype at = args.indexOf(u"--seconds"_s);
    const QString seconds = at >= 0 ? args.value(at + 1, u"10"_s) : u"10"_s;
    const QString node = QStringLiteral(MCPSCOPE_NODE);
    const QString everything
        = QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js"_s;
    const QString inspectorDir = qEnvironmentVariable("MCPSCOPE_INSPECTOR_DIR");
    const QString inspector
        = inspectorDir + u"/node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js"_s;
    const bool withInspector = !inspectorDir.isEmpty() && QFile::exists(inspector);
    QTemporaryDir home;

    print(
        u"Load: mcpscope-cli load vs @modelcontextprotocol/inspector --cli --load, echo for %1 s per run (%2)\n"_s.arg(
            seconds, mcpscope::bench::pinToCurrentCpu()));
    if (!withInspector)
        print(u"Inspector: not measured (set MCPSCOPE_INSPECTOR_DIR to a scratch `npm install "
              "@modelcontextprotocol/inspector@2.12.0`; make bench does)\n"_s);

    const QList<Server> servers {
        { u"echo peer (C++, stdio)"_s, { QStringLiteral(MCPSCOPE_BENCH_ECHOPEER) }, 2.0, false, true },
        { u"server-everything (stdio)"_s, { node, everything, u"stdio"_s }, 1.0, true, false },
    };
    const double bare = bareLoop();
    print(u"\nbare loop against the echo peer (floorclient, sequential): %1 calls/s\n"_s.arg(bare, 0, 'f', 0));
    for (const Server& server : servers) {
        for (const int concurrency : { 1, 10 }) {
            print(u"\n%1, concurrency %2\n"_s.arg(server.name).arg(concurrency));
            const QString stdio = server.command.join(u' ');
            const auto ours = run(QStringLiteral(MCPSCOPE_CLI),
                { u"--stdio"_s, stdio, u"--json"_s, u"load"_s, u"echo"_s, uR"({"message":"load"})"_s,
                    u"--concurrency"_s, QString::number(concurrency), u"--duration"_s, seconds },
                u"mcpscope-cli"_s, home.path());
            if (ours)
                printRow(u"mcpscope-cli"_s, *ours);
            if (ours && server.bareLoop && bare > 0 && ours->throughput > 0) {
                const double behind = bare / ours->throughput;
                print(u"  bare loop %1x mcpscope-cli's throughput (goal <= %2x: %3)\n"_s.arg(behind, 0, 'f', 2)
                          .arg(BareLoopGoal, 0, 'f', 1)
                          .arg(behind <= BareLoopGoal ? u"met"_s : u"NOT met"_s));
            }
            if (!withInspector)
                continue;
            const auto theirs = run(node,
                QStringList { inspector, u"--load"_s, u"--load-concurrency"_s, QString::number(concurrency),
                    u"--load-duration"_s, seconds, u"--method"_s, u"tools/call"_s, u"--tool-name"_s, u"echo"_s,
                    u"--tool-arg"_s, u"message=load"_s, u"--format"_s, u"json"_s }
                    + server.command,
                u"Inspector"_s, home.path());
            if (theirs)
                printRow(u"Inspector"_s, *theirs);
            if (!ours || !theirs || theirs->throughput <= 0 || theirs->p99 <= 0)
                continue;
            const double ratio = ours->throughput / theirs->throughput;
            const double p99 = ours->p99 / theirs->p99;
            const bool throughputMet = ratio >= server.throughputGoal;
            const bool p99Met = server.p99Lower ? p99 < 1.0 : p99 <= 1.0;
            print(u"  throughput %1x the Inspector's (goal >= %2x: %3); p99 %4x (goal %5 1x: %6)\n"_s
                      .arg(ratio, 0, 'f', 2)
                      .arg(server.throughputGoal, 0, 'f', 0)
                      .arg(throughputMet ? u"met"_s : u"NOT met"_s)
                      .arg(p99, 0, 'f', 2)
                      .arg(server.p99Lower ? u"<"_s : u"<="_s)
                      .arg(p99Met ? u"met"_s : u"NOT met"_s));
        }
    }
    return 0;
}
