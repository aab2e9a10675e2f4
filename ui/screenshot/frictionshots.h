#pragma once

#include <QString>

#include <functional>

class QWidget;

namespace mcpscope {

class MainWindow;

/// Screenshots of issue 14's everyday views, for `make screenshot`: the Prompts tab with args-prompt
/// rendered (prompts-rendered.png) and the banner over a server whose start failed (error-banner.png,
/// a server at a URL path the demo HTTP server does not serve, added to the engine only, so the
/// workspace stays unchanged).
namespace FrictionShots {
using Save = std::function<void(QWidget* widget, const QString& file)>;
using Wait = std::function<void(
    std::function<bool()> condition, int timeoutMs, std::function<void()> then, const QString& what)>;
/// Takes both (after the demo servers are connected), then calls done.
void run(MainWindow* window, Save save, Wait wait, std::function<void()> done);
} // namespace FrictionShots

} // namespace mcpscope
