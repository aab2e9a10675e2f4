#include "cli/cliapp.h"
#include "cli/exitcodes.h"
#include "common/terminationwatcher.h"

#include <QCoreApplication>

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("mcpscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MCPSCOPE_VERSION));
    mcpscope::CliApp cli;
    // Interrupted: exit 128+signal the normal way, so the server (and anything launched) is stopped.
    // `proxy` runs until a signal by design and answers it itself with exit 0.
    mcpscope::TerminationWatcher termination;
    if (QCoreApplication::arguments().value(1) != QLatin1String("proxy")) {
        QObject::connect(&termination, &mcpscope::TerminationWatcher::terminationRequested, &app,
            [](int signal) { QCoreApplication::exit(mcpscope::exitCodeForSignal(signal)); });
        termination.watch();
    }
    QObject::connect(&cli, &mcpscope::CliApp::finished, &app, &QCoreApplication::exit);
    const int immediate = cli.start(QCoreApplication::arguments());
    if (immediate != mcpscope::ExitStillRunning)
        return immediate;
    return QCoreApplication::exec();
}
