#pragma once

#include "stdiofault.h"

#include <QJsonValue>
#include <QList>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace mcpscope {

class Transport;

/// The stdio faults a user armed for one server, applied in order, one per request that goes out.
///
/// Signals: fired with a text naming what was done, each time an armed fault takes effect.
class StdioFaultInjector : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    void arm(StdioFault fault, int delayMs = 0);
    int pending() const { return int(m_armed.size()); }

    /// When the next armed fault is a delay: takes it and returns how long the request waits.
    std::optional<int> takeDelay();
    /// Runs send, which sends one request on transport, with the next armed fault applied to it.
    /// requestId is the caller's request in flight: undefined while send runs, then its id, so that
    /// kill-after-write strikes the bytes of that request only. peerReady: the session is initialized,
    /// so nothing but this request can be on its way to the peer.
    void sendWithNextFault(Transport* transport, bool peerReady, std::shared_ptr<const QJsonValue> requestId,
        const std::function<void()>& send);

Q_SIGNALS:
    void fired(const QString& text);

private:
    struct Armed
    {
        StdioFault fault;
        int delayMs;
    };
    QList<Armed> m_armed;
};

} // namespace mcpscope
