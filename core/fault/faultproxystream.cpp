#include "faultproxyconnection.h"

#include "jsonrpc/jsonrpccodec.h"
#include "socketreset.h"

#include <QTimer>

namespace mcpscope {

using FaultProxyWire::legacyStreamKey;
using FaultProxyWire::sessionNotFound;
using HttpWire::MessageReader;

namespace {
/// How long a fault waits for a legacy server's answer on its event stream after the POST's 202.
constexpr int StreamAnswerWaitMs = 30000;
} // namespace

QByteArray FaultProxyConnection::takeSseBlock(bool atEnd)
{
    // An event ends at an empty line; lines end in CRLF, LF or CR. A CR at the end of the buffer may be
    // the first half of a CRLF, so it is only judged once the next byte (or the end of the stream) is there.
    const qsizetype size = m_held.size();
    qsizetype i = m_scanPos;
    while (i < size) {
        const char c = m_held.at(i);
        if (c != '\n' && c != '\r') {
            ++i;
            continue;
        }
        if (c == '\r' && i + 1 == size && !atEnd)
            break;
        qsizetype end = i + 1;
        if (c == '\r' && end < size && m_held.at(end) == '\n')
            ++end;
        if (i == m_lineStart) {
            const QByteArray block = m_held.left(end);
            m_held.remove(0, end);
            m_scanPos = 0;
            m_lineStart = 0;
            return block;
        }
        m_lineStart = end;
        i = end;
    }
    m_scanPos = i;
    if (atEnd && !m_held.isEmpty()) {
        m_scanPos = 0;
        m_lineStart = 0;
        return std::exchange(m_held, {});
    }
    return {};
}

bool FaultProxyConnection::isResponseEvent(const QByteArray& block)
{
    const QList<SseEvent> events = m_sse.feed(block);
    for (const SseEvent& event : events) {
        if (event.type != "message")
            continue;
        const DecodeResult decoded = JsonRpcCodec::decode(event.data);
        if (decoded && decoded.message.isReply() && idKey(decoded.message.id) == idKey(m_rpcId))
            return true;
    }
    return false;
}

void FaultProxyConnection::relaySseBlocks(bool atEnd)
{
    const quint64 generation = m_generation;
    for (;;) {
        const QByteArray block = takeSseBlock(atEnd);
        if (block.isEmpty())
            return;
        if (!isResponseEvent(block)) {
            if (!holdsHead())
                sendBody(block);
            continue;
        }
        switch (m_mode) {
        case Mode::Pass:
            sendBody(block);
            continue;
        case Mode::ExpireAfter:
            // The server has answered: the client gets a 404 instead.
            dropUpstream();
            respondFault(FaultProxy::FaultKind::ExpireAfter, 404, { { "Content-Type", "application/json" } },
                sessionNotFound(m_rpcId));
            return;
        case Mode::CutAfter:
            sendBody(QByteArrayView(block).first(block.size() / 2));
            fire();
            if (live(generation))
                cutClient();
            return;
        case Mode::DropStream:
            dropUpstream();
            fire();
            if (live(generation))
                finishResponse(true);
            return;
        case Mode::CloseBeforeHead:
        case Mode::RstBeforeHead:
            endWithoutHead();
            return;
        }
    }
}

void FaultProxyConnection::relayStreamEvents(bool atEnd)
{
    for (;;) {
        QByteArray block = takeSseBlock(atEnd);
        if (block.isEmpty())
            return;
        bool withheld = false;
        const QList<SseEvent> events = m_sse.feed(block);
        for (const SseEvent& event : events) {
            if (event.type == "endpoint") {
                const QByteArray endpoint = event.data.trimmed();
                const QUrl url = QUrl::fromEncoded(endpoint);
                const QUrl upstream = m_proxy->upstream();
                if (!url.isRelative() && url.host() == upstream.host()
                    && url.port(url.scheme() == QLatin1String("https") ? 443 : 80)
                        == upstream.port(upstream.scheme() == QLatin1String("https") ? 443 : 80)) {
                    // An absolute endpoint on the upstream would take the client's POSTs past the proxy.
                    QUrl proxied = url;
                    proxied.setScheme(QStringLiteral("http"));
                    proxied.setHost(QStringLiteral("127.0.0.1"));
                    proxied.setPort(m_proxy->port());
                    block.replace(endpoint, proxied.toEncoded());
                }
                m_streamKey = legacyStreamKey(endpoint);
                continue;
            }
            if (event.type != "message" || m_streamKey.isEmpty())
                continue;
            const DecodeResult decoded = JsonRpcCodec::decode(event.data);
            if (!decoded || !decoded.message.isReply())
                continue;
            const auto taken = m_proxy->takeWithheld(m_streamKey + u'\n' + idKey(decoded.message.id).toString());
            if (!taken)
                continue;
            withheld = true;
            const FaultProxy::FaultKind kind = taken->fault.kind;
            if (kind != FaultProxy::FaultKind::CutAfter && kind != FaultProxy::FaultKind::DropStream
                && kind != FaultProxy::FaultKind::DropResponseStream)
                continue;
            // The session's stream breaks where the answer would be: halfway through it, or cleanly before it.
            if (kind == FaultProxy::FaultKind::CutAfter)
                sendBody(QByteArrayView(block).first(block.size() / 2));
            m_proxy->noteFired(taken->fault, taken->method, taken->requestId);
            if (kind == FaultProxy::FaultKind::CutAfter)
                cutClient();
            else
                finishResponse(true);
            return;
        }
        if (!withheld)
            sendBody(block);
    }
}

void FaultProxyConnection::onUpstreamComplete()
{
    const quint64 generation = m_generation;
    dropUpstream();
    if (m_mode == Mode::Pass) {
        if (m_watchStream) {
            relayStreamEvents(true);
            if (!live(generation))
                return;
        }
        finishResponse();
        return;
    }
    if (!m_withholdKey.isEmpty() && !m_streamAnswerSeen) {
        // A legacy server has only accepted the request; it has run it once its answer is on the event
        // stream. The fault waits for that (bounded, in case the stream does not pass through the proxy).
        m_awaitingStreamAnswer = true;
        QTimer::singleShot(StreamAnswerWaitMs, this, [this, generation] {
            if (live(generation) && std::exchange(m_awaitingStreamAnswer, false))
                completeFault();
        });
        return;
    }
    completeFault();
}

void FaultProxyConnection::onWithheldAnswerSeen(quint64 generation)
{
    if (generation != m_generation)
        return; // a later exchange on this connection
    m_streamAnswerSeen = true;
    if (m_busy && !m_responseDone && std::exchange(m_awaitingStreamAnswer, false))
        completeFault();
}

void FaultProxyConnection::endWithoutHead()
{
    const quint64 generation = m_generation;
    const bool reset = m_mode == Mode::RstBeforeHead;
    dropUpstream();
    fire();
    if (!live(generation))
        return;
    m_busy = true;
    m_responseDone = true;
    if (reset) {
        resetConnection(m_client);
        return;
    }
    m_client->disconnectFromHost();
}

void FaultProxyConnection::completeFault()
{
    const quint64 generation = m_generation;
    switch (m_mode) {
    case Mode::Pass:
        finishResponse();
        return;
    case Mode::CloseBeforeHead:
    case Mode::RstBeforeHead:
        endWithoutHead();
        return;
    case Mode::ExpireAfter:
        respondFault(FaultProxy::FaultKind::ExpireAfter, 404, { { "Content-Type", "application/json" } },
            sessionNotFound(m_rpcId));
        return;
    case Mode::CutAfter:
        if (m_isSse && m_headSent) {
            relaySseBlocks(true);
            if (!live(generation))
                return;
            // The stream ended without the response: everything went through, then the end is cut off.
            fire();
            if (live(generation))
                cutClient();
            return;
        }
        if (m_held.isEmpty()) {
            fire();
            if (live(generation))
                cutClient();
            return;
        }
        sendHead(m_response->status, m_response->reason, HttpWire::endToEndHeaders(m_response->headers),
            Framing::Length, m_held.size());
        sendBody(QByteArrayView(m_held).first(m_held.size() / 2));
        fire();
        if (live(generation))
            cutClient();
        return;
    case Mode::DropStream:
        if (m_isSse && m_headSent) {
            relaySseBlocks(true);
            if (!live(generation))
                return;
        } else if (m_fault && m_fault->kind == FaultProxy::FaultKind::DropResponseStream) {
            // A JSON answer is the response stream of 2026-07-28: its head promises the body, which never
            // comes (the connection closes), so the client sees the stream break after the call ran.
            sendHead(m_response->status, m_response->reason, HttpWire::endToEndHeaders(m_response->headers),
                Framing::Length, m_held.size());
            fire();
            if (live(generation))
                cutClient();
            return;
        } else {
            sendHead(m_response->status, m_response->reason, HttpWire::endToEndHeaders(m_response->headers),
                Framing::Length, 0);
        }
        fire();
        if (live(generation))
            finishResponse(true);
        return;
    }
}

} // namespace mcpscope
