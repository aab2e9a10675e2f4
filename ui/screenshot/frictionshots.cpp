#include "frictionshots.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"
#include "models/promptsmodel.h"
#include "prompts/promptspage.h"

#include <QLineEdit>
#include <QPointer>
#include <QTabWidget>

namespace mcpscope::FrictionShots {

namespace {
const QString PromptServer = QStringLiteral("everything-stdio");
const QString BrokenServer = QStringLiteral("everything-wrong-path");

void errorBanner(MainWindow* window, const Save& save, const Wait& wait, const std::function<void()>& done)
{
    // The demo HTTP server, at a path it does not serve: Streamable HTTP and the legacy fallback both get 404.
    ServerConfig config;
    config.name = BrokenServer;
    config.transport = TransportKind::AutoHttp;
    config.url = QUrl(QStringLiteral("http://127.0.0.1:3901/wrong-path"));
    ServerConnection* broken = window->engine()->addServer(config);
    window->selectServer(BrokenServer);
    window->centreTabs()->setCurrentIndex(0);
    broken->connectToServer();
    QPointer<ServerConnection> guard(broken);
    wait([guard] { return guard && guard->state() == ServerConnection::State::Failed; }, 30000,
        [window, save, done] {
            save(window, QStringLiteral("error-banner.png"));
            done();
        },
        QStringLiteral("the wrong-path server to fail"));
}
} // namespace

void run(MainWindow* window, Save save, Wait wait, std::function<void()> done)
{
    window->selectServer(PromptServer);
    PromptsPage* page = window->promptsPage();
    window->centreTabs()->setCurrentWidget(page);
    wait([page] { return page->model()->rowOf(QStringLiteral("args-prompt")) >= 0; }, 20000,
        [window, page, save, wait, done] {
            page->selectPrompt(QStringLiteral("args-prompt"));
            if (QLineEdit* city = page->argumentField(QStringLiteral("city")))
                city->setText(QStringLiteral("Lisbon"));
            if (QLineEdit* state = page->argumentField(QStringLiteral("state")))
                state->setText(QStringLiteral("Portugal"));
            const QString before = page->renderedText();
            page->getPrompt();
            wait([page, before] { return !page->renderedText().isEmpty() && page->renderedText() != before; }, 20000,
                [window, save, wait, done] {
                    save(window, QStringLiteral("prompts-rendered.png"));
                    errorBanner(window, save, wait, done);
                },
                QStringLiteral("args-prompt to render"));
        },
        QStringLiteral("the prompts of everything-stdio"));
}

} // namespace mcpscope::FrictionShots
