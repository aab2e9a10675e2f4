#include "modernshots.h"

#include "calllog/callrecord.h"
#include "calls/timelineview.h"
#include "composer/callcomposer.h"
#include "composer/schemaform.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/trafficdock.h"
#include "requests/elicitationeditor.h"
#include "requests/serverrequestsdock.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTabWidget>

#include <cstdio>
#include <memory>

namespace mcpscope::ModernShots {

namespace {
const QString Server = QStringLiteral("modern-ledger");
constexpr int TimeoutMs = 30000;

QString tr(const char* text)
{
    return QCoreApplication::translate("ModernShots", text);
}

struct Context
{
    MainWindow* window;
    FrictionShots::Save save;
    FrictionShots::Wait wait;
    std::function<void()> done;
};

void timeline(const Context& c, const QString& callId)
{
    QDockWidget* calls = c.window->findChild<QDockWidget*>(QStringLiteral("callsDock"));
    // The request is answered: the panel gives its width back to the calls and the timeline.
    c.window->serverRequestsDock()->hide();
    calls->raise();
    c.window->resizeDocks({ calls }, { 420 }, Qt::Vertical);
    c.window->selectCall(callId);
    c.wait([c] { return c.window->timeline()->toPlainText().contains(QLatin1String("round 1 answered")); }, TimeoutMs,
        [c, calls] {
            c.save(calls, QStringLiteral("mrtr-timeline.png"));
            c.done();
        },
        tr("the MRTR round on the confirm-write timeline"));
}

void confirmWrite(const Context& c)
{
    c.window->selectTool(QStringLiteral("confirm-write"));
    if (auto* note = c.window->composer()->form()->findChild<QLineEdit*>(QStringLiteral("args.note")))
        note->setText(QStringLiteral("release 2.3 notes"));
    auto finished = std::make_shared<QString>();
    auto* guard = new QObject(c.window);
    QObject::connect(c.window->engine(), &Engine::callUpdated, guard, [finished, guard](const CallRecord& record) {
        if (record.tool == QLatin1String("confirm-write") && record.isFinished()) {
            *finished = record.callId;
            guard->deleteLater();
        }
    });
    c.window->callSelectedTool();
    ServerRequestsDock* dock = c.window->serverRequestsDock();
    c.wait([dock] { return qobject_cast<ElicitationEditor*>(dock->currentEditor()) != nullptr; }, TimeoutMs,
        [c, dock, finished] {
            auto* editor = qobject_cast<ElicitationEditor*>(dock->currentEditor());
            if (auto* confirm = editor->form()->findChild<QCheckBox*>(QStringLiteral("args.confirm")))
                confirm->setChecked(true);
            if (auto* accept = editor->findChild<QPushButton*>(QStringLiteral("elicitationAccept")))
                accept->click();
            c.wait([finished] { return !finished->isEmpty(); }, TimeoutMs, [c, finished] { timeline(c, *finished); },
                tr("confirm-write to finish after its MRTR round"));
        },
        tr("confirm-write's MRTR elicitation in the Server Requests panel"));
}
void excludedTool(const Context& c)
{
    // The Tools tab with the tool McpScope leaves out (an invalid x-mcp-header annotation) selected.
    c.window->selectTool(QStringLiteral("bad-header-tool"));
    c.wait([] { return true; }, TimeoutMs,
        [c] {
            c.save(c.window->centreTabs(), QStringLiteral("modern-tools-excluded.png"));
            confirmWrite(c);
        },
        tr("the Tools tab to paint"));
}
} // namespace

void run(MainWindow* window, FrictionShots::Save save, FrictionShots::Wait wait, std::function<void()> done)
{
    const Context c { window, std::move(save), std::move(wait), std::move(done) };
    ServerConnection* modern = window->engine()->connection(Server);
    if (!modern) {
        std::fprintf(stderr,
            "no %s server in the workspace: modern-overview.png, modern-tools-excluded.png and mrtr-timeline.png "
            "skipped\n",
            qPrintable(Server));
        return c.done();
    }
    // connectAll at the start connected it already, unless it failed; a failed one gets one more try.
    if (modern->state() == ServerConnection::State::Failed || modern->state() == ServerConnection::State::Disconnected)
        modern->connectToServer();
    c.wait(
        [modern] {
            return modern->state() == ServerConnection::State::Ready && modern->session()
                && modern->session()->toolsListed();
        },
        TimeoutMs,
        [c] {
            c.window->selectServer(Server);
            c.window->centreTabs()->setCurrentIndex(0);
            // Room for each server's era on its second line; the empty requests panel comes back with the round.
            c.window->serverRequestsDock()->hide();
            c.window->resizeDocks(
                { c.window->findChild<QDockWidget*>(QStringLiteral("serversDock")) }, { 360 }, Qt::Horizontal);
            // The traffic below: the probe and the listing, no initialize.
            QComboBox* servers = c.window->trafficDock()->serverFilter();
            servers->setCurrentIndex(servers->findData(Server));
            c.window->trafficDock()->raise();
            // The detail beside the table shows server/discover's answer (the second row: probe, then its result).
            if (QTableView* traffic = c.window->trafficDock()->view(); traffic->model()->rowCount() > 1)
                traffic->selectRow(1);
            c.wait([] { return true; }, TimeoutMs,
                [c] {
                    c.save(c.window, QStringLiteral("modern-overview.png"));
                    excludedTool(c);
                },
                tr("the Overview to paint"));
        },
        tr("%1 to be probed and ready").arg(Server));
}

} // namespace mcpscope::ModernShots
