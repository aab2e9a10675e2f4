#include "screenshotdriver.h"

#include "calllog/callrecord.h"
#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "calls/logviewerwindow.h"
#include "calls/timelineview.h"
#include "composer/callcomposer.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "mainwindow/mainwindow.h"
#include "result/resultview.h"

#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLineEdit>
#include <QTableView>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <cstdlib>

namespace mcpscope {

namespace {
const QString StdioServer = QStringLiteral("everything-stdio");
const QString HttpServer = QStringLiteral("everything-http");
} // namespace

ScreenshotDriver::ScreenshotDriver(MainWindow* window, QString directory, QObject* parent)
    : QObject(parent)
    , m_window(window)
    , m_directory(std::move(directory))
{ }

ServerConnection* ScreenshotDriver::connection(const QString& name) const
{
    return m_window ? m_window->engine()->connection(name) : nullptr;
}

void ScreenshotDriver::start()
{
    QDir().mkpath(m_directory);
    if (!connection(StdioServer) || !connection(HttpServer))
        return fail(tr("the demo workspace with %1 and %2 is not open").arg(StdioServer, HttpServer));
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
                std::fprintf(stderr, "screenshots written to %s\n", qPrintable(m_directory));
                Q_EMIT finished(EXIT_SUCCESS);
            });
        });
        m_window->openLogFile(path);
    });
    exporter->start(ExportRequest::Format::Jsonl, CallsPanel::Scope::Visible, path);
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
