// The app's own figures (issue 17, "The app"), on the path users run: the MainWindow offscreen with
// its WorkspaceSession, Engine, calls log, servers list, traffic view and LogStore, against
// limitspeer over stdio. Each case runs in a child process of its own, so its RSS is its own:
// - calls: 10,000 echo calls one after another from the window's own call path (the Tools tab's
//          Call, as Ctrl+Return does): calls/s, and RSS before and after (goals: 1,000 calls/s,
//          RSS at most 80 MB after 10,000 calls);
// - text:  one tools/call answered with a 20 MB text, shown in the result view: the longest GUI
//          stall from the call's start until the view has rendered it (goal: none over 50 ms) and
//          the peak RSS growth over the RSS before the call (goal: at most 5x the payload). The Raw
//          JSON tab is closed, as it is by default: a large answer's Raw JSON is written when the tab
//          opens, which the case then does, with the same two figures for that step.
// A 1 ms heartbeat timer on the GUI thread records the longest gap between its ticks.
//
// Prints figures next to their goals with PASS/MISS; never fails on timing.

#include "calllog/callrecord.h"
#include "engine/engine.h"
#include "mainwindow/mainwindow.h"
#include "result/resultview.h"
#include "session/clientsession.h"
#include "transport/heappolicy.h"
#include "transport/processgroupstop.h"

#include "benchsupport.h"
#include "guibench.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTabWidget>
#include <QTemporaryDir>

#include <memory>

using namespace mcpscope;
using namespace mcpscope::bench;
using namespace Qt::StringLiterals;

namespace {

constexpr double StallGoalMs = 50.0;
constexpr int Calls = 10000;
constexpr double CallsGoalPerSecond = 1000.0;
constexpr double RssGoalMB = 80.0;
constexpr qint64 TextBytes = 20LL * 1000 * 1000;
constexpr double PeakGoalTimesPayload = 5.0;
const QString Server = u"app-000"_s;

const char* verdict(bool pass)
{
    return pass ? "PASS" : "MISS";
}

double mb(qint64 kib)
{
    return double(kib) * 1024.0 / 1e6;
}

std::unique_ptr<MainWindow> openWindow(const QString& dir, const QString& peer)
{
    const QJsonObject servers { { Server, QJsonObject { { u"transport"_s, u"stdio"_s }, { u"command"_s, peer } } } };
    QFile file(dir + u"/workspace.json"_s);
    if (file.open(QIODevice::WriteOnly))
        file.write(QJsonDocument(QJsonObject { { u"mcpscopeWorkspace"_s, 1 }, { u"servers"_s, servers } }).toJson());
    file.close();
    auto window = std::make_unique<MainWindow>();
    window->resize(1440, 900);
    window->show();
    if (!window->openWorkspace(file.fileName()))
        print(u"  could not open %1\n"_s.arg(file.fileName()));
    window->engine()->connectAll();
    const bool ready = waitFor(
        [&] {
            const ServerConnection* c = window->engine()->connection(Server);
            return c && c->state() == ServerConnection::State::Ready && c->session() && c->session()->toolsListed();
        },
        30000);
    if (!ready)
        print(u"  the server did not become ready\n"_s);
    return window;
}

int runCalls(const QString& dir, const QString& peer)
{
    std::unique_ptr<MainWindow> window = openWindow(dir, peer);
    window->selectServer(Server);
    window->selectTool(u"echo"_s);
    // Settle (first paints, the call log's first file) before the baseline.
    waitFor([] { return false; }, 500);
    const qint64 baseKiB = statusKiB("VmRSS:");
    Heartbeat beat;
    int finished = 0;
    int succeeded = 0;
    QObject::connect(window->engine(), &Engine::callUpdated, window.get(), [&](const CallRecord& record) {
        if (!record.isFinished())
            return;
        ++finished;
        succeeded += record.outcome == CallOutcome::Success;
        if (finished < Calls)
            QTimer::singleShot(0, window.get(), [w = window.get()] { w->callSelectedTool(); });
    });
    QElapsedTimer clock;
    clock.start();
    window->callSelectedTool();
    waitFor([&] { return finished >= Calls; }, 600000);
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    const double stall = beat.longestMs();
    // Let the coalesced updates and the log store's last commit land.
    waitFor([] { return false; }, 1000);
    const qint64 afterKiB = statusKiB("VmRSS:");
    const double rate = double(finished) / seconds;
    const double perCallBytes = double(afterKiB - baseKiB) * 1024.0 / std::max(finished, 1);
    print(u"  calls:               %1 of %2 succeeded in %3 s (longest stall %4 ms)\n"_s.arg(succeeded)
              .arg(Calls)
              .arg(seconds, 0, 'f', 2)
              .arg(stall, 0, 'f', 1));
    print(u"  calls/s:             %1  (goal >= %2: %3)\n"_s.arg(rate, 0, 'f', 0)
              .arg(CallsGoalPerSecond, 0, 'f', 0)
              .arg(QLatin1String(verdict(rate >= CallsGoalPerSecond))));
    print(u"  RSS:                 %1 MB before, %2 MB after %3 calls, %4 B per call  (goal <= %5 MB: %6)\n"_s
              .arg(mb(baseKiB), 0, 'f', 1)
              .arg(mb(afterKiB), 0, 'f', 1)
              .arg(finished)
              .arg(perCallBytes, 0, 'f', 0)
              .arg(RssGoalMB, 0, 'f', 0)
              .arg(QLatin1String(verdict(mb(afterKiB) <= RssGoalMB))));
    window.reset();
    return succeeded == Calls ? 0 : 1;
}

int runText(const QString& dir, const QString& peer)
{
    std::unique_ptr<MainWindow> window = openWindow(dir, peer);
    window->selectServer(Server);
    waitFor([] { return false; }, 500);
    const qint64 baseKiB = statusKiB("VmRSS:");
    const qint64 basePeakKiB = statusKiB("VmHWM:");
    Heartbeat beat;
    ResultView* view = window->resultView();
    std::optional<CallRecord> done;
    QElapsedTimer clock;
    clock.start();
    window->engine()->call(Server, u"tools/call"_s,
        QJsonObject { { u"name"_s, u"big"_s }, { u"arguments"_s, QJsonObject { { u"bytes"_s, TextBytes } } } }, {},
        [&](const CallRecord& record) {
            done = record;
            // What the Tools tab does with its finished call.
            view->showRecord(record, nullptr);
        });
    waitFor([&] { return done && view->renderedJob() >= view->currentJob(); }, 120000);
    const double shownMs = double(clock.nsecsElapsed()) / 1e6;
    const auto figures = [&](double stall) {
        const qint64 peakKiB = std::max(statusKiB("VmHWM:"), basePeakKiB);
        const double growthMB = mb(peakKiB - baseKiB);
        const double payloadMB = double(TextBytes) / 1e6;
        print(u"  longest GUI stall:   %1 ms  (goal <= %2 ms: %3)\n"_s.arg(stall, 0, 'f', 1)
                  .arg(StallGoalMs, 0, 'f', 0)
                  .arg(QLatin1String(verdict(stall <= StallGoalMs))));
        print(u"  peak RSS:            %1 MB, %2 MB over the %3 MB before = %4x the payload  (goal <= %5x: %6)\n"_s
                  .arg(mb(peakKiB), 0, 'f', 1)
                  .arg(growthMB, 0, 'f', 1)
                  .arg(mb(baseKiB), 0, 'f', 1)
                  .arg(growthMB / payloadMB, 0, 'f', 1)
                  .arg(PeakGoalTimesPayload, 0, 'f', 0)
                  .arg(QLatin1String(verdict(growthMB / payloadMB <= PeakGoalTimesPayload))));
    };
    print(u"  shown:               %1 after %2 ms\n"_s.arg(done ? outcomeName(done->outcome) : u"no answer"_s)
              .arg(shownMs, 0, 'f', 0));
    figures(beat.longestMs());

    // Then the Raw JSON tab opens, as a click on it does: the answer indented, written on a worker.
    beat.reset();
    clock.restart();
    if (auto* tabs = view->findChild<QTabWidget*>())
        tabs->setCurrentIndex(tabs->count() - 1);
    waitFor([&] { return !view->rawDeferred() && !view->rawRendering(); }, 120000);
    print(u"  Raw JSON tab opened: shown after %1 ms\n"_s.arg(double(clock.nsecsElapsed()) / 1e6, 0, 'f', 0));
    figures(beat.longestMs());
    window.reset();
    return done && done->outcome == CallOutcome::Success ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    pinLargeBlockThreshold(); // as the app's main() does
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir scratch;
    // Settings and the workspace's call log live in scratch: a run never sees the user's own.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(scratch.path()));
    qputenv("MCPSCOPE_LOG_DIR", QFile::encodeName(scratch.path() + u"/logs"_s));
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(u"McpScopeBench"_s);
    QCoreApplication::setApplicationName(u"bench_appcalls"_s);

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption caseOption(u"case"_s, u"Run one case in this process: calls or text."_s, u"name"_s);
    const QCommandLineOption peerOption(
        u"peer"_s, u"The limitspeer executable."_s, u"path"_s, QStringLiteral(MCPSCOPE_BENCH_LIMITSPEER));
    parser.addOptions({ caseOption, peerOption });
    parser.process(app);
    const QString peer = parser.value(peerOption);

    if (parser.isSet(caseOption)) {
        const QString name = parser.value(caseOption);
        int status = 2;
        if (name == u"calls"_s)
            status = runCalls(scratch.path(), peer);
        else if (name == u"text"_s)
            status = runText(scratch.path(), peer);
        else
            print(u"--case: unknown case '%1' (known: calls, text)\n"_s.arg(name));
        ProcessGroupStop::finishDetached(5000);
        return status;
    }

    const std::pair<QString, QString> cases[]
        = { { u"calls"_s, u"%1 echo calls from the window's call path"_s.arg(Calls) },
              { u"text"_s, u"a %1 MB text result shown in the result view"_s.arg(TextBytes / 1000000) } };
    int failed = 0;
    for (const auto& [name, title] : cases) {
        print(u"\n== %1\n"_s.arg(title));
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedChannels);
        child.start(QCoreApplication::applicationFilePath(), { u"--case"_s, name, u"--peer"_s, peer });
        child.waitForFinished(-1);
        failed += child.exitStatus() == QProcess::CrashExit || child.exitCode() != 0;
    }
    return failed == 0 ? 0 : 1;
}
