#pragma once

#include <QString>

#include <functional>

class QWidget;

namespace mcpscope {

class MainWindow;

/// Screenshots of issue 17's load and charts, for `make screenshot`: the Load… dialog after a load of
/// echo on the demo HTTP server, with three expire-after faults armed during it (load-dialog.png), then
/// that server's Charts tab: the latency timeline (latency-chart.png) and the histogram
/// (latency-histogram.png).
namespace ChartsShots {
using Save = std::function<void(QWidget* widget, const QString& file)>;
using Wait = std::function<void(
    std::function<bool()> condition, int timeoutMs, std::function<void()> then, const QString& what)>;
/// Takes all three (after the demo servers are connected), then calls done.
void run(MainWindow* window, Save save, Wait wait, std::function<void()> done);
} // namespace ChartsShots

} // namespace mcpscope
