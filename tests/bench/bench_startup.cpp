// Start and size (DESIGN.md "Performance goals": under 0.5 s from cold start to a window, idle RSS
// under 80 MB, next to the official Inspector). A small driver that runs the real app as a child:
//  1. start time: `mcpscope` with MCPSCOPE_QUIT_AFTER_SHOW=1 (it quits right after the first show),
//     process start → exit, one cold run and then the median of Runs runs;
//  2. idle RSS: `mcpscope --workspace resources/demo-workspace.json --connect`, VmRSS of the app's
//     own process (not its server children) once it has settled after ~5 s;
//  3. side by side, the official Inspector in web mode, when MCPSCOPE_INSPECTOR_DIR names a scratch
//     `npm install @modelcontextprotocol/inspector` (it is not a pinned test peer): time until its
//     port answers HTTP, and the RSS of its node process. The browser tab it would need is not run.
//
// Everything runs offscreen with a scratch XDG_CONFIG_HOME. Prints numbers and PASS/MISS against
// the goals; it never fails on timing.

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include <signal.h>
#include <sys/types.h>

namespace {

constexpr int Runs = 10;
constexpr double StartGoalMs = 500.0;
constexpr double RssGoalMb = 80.0;

/// VmRSS of one process in kB, or nullopt when it is gone.
std::optional<qint64> rssKb(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return std::nullopt;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return std::nullopt;
}

/// Every process below pid, found through the parent ids in /proc/N/stat.
QList<qint64> descendants(qint64 pid)
{
    QHash<qint64, QList<qint64>> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool number = false;
        const qint64 child = entry.toLongLong(&number);
        if (!number)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(child));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1)
            children[fields.at(1).toLongLong()].append(child);
    }
    QList<qint64> found;
    QList<qint64> queue { pid };
    while (!queue.isEmpty()) {
        const QList<qint64> next = children.value(queue.takeFirst());
        found += next;
        queue += next;
    }
    return found;
}

/// Stops a child and whatever it started (its launched servers outlive a terminated parent).
void stopTree(QProcess& process)
{
    const qint64 pid = process.processId();
    const QList<qint64> tree = pid > 0 ? descendants(pid) : QList<qint64>();
    process.terminate();
    if (!process.waitForFinished(5000)) {
        process.kill();
        process.waitForFinished(5000);
    }
    for (qint64 child : tree)
        ::kill(pid_t(child), SIGKILL);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n == 0 ? 0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool portFree(quint16 port)
{
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, port);
}

quint16 freePort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

/// True when something on the port answers an HTTP request with any bytes.
bool httpAnswers(quint16 port)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(200))
        return false;
    socket.write("GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    return socket.waitForReadyRead(2000) && socket.bytesAvailable() > 0;
}

/// Samples VmRSS every 250 ms: at least minMs, then until four samples in a row (1 s) lie within
/// 2 %, at most maxMs. Returns the last sample in kB (0 when the process went away).
qint64 settledRssKb(const QProcess& process, int minMs, int maxMs)
{
    QElapsedTimer clock;
    clock.start();
    std::vector<qint64> samples;
    while (process.state() == QProcess::Running) {
        const auto rss = rssKb(process.processId());
        if (!rss)
            return 0;
        samples.push_back(*rss);
        if (clock.elapsed() >= minMs && samples.size() >= 4) {
            const auto last = samples.end() - 4;
            const auto [lo, hi] = std::minmax_element(last, samples.end());
            if (*hi - *lo <= *hi / 50 || clock.elapsed() >= maxMs)
                return samples.back();
        }
        QThread::msleep(250);
    }
    return samples.empty() ? 0 : samples.back();
}

QProcessEnvironment appEnvironment(const QString& configHome)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
    // The workspace's call log goes to a scratch folder too, so runs do not pile up history.
    env.insert(QStringLiteral("MCPSCOPE_LOG_DIR"), configHome + QStringLiteral("/logs"));
    return env;
}

double measureStart(const QString& configHome)
{
    std::printf("Start: %s with MCPSCOPE_QUIT_AFTER_SHOW=1, offscreen; process start to exit\n", MCPSCOPE_APP);
    QProcessEnvironment env = appEnvironment(configHome);
    env.insert(QStringLiteral("MCPSCOPE_QUIT_AFTER_SHOW"), QStringLiteral("1"));
    std::vector<double> times;
    double cold = 0;
    for (int run = 0; run <= Runs; ++run) {
        QProcess app;
        app.setProcessEnvironment(env);
        app.setStandardOutputFile(QProcess::nullDevice());
        app.setStandardErrorFile(QProcess::nullDevice());
        QElapsedTimer clock;
        clock.start();
        app.start(QStringLiteral(MCPSCOPE_APP), {});
        if (!app.waitForFinished(30000)) {
            std::printf("  run %d did not quit within 30 s\n", run);
            stopTree(app);
            continue;
        }
        const double ms = double(clock.nsecsElapsed()) / 1e6;
        if (app.exitStatus() != QProcess::NormalExit || app.exitCode() != 0)
            std::printf("  run %d exited with %d\n", run, app.exitCode());
        if (run == 0)
            cold = ms;
        else
            times.push_back(ms);
    }
    const double med = median(times);
    std::printf("  first run:           %.1f ms\n", cold);
    if (!times.empty()) {
        std::printf("  next %zu runs:        min %.1f, median %.1f, max %.1f ms\n", times.size(),
            *std::min_element(times.begin(), times.end()), med, *std::max_element(times.begin(), times.end()));
        std::printf("  start to window:     %.1f ms median  (goal < %.0f ms: %s)\n", med, StartGoalMs,
            med < StartGoalMs ? "PASS" : "MISS");
    }
    std::fflush(stdout);
    return med;
}

double measureIdleRss(const QString& configHome, const QTemporaryDir& scratch)
{
    const QString sourceDir = QStringLiteral(MCPSCOPE_SOURCE_DIR);
    QString workspace = sourceDir + QStringLiteral("/resources/demo-workspace.json");
    quint16 httpPort = 3901;
    // The demo's HTTP server listens on 3901; if something else holds it, run a copy on a free port.
    if (!portFree(3901)) {
        QFile demo(workspace);
        if (!demo.open(QIODevice::ReadOnly))
            return 0;
        QString text = QString::fromUtf8(demo.readAll());
        text.replace(QStringLiteral("${workspaceFolder}"), sourceDir + QStringLiteral("/resources"));
        httpPort = freePort();
        text.replace(QStringLiteral("3901"), QString::number(httpPort));
        workspace = scratch.filePath(QStringLiteral("demo-workspace.json"));
        QFile copy(workspace);
        if (!copy.open(QIODevice::WriteOnly))
            return 0;
        copy.write(text.toUtf8());
    }
    std::printf("Idle RSS: mcpscope --workspace %s --connect (the app's process only)\n", qPrintable(workspace));
    std::fflush(stdout);
    QProcess app;
    app.setProcessEnvironment(appEnvironment(configHome));
    app.setStandardOutputFile(QProcess::nullDevice());
    app.setStandardErrorFile(QProcess::nullDevice());
    app.start(QStringLiteral(MCPSCOPE_APP), { QStringLiteral("--workspace"), workspace, QStringLiteral("--connect") });
    if (!app.waitForStarted(10000)) {
        std::printf("  could not start the app: %s\n", qPrintable(app.errorString()));
        return 0;
    }
    const qint64 kb = settledRssKb(app, 5000, 15000);
    const int servers = int(descendants(app.processId()).size());
    const bool httpUp = httpAnswers(httpPort);
    stopTree(app);
    const double mb = double(kb) / 1024.0;
    std::printf("  processes started by the app: %d; demo HTTP server answering: %s\n", servers, httpUp ? "yes" : "no");
    std::printf("  idle RSS:            %.1f MB  (goal < %.0f MB: %s)\n", mb, RssGoalMb,
        mb > 0 && mb < RssGoalMb ? "PASS" : "MISS");
    std::fflush(stdout);
    return mb;
}

void measureInspector(const QTemporaryDir& scratch, double ourStartMs, double ourRssMb)
{
    const QString dir = qEnvironmentVariable("MCPSCOPE_INSPECTOR_DIR");
    const QString launcher
        = dir + QStringLiteral("/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    if (dir.isEmpty() || !QFile::exists(launcher)) {
        std::printf("Inspector: not measured (it is not a pinned test peer; set MCPSCOPE_INSPECTOR_DIR to a scratch "
                    "`npm install @modelcontextprotocol/inspector` to compare)\n");
        return;
    }
    const quint16 port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString home = scratch.filePath(QStringLiteral("inspector-home"));
    QDir().mkpath(home);
    env.insert(QStringLiteral("CLIENT_PORT"), QString::number(port));
    env.insert(QStringLiteral("MCP_SANDBOX_PORT"), QString::number(freePort()));
    env.insert(QStringLiteral("MCP_APP_ORIGIN_PORT"), QStringLiteral("0"));
    env.insert(QStringLiteral("MCP_AUTO_OPEN_ENABLED"), QStringLiteral("false"));
    env.insert(QStringLiteral("DANGEROUSLY_OMIT_AUTH"), QStringLiteral("true"));
    env.insert(QStringLiteral("MCP_INSPECTOR_SECRET_STORE"), QStringLiteral("memory"));
    env.insert(QStringLiteral("MCP_STORAGE_DIR"), home);
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home);

    QProcess version;
    version.start(QStringLiteral(MCPSCOPE_NODE), { launcher, QStringLiteral("--version") });
    version.waitForFinished(20000);
    std::printf("Inspector %s in web mode on the pinned Node (port %u, no browser opened)\n",
        version.readAllStandardOutput().trimmed().constData(), unsigned(port));
    std::fflush(stdout);

    QProcess inspector;
    inspector.setProcessEnvironment(env);
    inspector.setStandardOutputFile(QProcess::nullDevice());
    inspector.setStandardErrorFile(QProcess::nullDevice());
    QElapsedTimer clock;
    clock.start();
    inspector.start(QStringLiteral(MCPSCOPE_NODE), { launcher, QStringLiteral("--web") });
    bool up = false;
    if (inspector.waitForStarted(10000)) {
        // No event loop runs here: waitForFinished is what notices an early exit.
        while (!up && clock.elapsed() < 60000 && !inspector.waitForFinished(20))
            up = httpAnswers(port);
    }
    const double upMs = double(clock.nsecsElapsed()) / 1e6;
    if (!up) {
        std::printf("Inspector: not measured (its port did not answer within 60 s)\n");
        stopTree(inspector);
        return;
    }
    const qint64 kb = settledRssKb(inspector, 5000, 15000);
    qint64 treeKb = kb;
    const QList<qint64> children = descendants(inspector.processId());
    for (qint64 child : children)
        treeKb += rssKb(child).value_or(0);
    stopTree(inspector);
    std::printf("  start to port answering: %.1f ms\n", upMs);
    std::printf(
        "  idle RSS (node):     %.1f MB (with %d child process(es): %.1f MB), plus a browser tab not measured here\n",
        double(kb) / 1024.0, int(children.size()), double(treeKb) / 1024.0);
    if (ourStartMs > 0 && ourRssMb > 0)
        std::printf("  side by side:        Inspector/McpScope start %.1fx, idle RSS %.1fx (Inspector without its "
                    "browser tab)\n",
            upMs / ourStartMs, (double(treeKb) / 1024.0) / ourRssMb);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    QTemporaryDir scratch;
    if (!scratch.isValid())
        return 1;
    const QString configHome = scratch.filePath(QStringLiteral("config"));
    QDir().mkpath(configHome);

    const double startMs = measureStart(configHome);
    const double rssMb = measureIdleRss(configHome, scratch);
    measureInspector(scratch, startMs, rssMb);
    return 0;
}
