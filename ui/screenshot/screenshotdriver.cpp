#include "screenshotdriver.h"

#include "calllog/callrecord.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "calls/timelineview.h"
#include "composer/callcomposer.h"
#include "dialogs/serverdialog.h"
#include "engine/engine.h"
#include "engine/serverauth.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "mainwindow/authstepmodel.h"
#include "mainwindow/authview.h"
#include "mainwindow/mainwindow.h"
#include "output/serveroutputview.h"
#include "result/resultview.h"
#include "screenshot/chartsshots.h"
#include "screenshot/frictionshots.h"
#include "screenshot/modernshots.h"
#include "screenshot/requestsshots.h"
#include "screenshot/resourcesshots.h"
#include "screenshot/tasksshots.h"
#include "transport/httpclient.h"

#include <QApplication>
#include <QDateTime>
#include <QDesktopServices>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLineEdit>
#include <QTableView>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

#include <cstdio>
#include <cstdlib>

namespace mcpscope {

namespace {
const QString StdioServer = QStringLiteral("everything-stdio");
const QString HttpServer = QStringLiteral("everything-http");
const QString ProtectedServer = QStringLiteral("protected-http");
const QString FailingServer = QStringLiteral("protected-http-failing");
} // namespace

ScreenshotDriver::ScreenshotDriver(MainWindow* window, QString directory, QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_directory(std::move(directory))
{ }

QString ScreenshotDriver::httpServerName()
{
    return HttpServer;
}

ServerConnection* ScreenshotDriver::connection(const QString& name) const
{
    return m_window ? m_window->engine()->connection(name) : nullptr;
}

void ScreenshotDriver::start()
{
    QDir().mkpath(m_directory);
    if (!connection(StdioServer) || !connection(HttpServer))
        return fail(tr("the demo workspace with %1 and %2 is not open").arg(StdioServer, HttpServer));
    if (connection(ProtectedServer) || connection(FailingServer)) {
        // connectAll below starts their flows too: the browser must answer from the start.
        m_browser = new HttpClient(this);
        QDesktopServices::setUrlHandler(QStringLiteral("http"), this, "browse");
    }
    m_window->engine()->connectAll();
    waitUntil(
        [this] {
            return connection(StdioServer)->state() == ServerConnection::State::Ready
                && connection(HttpServer)->state() == ServerConnection::State::Ready
                && connection(StdioServer)->session()->toolsListed()
                && connection(HttpServer)->session()->toolsListed();
        },
        60000, [this] { step1Connected(); }, tr("both demo servers to be ready"));
}

void ScreenshotDriver::waitUntil(
    std::function<bool()> condition, int timeoutMs, std::function<void()> then, const QString& what)
{
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [this, condition, timeoutMs, then, what, timer, poll] {
        if (!m_window)
            return;
        if (condition()) {
            // One more turn so views repaint what the condition saw.
            QTimer::singleShot(300, this, then);
            return;
        }
        if (timer->elapsed() > timeoutMs)
            return fail(tr("timed out waiting for %1").arg(what));
        QTimer::singleShot(100, this, *poll);
    };
    (*poll)();
}

void ScreenshotDriver::step1Connected()
{
    m_window->selectServer(StdioServer);
    m_window->selectTool(QStringLiteral("echo"));
    step2Echo();
}

void ScreenshotDriver::step2Echo()
{
    // Through the composer, as a person would: fill the generated form and press Call.
    if (auto* message = m_window->composer()->findChild<QLineEdit*>(QStringLiteral("args.message")))
        message->setText(QStringLiteral("hello from McpScope"));
    const quint64 before = m_window->resultView()->currentJob();
    m_window->callSelectedTool();
    waitUntil(
        [this, before] {
            ResultView* result = m_window->resultView();
            return result->currentJob() > before + 1 && result->renderedJob() == result->currentJob();
        },
        20000,
        [this] {
            save(m_window->toolsView(), QStringLiteral("tools-table.png"));
            step3Uncertain();
        },
        tr("the echo call"));
}

void ScreenshotDriver::step3Uncertain()
{
    ServerConnection* http = connection(HttpServer);
    if (!http->faultProxy())
        return fail(tr("%1 is not behind the fault proxy").arg(HttpServer));
    m_window->selectServer(HttpServer);
    FaultProxy::Fault fault;
    fault.kind = FaultProxy::FaultKind::ExpireAfter;
    fault.method = QStringLiteral("tools/call");
    http->faultProxy()->arm(fault);
    http->noteEvent(QStringLiteral("action"), tr("armed fault expire-after ×1"));
    auto done = std::make_shared<bool>(false);
    m_window->selectTool(QStringLiteral("toggle-simulated-logging"));
    m_window->engine()->call(HttpServer, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("toggle-simulated-logging") },
            { QStringLiteral("arguments"), QJsonObject() } },
        {}, [this, done](const CallRecord& record) {
            m_uncertainCall = record.callId;
            *done = true;
        });
    waitUntil([done] { return *done; }, 30000,
        [this] {
            m_window->selectCall(m_uncertainCall);
            QTimer::singleShot(300, this, [this] {
                save(m_window->findChild<QDockWidget*>(QStringLiteral("callsDock")),
                    QStringLiteral("timeline-uncertain.png"));
                save(m_window, QStringLiteral("main-window-uncertain.png"));
                step4Retried();
            });
        },
        tr("the write call across expire-after"));
}

void ScreenshotDriver::step4Retried()
{
    ServerConnection* http = connection(HttpServer);
    FaultProxy::Fault fault;
    fault.kind = FaultProxy::FaultKind::ExpireAfter;
    fault.method = QStringLiteral("tools/call");
    http->faultProxy()->arm(fault);
    http->noteEvent(QStringLiteral("action"), tr("armed fault expire-after ×1"));
    auto done = std::make_shared<bool>(false);
    m_window->selectTool(QStringLiteral("echo"));
    m_window->engine()->call(HttpServer, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("echo") },
            { QStringLiteral("arguments"),
                QJsonObject { { QStringLiteral("message"), QStringLiteral("read across an expiry") } } } },
        {}, [this, done](const CallRecord& record) {
            m_retriedCall = record.callId;
            *done = true;
        });
    waitUntil([done] { return *done; }, 30000,
        [this] {
            m_window->selectCall(m_retriedCall);
            QTimer::singleShot(300, this, [this] {
                save(m_window->findChild<QDockWidget*>(QStringLiteral("callsDock")),
                    QStringLiteral("timeline-retried.png"));
                step5Breaker();
            });
        },
        tr("the read-only call across expire-after"));
}

void ScreenshotDriver::step5Breaker()
{
    connection(HttpServer)->openBreaker();
    m_window->centreTabs()->setCurrentIndex(0);
    QTimer::singleShot(1200, this, [this] {
        save(m_window, QStringLiteral("main-window.png"));
        m_window->centreTabs()->setCurrentIndex(1);
        QTimer::singleShot(300, this, [this] {
            save(m_window, QStringLiteral("main-window-tools.png"));
            step6OpenedLog();
        });
    });
}

void ScreenshotDriver::step6OpenedLog()
{
    // Export every call as JSONL (through the same job as File › Export), then open it read-only.
    const QString path = QDir(m_directory).filePath(QStringLiteral("demo-calls.jsonl"));
    CallsExporter* exporter = m_window->exporter();
    // The File › Export dialog as a user sees it (then dismissed: the export below runs without it).
    QTimer::singleShot(500, this, [this] {
        if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget())) {
            save(dialog, QStringLiteral("export-dialog.png"));
            dialog->reject();
        }
    });
    exporter->exportInteractively();
    connect(exporter, &CallsExporter::finished, this, [this, path](bool ok, int, const QString& message) {
        if (!ok) {
            fail(message);
            return;
        }
        connect(m_window, &MainWindow::logOpenFailed, this, [this](const QString& why) { fail(why); });
        connect(m_window, &MainWindow::logOpened, this, [this](LogViewerWindow* viewer) {
            viewer->resize(1400, 600);
            viewer->panel()->selectCall(m_uncertainCall);
            QTimer::singleShot(500, this, [this, viewer] {
                save(viewer, QStringLiteral("opened-log.png"));
                viewer->close();
                step7AuthSteps();
            });
        });
        m_window->openLogFile(path);
    });
    exporter->start(ExportRequest::Format::Jsonl, CallsPanel::Scope::Visible, path);
}

void ScreenshotDriver::step7AuthSteps()
{
    // The Auth tab's request and response need height more than the calls table does here.
    m_window->resizeDocks({ m_window->findChild<QDockWidget*>(QStringLiteral("callsDock")) }, { 190 }, Qt::Vertical);
    m_window->resizeDocks(
        { m_window->findChild<QDockWidget*>(QStringLiteral("serversDock")) }, { 430 }, Qt::Horizontal);
    authScreenshot(ProtectedServer, true, QStringLiteral("auth-steps.png"), [this] { step8AuthFailed(); });
}

void ScreenshotDriver::step8AuthFailed()
{
    authScreenshot(FailingServer, false, QStringLiteral("auth-failed.png"), [this] { stepServerOutput(); });
}

void ScreenshotDriver::stepServerOutput()
{
    ServerOutputView* view = m_window->serverOutputView();
    m_window->selectServer(HttpServer);
    view->show();
    view->raise();
    m_window->resizeDocks({ view }, { 330 }, Qt::Vertical);
    waitUntil([view] { return view->shownLines().size() >= 2; }, 10000,
        [this, view] {
            // What a search looks like: every line stays, the matches are highlighted.
            view->setMatchingLinesOnly(false);
            view->setSearchText(QStringLiteral("session"));
            QTimer::singleShot(300, this, [this, view] {
                save(view, QStringLiteral("stderr.png"));
                // The Traffic dock beside it: log rows with their level and text, McpScope's notices.
                QDockWidget* traffic = m_window->findChild<QDockWidget*>(QStringLiteral("trafficDock"));
                traffic->raise();
                QTimer::singleShot(300, this, [this, traffic] {
                    save(traffic, QStringLiteral("traffic.png"));
                    stepResources();
                });
            });
        },
        tr("the HTTP demo server's output in the Server Output view"));
}

void ScreenshotDriver::stepResources()
{
    auto* shots = new ResourcesShots(
        m_window, [this](QWidget* widget, const QString& name) { save(widget, name); }, this);
    connect(shots, &ResourcesShots::done, this, &ScreenshotDriver::stepTasks);
    connect(shots, &ResourcesShots::failed, this, &ScreenshotDriver::fail);
    shots->start();
}

void ScreenshotDriver::stepTasks()
{
    const FrictionShots::Save saveShot = [this](QWidget* widget, const QString& file) { save(widget, file); };
    const FrictionShots::Wait waitFor = [this](auto condition, int timeoutMs, auto then, const QString& what) {
        waitUntil(std::move(condition), timeoutMs, std::move(then), what);
    };
    TasksShots::run(m_window, saveShot, waitFor, [this, saveShot, waitFor] {
        FrictionShots::run(m_window, saveShot, waitFor, [this, saveShot, waitFor] {
            ChartsShots::run(m_window, saveShot, waitFor, [this, saveShot, waitFor] {
                RequestsShots::run(m_window, saveShot, waitFor,
                    [this, saveShot, waitFor] { ModernShots::run(m_window, saveShot, waitFor, [this] { finish(); }); });
            });
        });
    });
}

void ScreenshotDriver::finish()
{
    if (!m_serverDialogSaved) {
        m_serverDialogSaved = true;
        return serverDialogScreenshot([this] { finish(); });
    }
    if (!m_emptyStateSaved) {
        m_emptyStateSaved = true;
        return emptyStateScreenshot([this] { finish(); });
    }
    if (m_browser)
        QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
    std::fprintf(stderr, "auth screenshots: %s\n", qPrintable(m_authSources.join(QStringLiteral(", "))));
    std::fprintf(stderr, "screenshots written to %s\n", qPrintable(m_directory));
    Q_EMIT finished(EXIT_SUCCESS);
}

void ScreenshotDriver::authScreenshot(
    const QString& server, bool expectOk, const QString& file, std::function<void()> then)
{
    m_window->engine()->connection(HttpServer)->resetBreaker();
    ServerConnection* c = connection(server);
    if (!c || !c->auth()) {
        // No protected peer in the workspace: the view shows sample steps of such a flow.
        m_authSources.append(file + QStringLiteral(" (fed)"));
        m_window->selectServer(HttpServer);
        m_window->showAuthTab();
        feedAuthView(expectOk);
        QTimer::singleShot(600, this, [this, expectOk, file, then] {
            // Fed again: a row change of any server makes the tab show the real (empty) state once more.
            feedAuthView(expectOk);
            showTokenStep(expectOk);
            save(m_window, file);
            then();
        });
        return;
    }
    m_authSources.append(file + QStringLiteral(" (real flow against %1)").arg(server));
    if (!m_browser) {
        m_browser = new HttpClient(this);
        QDesktopServices::setUrlHandler(QStringLiteral("http"), this, "browse");
    }
    m_window->selectServer(server);
    m_window->showAuthTab();
    c->connectToServer();
    QPointer<ServerConnection> guard(c);
    waitUntil(
        [guard, expectOk] {
            if (!guard || !guard->auth())
                return false;
            const ServerAuth* auth = guard->auth();
            if (expectOk)
                return guard->state() == ServerConnection::State::Ready
                    && auth->state() == ServerAuth::State::Authorized && !auth->steps().isEmpty()
                    && auth->steps().last().kind == AuthStep::Kind::Retry;
            for (const AuthStep& step : auth->steps()) {
                if (step.status == AuthStep::Status::Failed)
                    return auth->state() != ServerAuth::State::Authorizing;
            }
            return false;
        },
        60000,
        [this, file, expectOk, then] {
            showTokenStep(expectOk);
            QTimer::singleShot(200, this, [this, file, then] {
                save(m_window, file);
                then();
            });
        },
        expectOk ? tr("%1 to be authorized and ready").arg(server) : tr("the authorization of %1 to fail").arg(server));
}

void ScreenshotDriver::showTokenStep(bool completed)
{
    // A completed flow: the token request, with its request and its response. A failed one keeps its failure.
    if (!completed)
        return;
    QTreeView* steps = m_window->authView()->stepsView();
    for (int row = 0; row < steps->model()->rowCount(); ++row) {
        const QModelIndex index = steps->model()->index(row, 0);
        if (index.data(AuthStepModel::KindRole).toInt() == int(AuthStep::Kind::Token)) {
            steps->setCurrentIndex(index);
            return;
        }
    }
}

void ScreenshotDriver::browse(const QUrl& url)
{
    fetchPage(url, 10);
}

void ScreenshotDriver::fetchPage(const QUrl& url, int hopsLeft)
{
    if (hopsLeft <= 0 || !m_browser)
        return;
    HttpRequest request;
    request.url = url;
    request.redirects = HttpRequest::Redirects::Manual;
    request.timeoutMs = 15000;
    request.headers.append({ QByteArrayLiteral("Accept"), QByteArrayLiteral("text/html,*/*;q=0.8") });
    HttpReply* reply = m_browser->send(std::move(request));
    connect(reply, &HttpReply::readyRead, reply, [reply] { reply->readAll(); });
    connect(reply, &HttpReply::finished, this, [this, reply, hopsLeft] {
        reply->deleteLater();
        const int status = reply->status();
        const QByteArray location = reply->header("Location");
        if (status >= 300 && status < 400 && !location.isEmpty())
            fetchPage(reply->url().resolved(QUrl::fromEncoded(location)), hopsLeft - 1);
    });
}

void ScreenshotDriver::emptyStateScreenshot(std::function<void()> then)
{
    // What a first start shows: a second window, on no workspace.
    auto* fresh = new MainWindow();
    fresh->resize(m_window->size());
    saveShown(fresh, 500, QStringLiteral("empty-state.png"), std::move(then));
}

void ScreenshotDriver::serverDialogScreenshot(std::function<void()> then)
{
    // The stdio demo server's settings, as Edit Server… shows them.
    auto* dialog = new ServerDialog({}, m_window);
    dialog->setConfig(connection(StdioServer)->config());
    saveShown(dialog, 300, QStringLiteral("server-dialog.png"), std::move(then));
}

void ScreenshotDriver::saveShown(QWidget* widget, int settleMs, const QString& name, std::function<void()> then)
{
    widget->show();
    QTimer::singleShot(settleMs, this, [this, widget, name, then] {
        save(widget, name);
        delete widget;
        then();
    });
}

void ScreenshotDriver::save(QWidget* widget, const QString& name)
{
    const QString path = QDir(m_directory).filePath(name);
    if (!widget->grab().save(path))
        std::fprintf(stderr, "could not write %s\n", qPrintable(path));
}

void ScreenshotDriver::fail(const QString& why)
{
    std::fprintf(stderr, "make screenshot: %s\n", qPrintable(why));
    if (m_window)
        save(m_window, QStringLiteral("failure.png"));
    Q_EMIT finished(EXIT_FAILURE);
}

} // namespace mcpscope
