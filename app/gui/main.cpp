#include "common/terminationwatcher.h"
#include "engine/engine.h"
#include "mainwindow/mainwindow.h"
#include "screenshot/screenshotdriver.h"
#include "transport/childreaper.h"
#include "transport/heappolicy.h"
#include "transport/processgroupstop.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTimer>

#include <memory>

namespace {
// A launched server's SIGTERM grace (1.5 s) and a margin: the longest a quit may take.
constexpr int ExitStopTimeoutMs = 3000;
// What left its server's process group gets the same grace as a launched server.
constexpr int DescendantGraceMs = 1500;
} // namespace

int main(int argc, char* argv[])
{
    // Before any child starts: what leaves a server's group is handed to us, not to init.
    mcpscope::pinLargeBlockThreshold();
    mcpscope::ChildReaper::becomeSubreaper();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("McpScope"));
    QApplication::setApplicationName(QStringLiteral("McpScope"));
    QApplication::setApplicationVersion(QStringLiteral(MCPSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Native desktop inspector for MCP servers"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption workspaceOpt(
        QStringLiteral("workspace"), QStringLiteral("Open this workspace or mcp.json file."), QStringLiteral("file"));
    const QCommandLineOption connectOpt(QStringLiteral("connect"), QStringLiteral("Connect every server at start."));
    const QCommandLineOption screenshotsOpt(QStringLiteral("screenshots"),
        QStringLiteral("Run the scripted demo sequence, write PNGs into DIR, then quit."), QStringLiteral("dir"));
    const QCommandLineOption openLogOpt(QStringLiteral("open-log"),
        QStringLiteral("Open a JSONL call log read-only (from an export, --log or another machine)."),
        QStringLiteral("file"));
    parser.addOptions({ workspaceOpt, connectOpt, screenshotsOpt, openLogOpt });
    parser.process(app);

    auto window = std::make_unique<mcpscope::MainWindow>();
    // SIGTERM/SIGINT quit through the event loop, so launched servers and stdio children are stopped. Not
    // through quit(): that closes the windows, and a window with unsaved changes would wait for an answer
    // nobody is there to give.
    mcpscope::TerminationWatcher termination;
    QObject::connect(
        &termination, &mcpscope::TerminationWatcher::terminationRequested, &app, [] { QCoreApplication::exit(0); });
    termination.watch();
    const QString workspace = parser.isSet(workspaceOpt)
        ? parser.value(workspaceOpt)
        : QSettings().value(QStringLiteral("workspace/lastPath")).toString();
    if (!workspace.isEmpty())
        window->openWorkspace(workspace);
    window->show();
    if (parser.isSet(openLogOpt))
        window->openLogFile(parser.value(openLogOpt), true);
    if (parser.isSet(connectOpt))
        window->engine()->connectAll();
    // For start-up measurements and smoke tests: quit once the first frame is up.
    if (qEnvironmentVariableIsSet("MCPSCOPE_QUIT_AFTER_SHOW"))
        QTimer::singleShot(0, &app, &QApplication::quit);
    if (parser.isSet(screenshotsOpt)) {
        auto* driver = new mcpscope::ScreenshotDriver(window.get(), parser.value(screenshotsOpt), &app);
        QObject::connect(driver, &mcpscope::ScreenshotDriver::finished, &app, &QApplication::exit);
        driver->start();
    }
    const int exitCode = QApplication::exec();
    // The engine goes with the window (its calls in flight end as interrupted, in the call log); its
    // servers' stops finish, then whatever they left outside their groups is ended.
    window.reset();
    mcpscope::ProcessGroupStop::finishDetached(ExitStopTimeoutMs);
    mcpscope::ChildReaper::stopDescendants(DescendantGraceMs);
    return exitCode;
}
