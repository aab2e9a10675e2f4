#include "serverconnection.h"

#include "calllog/callsummary.h"
#include "engine/callrunner.h"
#include "engine/respondertap.h"

#include <QDateTime>
#include <QPointer>

namespace mcpscope {

// The protocol era a probe found (2026-07-28), and what the server asks the client while a connection lives (sampling,
// elicitation, roots): the tap that tells the client's responder who asks, and the timeline notes those requests and
// their answers leave on the calls in flight.

void ServerConnection::setResponder(ClientResponder* responder)
{
    if (!m_tap) {
        const QPointer<ServerConnection> self(this);
        ResponderTap::Hooks hooks;
        hooks.origin = [self]() {
            ServerRequestOrigin origin;
            if (self) {
                origin.server = self->m_config.name;
                origin.session = self->m_session.data();
                if (!self->m_inputRequestCall.isEmpty()) {
                    origin.callIds.append(self->m_partOf.value(self->m_inputRequestCall, self->m_inputRequestCall));
                    return origin;
                }
                // A task's poll stands for the call that created the task: that one is in the log.
                for (auto it = self->m_calls.constBegin(); it != self->m_calls.constEnd(); ++it) {
                    const QString id = self->m_partOf.value(it.key(), it.key());
                    if (!origin.callIds.contains(id))
                        origin.callIds.append(id);
                }
            }
            return origin;
        };
        hooks.note = [self](const QString& kind, const QString& text) {
            if (self)
                self->noteOnCalls(kind, text);
        };
        // An elicitation McpScope did not accept is marked on the calls in flight: their result is what the
        // tool does without the input it asked for, which the calls list and the result must not call success.
        hooks.declined = [self](const QString& action) {
            if (self)
                self->noteEvent(CallSummary::DeclinedEventKind,
                    tr("elicitation/create answered \"%1\": McpScope did not give the input the server asked for")
                        .arg(action));
        };
        m_tap = std::make_unique<ResponderTap>(std::move(hooks));
    }
    // The session asks m_responder (this server's roots), which hands the rest to the tap, then the engine's.
    m_tap->setInner(responder);
    m_responder.setInner(responder ? m_tap.get() : nullptr);
}

void ServerConnection::answerInputRequest(
    const QString& callId, const JsonRpcMessage& request, ClientResponder::Reply reply)
{
    // The tap asks for the origin while respond() runs: only then is the call known.
    const QString previous = std::exchange(m_inputRequestCall, callId);
    m_responder.respond(request, std::move(reply));
    m_inputRequestCall = previous;
}

void ServerConnection::noteOnCalls(const QString& kind, const QString& text)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (CallRunner* runner : std::as_const(m_calls))
        runner->noteEvent(now, kind, text);
}

void ServerConnection::noteEvent(const QString& kind, const QString& text)
{
    noteOnCalls(kind, text);
    Q_EMIT actionLogged(kind, text);
}

void ServerConnection::noteEra(const ClientSession* session)
{
    if (m_config.era != ProtocolEra::Auto || m_activeTransport == TransportKind::LegacySse)
        return;
    const ProtocolEra era = session->details().era;
    if (m_config.knownEra == era)
        return;
    m_config.knownEra = era;
    Q_EMIT eraDetected(era);
}

void ServerConnection::forgetEra()
{
    if (m_config.era == ProtocolEra::Auto)
        m_config.knownEra.reset();
}

bool ServerConnection::reprobeEra()
{
    // Only a cached legacy era skips the probe; a cached modern one is probed (and corrected) every time.
    if (m_config.era != ProtocolEra::Auto || m_config.knownEra != ProtocolEra::Legacy || !m_session
        || !m_session->details().protocolVersion.isEmpty())
        return false;
    const int status = m_session->initializeFailure().httpStatus;
    if (status == 401 || status == 403)
        return false;
    Q_EMIT notice(tr("Server '%1' refused initialize although it was known as a legacy server; probing its "
                     "protocol era again.")
                      .arg(m_config.name));
    m_config.knownEra.reset();
    startSession(m_activeTransport);
    return true;
}

} // namespace mcpscope
