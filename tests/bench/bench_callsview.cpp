// Call log in the window (DESIGN.md "Performance goals": no GUI stall over 50 ms while records
// stream in). 100,000 CallRecords go into a CallsModel at full speed, through the same filter and
// presentation proxies the main window uses, into a QTableView on an offscreen window. A 1 ms
// heartbeat timer on the GUI thread records the longest gap between its ticks: that is the
// longest stall a person would feel. A producer timer feeds 1,000 records per 0 ms turn.
//
// Prints numbers and a PASS/MISS against the goal; it never fails on timing.

#include "calllog/callrecord.h"
#include "models/callsfilterproxy.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"
#include "presentation/presentation.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QTableView>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace mcpscope;

namespace {

constexpr int TotalRecords = 100000;
constexpr int ChunkRecords = 1000;
constexpr double StallGoalMs = 50.0;

std::vector<CallRecord> makeRecords()
{
    const QString servers[]
        = { QStringLiteral("everything-stdio"), QStringLiteral("everything-http"), QStringLiteral("ledger") };
    const QString tools[] = { QStringLiteral("echo"), QStringLiteral("get-sum"),
        QStringLiteral("toggle-simulated-logging"), QStringLiteral("write"), QStringLiteral("read") };
    const CallOutcome outcomes[] = { CallOutcome::Success, CallOutcome::Success, CallOutcome::Success,
        CallOutcome::ToolError, CallOutcome::OutcomeUncertain, CallOutcome::Timeout };
    std::vector<CallRecord> records;
    records.reserve(TotalRecords);
    const qint64 start = 1'760'000'000'000;
    for (int i = 0; i < TotalRecords; ++i) {
        CallRecord r;
        r.callId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        r.server = servers[i % 3];
        r.transport = QStringLiteral("stdio");
        r.method = QStringLiteral("tools/call");
        r.tool = tools[i % 5];
        r.startedAt = start + i;
        r.endedAt = r.startedAt + 1 + i % 40;
        r.outcome = outcomes[i % 6];
        if (r.outcome == CallOutcome::OutcomeUncertain)
            r.rule = QStringLiteral("R5");
        else if (r.outcome == CallOutcome::Timeout)
            r.rule = QStringLiteral("R7");
        CallAttempt attempt;
        attempt.requestId = QString::number(i);
        attempt.sentAt = r.startedAt;
        attempt.endedAt = r.endedAt;
        r.attempts.append(attempt);
        records.push_back(std::move(r));
    }
    return records;
}

} // namespace

int main(int argc, char* argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    std::printf("Call log into the window: %d records, %d per producer turn, offscreen QTableView\n", TotalRecords,
        ChunkRecords);
    std::fflush(stdout);
    const std::vector<CallRecord> records = makeRecords();

    // The window's chain: CallsModel → CallsFilterProxy → CallsPresentation → QTableView.
    CallsModel model;
    CallsFilterProxy filter;
    filter.setSourceModel(&model);
    CallsPresentation presentation;
    presentation.setSourceModel(&filter);
    QTableView view;
    view.setSelectionBehavior(QAbstractItemView::SelectRows);
    view.verticalHeader()->hide();
    view.verticalHeader()->setDefaultSectionSize(22);
    view.horizontalHeader()->setStretchLastSection(true);
    view.setAlternatingRowColors(true);
    view.setWordWrap(false);
    view.setModel(&presentation);
    view.resize(1200, 400);
    view.show();
    // As the window does: keep the newest call in view while nothing is selected.
    QObject::connect(&presentation, &QAbstractItemModel::rowsInserted, &view, [&view] {
        if (!view.currentIndex().isValid())
            view.scrollToBottom();
    });

    QElapsedTimer clock;
    qint64 lastBeatNs = 0;
    qint64 longestGapNs = 0;
    qint64 beats = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    heartbeat.setInterval(1);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        longestGapNs = std::max(longestGapNs, now - lastBeatNs);
        lastBeatNs = now;
        ++beats;
    });

    size_t next = 0;
    qint64 producedNs = 0;
    std::function<void()> produce = [&] {
        const size_t end = std::min(records.size(), next + ChunkRecords);
        for (; next < end; ++next)
            model.ingest(records[next]);
        if (next < records.size()) {
            QTimer::singleShot(0, &app, produce);
            return;
        }
        // Let the last batch reach the view, then a few more heartbeats after it.
        QTimer::singleShot(0, &app, [&] {
            model.flush();
            producedNs = clock.nsecsElapsed();
            QTimer::singleShot(100, &app, &QCoreApplication::quit);
        });
    };

    // Start on a settled, painted window.
    QTimer::singleShot(200, &app, [&] {
        clock.start();
        lastBeatNs = 0;
        heartbeat.start();
        produce();
    });
    QApplication::exec();
    heartbeat.stop();

    const double totalMs = double(producedNs) / 1e6;
    const double stallMs = double(longestGapNs) / 1e6;
    const double rowsPerSec = totalMs > 0 ? TotalRecords / (totalMs / 1000.0) : 0;
    std::printf("  rows shown:          %d (filter %d, view %d)\n", model.rowCount(), filter.rowCount(),
        view.model()->rowCount());
    std::printf("  total time:          %.1f ms (first record to the last row in the view)\n", totalMs);
    std::printf("  throughput:          %.0f rows/s\n", rowsPerSec);
    std::printf("  heartbeats:          %lld\n", static_cast<long long>(beats));
    std::printf("  longest GUI stall:   %.1f ms  (goal < %.0f ms: %s)\n", stallMs, StallGoalMs,
        stallMs < StallGoalMs ? "PASS" : "MISS");
    return model.rowCount() == TotalRecords ? 0 : 1;
}
