#include "cli/cliapp.h"

#include <QCoreApplication>

int main(int argc, char* argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("mcpscope-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(MCPSCOPE_VERSION));
    mcpscope::CliApp cli;
    QObject::connect(&cli, &mcpscope::CliApp::finished, &app, &QCoreApplication::exit);
    const int immediate = cli.start(QCoreApplication::arguments());
    if (immediate >= 0)
        return immediate;
    return QCoreApplication::exec();
}
