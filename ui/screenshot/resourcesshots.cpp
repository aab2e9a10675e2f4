#include "resourcesshots.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"
#include "models/resourcesmodel.h"
#include "resources/resourcespage.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QListWidget>
#include <QTabWidget>
#include <QTimer>

#include <memory>

namespace mcpscope {

namespace {
const QString TextServer = QStringLiteral("everything-stdio");
const QString TextUri = QStringLiteral("demo://resource/static/document/features.md");
const QString ImageServer = QStringLiteral("image-resources");
const QString ImageUri = QStringLiteral("demo://image/gradient.png");
constexpr int TimeoutMs = 30000;
} // namespace

ResourcesShots::ResourcesShots(MainWindow* window, Save save, QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_save(std::move(save))
{ }

void ResourcesShots::waitUntil(std::function<bool()> condition, std::function<void()> then, const QString& what)
{
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [this, condition, then, what, timer, poll] {
        if (!m_window)
            return;
        if (condition()) {
            QTimer::singleShot(400, this, then);
            return;
        }
        if (timer->elapsed() > TimeoutMs) {
            Q_EMIT failed(tr("timed out waiting for %1").arg(what));
            return;
        }
        QTimer::singleShot(100, this, *poll);
    };
    (*poll)();
}

void ResourcesShots::start()
{
    ResourcesPage* page = m_window->resourcesPage();
    m_window->selectServer(TextServer);
    m_window->centreTabs()->setCurrentWidget(page);
    waitUntil([page] { return page->model()->rowOf(TextUri) >= 0; },
        [this, page] {
            page->openUri(TextUri);
            // Subscribed, with the server's simulated updates turned on: the marker and the history show.
            if (page->model()->canSubscribe() && !page->model()->isSubscribed(TextUri))
                page->toggleSubscription();
            m_window->engine()->call(TextServer, QStringLiteral("tools/call"),
                { { QStringLiteral("name"), QStringLiteral("toggle-subscriber-updates") },
                    { QStringLiteral("arguments"), QJsonObject() } },
                {}, [](const CallRecord&) {});
            waitUntil(
                [page] {
                    return page->historyView()->count() >= 1
                        && page->contentView()->kind() == ResourceContentView::Kind::Text;
                },
                [this] { textShot(); }, tr("%1 to be read with an update").arg(TextUri));
        },
        tr("%1 to list its resources").arg(TextServer));
}

void ResourcesShots::textShot()
{
    m_save(m_window, QStringLiteral("resources-text.png"));
    ServerConnection* c = m_window->engine()->connection(ImageServer);
    if (!c) {
        Q_EMIT failed(tr("the workspace has no server named %1 (tests/peers/image-resources.mjs)").arg(ImageServer));
        return;
    }
    ResourcesPage* page = m_window->resourcesPage();
    m_window->selectServer(ImageServer);
    if (c->state() != ServerConnection::State::Ready)
        c->connectToServer();
    waitUntil([page] { return page->model()->rowOf(ImageUri) >= 0; },
        [this, page] {
            page->openUri(ImageUri);
            waitUntil([page] { return page->contentView()->kind() == ResourceContentView::Kind::Image; },
                [this] { imageShot(); }, tr("%1 to be read").arg(ImageUri));
        },
        tr("%1 to list its resources").arg(ImageServer));
}

void ResourcesShots::imageShot()
{
    m_save(m_window, QStringLiteral("resources-image.png"));
    Q_EMIT done();
}

} // namespace mcpscope
