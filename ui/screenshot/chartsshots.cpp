#include "chartsshots.h"

#include "charts/latencychartspage.h"
#include "charts/latencyhistogramview.h"
#include "charts/loaddialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "mainwindow/mainwindow.h"
#include "models/callmetrics.h"

#include <QChartView>
#include <QJsonObject>
#include <QPointer>
#include <QTabWidget>
#include <QTimer>

namespace mcpscope {

namespace {
const QString Server = QStringLiteral("everything-http");
constexpr int TimeoutMs = 30000;
constexpr int LoadSeconds = 4;
} // namespace

void ChartsShots::run(MainWindow* window, Save save, Wait wait, std::function<void()> done)
{
    window->selectServer(Server);
    LoadDialog* dialog
        = window->openLoadDialog(QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("load") } });
    if (!dialog)
        return done();
    dialog->resize(760, 640);
    dialog->setConcurrency(4);
    dialog->setLength(LoadSeconds, true);
    dialog->setRate(60);
    // An ambiguous expiry now and then: echo is read-only, so each is healed and sent once more, and its
    // point on the chart is ringed and boxed.
    QPointer<FaultProxy> proxy
        = window->engine()->connection(Server) ? window->engine()->connection(Server)->faultProxy() : nullptr;
    for (int second = 1; second < LoadSeconds; ++second) {
        QTimer::singleShot(second * 1000, dialog, [proxy] {
            if (!proxy)
                return;
            FaultProxy::Fault fault;
            fault.kind = FaultProxy::FaultKind::ExpireAfter;
            fault.tool = QStringLiteral("echo");
            proxy->arm(fault);
        });
    }
    dialog->startOrStop();
    const QPointer<LoadDialog> shown(dialog);
    wait([shown] { return !shown || !shown->isRunning(); }, TimeoutMs + LoadSeconds * 1000,
        [window, save, wait, done, shown] {
            if (shown) {
                save(shown, QStringLiteral("load-dialog.png"));
                shown->close();
            }
            LatencyChartsPage* charts = window->chartsPage();
            window->centreTabs()->setCurrentWidget(charts);
            wait(
                [window, charts] { return charts->shownPoints() == int(window->callMetrics()->points(Server).size()); },
                TimeoutMs,
                [charts, save, done] {
                    save(charts->timelineView(), QStringLiteral("latency-chart.png"));
                    save(charts->histogramView(), QStringLiteral("latency-histogram.png"));
                    done();
                },
                QObject::tr("the Charts tab to draw every call of %1").arg(Server));
        },
        QObject::tr("the load of echo on %1 to end").arg(Server));
}

} // namespace mcpscope
