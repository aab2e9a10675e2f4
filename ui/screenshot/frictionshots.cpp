#include "frictionshots.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"
#include "models/promptsmodel.h"
#include "prompts/promptspage.h"
#include "result/resultview.h"

#include <QJsonObject>
#include <QLineEdit>
#include <QPointer>
#include <QTabWidget>

namespace mcpscope::FrictionShots {

namespace {
const QString PromptServer = QStringLiteral("everything-stdio");
const QString BrokenServer = QStringLiteral("everything-wrong-path");

/// A real answer of about 250 kB: server-everything's echo of a long message, shown in the result view
/// as a call from the Tools tab is, where a large text is laid out by LargeTextView.
void largeResult(MainWindow* window, const Save& save, const Wait& wait, const std::function<void()>& done)
{
    QString message;
    for (int i = 1; i <= 9000; ++i)
        message += QStringLiteral("line %1 of a long answer\n").arg(i, 4, 10, QLatin1Char('0'));
    auto record = std::make_shared<std::optional<CallRecord>>();
    window->engine()->call(PromptServer, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("echo") },
            { QStringLiteral("arguments"), QJsonObject { { QStringLiteral("message"), message } } } },
        {}, [record](const CallRecord& done) { *record = done; });
    wait([record] { return record->has_value(); }, 20000,
        [window, record, save, wait, done] {
            window->selectServer(PromptServer);
            window->centreTabs()->setCurrentIndex(0);
            ResultView* view = window->resultView();
            view->showRecord(**record, nullptr);
            wait([view] { return view->renderedJob() == view->currentJob(); }, 20000,
                [view, save, wait, done] {
                    save(view, QStringLiteral("large-result.png"));
                    // Its Raw JSON is written when the tab opens, as a click on it does.
                    if (auto* tabs = view->findChild<QTabWidget*>())
                        tabs->setCurrentIndex(tabs->count() - 1);
                    wait([view] { return !view->rawDeferred() && !view->rawRendering(); }, 20000,
                        [view, save, done] {
                            save(view, QStringLiteral("large-result-raw.png"));
                            done();
                        },
                        QStringLiteral("the long echo's Raw JSON to be laid out"));
                },
                QStringLiteral("the long echo to be laid out"));
        },
        QStringLiteral("the long echo"));
}

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
                    largeResult(
                        window, save, wait, [window, save, wait, done] { errorBanner(window, save, wait, done); });
                },
                QStringLiteral("args-prompt to render"));
        },
        QStringLiteral("the prompts of everything-stdio"));
}

} // namespace mcpscope::FrictionShots
