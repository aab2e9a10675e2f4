#include "stdiofaultinjector.h"

#include "jsonrpc/jsonrpcmessage.h"
#include "transport/transport.h"

namespace mcpscope {

void StdioFaultInjector::arm(StdioFault fault, int delayMs)
{
    m_armed.append({ fault, delayMs });
}

std::optional<int> StdioFaultInjector::takeDelay()
{
    if (m_armed.isEmpty() || m_armed.first().fault != StdioFault::Delay)
        return std::nullopt;
    const int delay = m_armed.takeFirst().delayMs;
    Q_EMIT fired(tr("delay: held the request for %1 ms").arg(delay));
    return delay;
}

void StdioFaultInjector::sendWithNextFault(Transport* transport, bool peerReady,
    std::shared_ptr<const QJsonValue> requestId, const std::function<void()>& send)
{
    if (m_armed.isEmpty()) {
        send();
        return;
    }
    const StdioFault fault = m_armed.takeFirst().fault;
    if (fault == StdioFault::KillAfterWrite) {
        // Connected before the request goes out: a fast pipe reports the write inside send().
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(transport, &Transport::requestWritten, this,
            [this, transport, requestId, connection](const QJsonValue& written) {
                if (!requestId->isUndefined() && idKey(written) != idKey(*requestId))
                    return;
                QObject::disconnect(*connection);
                // The bytes are in the pipe: kill now, before the child can answer.
                transport->abort();
                Q_EMIT fired(tr("kill-after-write: killed the stdio server after request %1 was written")
                                 .arg(idKey(written).display()));
            });
        // Stopped before the write, killed right after it: the request is in the pipe but the child
        // can never have answered, however fast it is (and however slow we are under a sanitizer).
        if (peerReady)
            transport->suspendPeer();
    }
    send();
    if (fault == StdioFault::CloseStdin) {
        Q_EMIT fired(tr("close-stdin: closed the stdio server's stdin"));
        transport->closeWriteChannel();
    }
}

} // namespace mcpscope
