#include "cli/cliapp.h"
#include "cli/exitcodes.h"
#include "common/terminationwatcher.h"
#include "transport/childreaper.h"
#include "transport/heappolicy.h"
#include "transport/processgroupstop.h"

#include <QCoreApplication>

#include <memory>

namespace {
// A launched server's SIGTERM grace (1.5 s) and a margin: the longest an exit may take.
constexpr int ExitStopTimeoutMs = 3000;
// What left its server's process group gets the same grace as a launched server.
constexpr int DescendantGraceMs = 1500;

/// The CLI (and its engine, which ends the calls in flight as interrupted) goes first; its servers'
/// stops finish, then whatever they left behind outside their groups is ended before the program ends.
int finishWith(std::unique_ptr<mcpscope::CliApp> cli, int exitCode)
{
    cli.reset();
    mcpscope::ProcessGroupStop::finishDetached(ExitStopTimeoutMs);
    mcpscope::ChildReaper::stopDescendants(DescendantGraceMs);
    return exitCode;
}
} // namespace

int main(int argc, char* argv[])
{
    // Before any child starts: what leaves a server's group is handed to us, not to init.
    mcpscope::pinLargeBlockThreshold();
    mcpscope::ChildReaper::becomeSubreaper();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("mcpscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MCPSCOPE_VERSION));
    auto cli = std::make_unique<mcpscope::CliApp>();
    // Interrupted: exit 128+signal the normal way, so the server (and anything launched) is stopped.
    // `proxy` runs until a signal by design and answers it itself with exit 0.
    mcpscope::TerminationWatcher termination;
    if (QCoreApplication::arguments().value(1) != QLatin1String("proxy")) {
        QObject::connect(&termination, &mcpscope::TerminationWatcher::terminationRequested, &app,
            [](int signal) { QCoreApplication::exit(mcpscope::exitCodeForSignal(signal)); });
        termination.watch();
    }
    QObject::connect(cli.get(), &mcpscope::CliApp::finished, &app, &QCoreApplication::exit);
    const int immediate = cli->start(QCoreApplication::arguments());
    if (immediate != mcpscope::ExitStillRunning)
        return finishWith(std::move(cli), immediate);
    const int exitCode = QCoreApplication::exec();
    return finishWith(std::move(cli), exitCode);
}
