#pragma once

#include "faultproxy.h"
#include "transport/httpwire.h"
#include "transport/sseparser.h"

#include <QByteArray>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTcpSocket>

#include <memory>
#include <optional>

// Internal to core/fault: the proxy's per-connection relay, split over faultproxyconnection.cpp (the client's
// requests, the upstream exchange, the response framing) and faultproxystream.cpp (event streams and how a
// faulted exchange ends).

namespace mcpscope {

namespace FaultProxyWire {
/// The 404 body the TypeScript SDK server answers for a session it does not know.
QByteArray sessionNotFound(const QJsonValue& id);
/// A JSON-RPC error response for id (null when undefined), with data when it is not undefined.
QByteArray rpcError(const QJsonValue& id, int code, const QString& message, const QJsonValue& data = {});
/// What ties a legacy POST to its event stream: the path and query of the POST endpoint, which carries the
/// session (the SDK's "/messages?sessionId=…"). Works for a target and for an endpoint event's URL alike.
QString legacyStreamKey(const QByteArray& targetOrUrl);
/// The answer the proxy gives in place of the server for a fault that never forwards.
struct Refusal
{
    int status = 0;
    HttpWire::HeaderList headers;
    QByteArray body;
};
/// The refusal a non-forwarding kind answers request id with (expire-before, auth-401, the 2026-07-28
/// refusals, era-flip); nullopt for a kind that forwards. proxyPort names the proxy in auth-401's
/// challenge. legacyRequest: the request was a 2025-11-25 one (it carried Mcp-Session-Id, or is initialize),
/// which era-flip answers like a 2026-07-28-only server; any other it answers like a legacy server.
std::optional<Refusal> refusal(FaultProxy::FaultKind kind, const QJsonValue& id, quint16 proxyPort, bool legacyRequest);
} // namespace FaultProxyWire

/// One client connection: reads its requests one after another and answers each through its own
/// upstream connection, applying the fault the request matched, if any.
class FaultProxyConnection : public QObject
{
    Q_OBJECT
public:
    FaultProxyConnection(FaultProxy* proxy, QTcpSocket* client);
    ~FaultProxyConnection() override;
    /// Drops both connections now (the proxy is closing).
    void shutdown();
    /// The event stream of this request's legacy session carried its (withheld) answer.
    void onWithheldAnswerSeen(quint64 generation);

private:
    /// How the upstream answer travels to the client.
    enum class Mode { Pass, ExpireAfter, CutAfter, DropStream, CloseBeforeHead, RstBeforeHead };
    /// The framing of the response the client is receiving.
    enum class Framing { None, Length, Chunked, Close };

    void onClientReadyRead();
    void processInput();
    void handleRequest();
    void forward(Mode mode);
    void writeUpstreamRequest();
    void onUpstreamReadyRead();
    void onUpstreamDisconnected();
    void onUpstreamError(QAbstractSocket::SocketError error);
    void onUpstreamHead();
    void onUpstreamBody(const QByteArray& bytes);
    void onUpstreamComplete();
    void completeFault();
    void upstreamBroken(const QString& reason);
    void relaySseBlocks(bool atEnd);
    /// A passed-through GET event stream: relayed event by event, watched for a legacy endpoint and for
    /// answers a fault withholds.
    void relayStreamEvents(bool atEnd);
    /// Answers 409 to a duplicate attempt without forwarding it.
    void refuseDuplicate(const QString& callId, int attempt);
    /// close-before-head and rst-before-head: the connection ends with no byte of the response.
    void endWithoutHead();
    /// Whether this mode keeps every byte of the answer back until the fault decides what the client gets.
    bool holdsHead() const
    {
        return m_mode == Mode::ExpireAfter || m_mode == Mode::CloseBeforeHead || m_mode == Mode::RstBeforeHead;
    }
    bool isResponseEvent(const QByteArray& block);
    QByteArray takeSseBlock(bool atEnd);

    void sendHead(int status, const QByteArray& reason, const HttpWire::HeaderList& headers, Framing framing,
        qint64 contentLength = -1);
    void sendBody(QByteArrayView bytes);
    void finishResponse(bool close = false);
    void respond(int status, const HttpWire::HeaderList& headers, const QByteArray& body, bool close = false);
    void respondFault(FaultProxy::FaultKind kind, int status, HttpWire::HeaderList headers, const QByteArray& body);
    void cutClient();
    void dropUpstream();
    void fire();
    /// Whether the exchange that was current at generation still awaits its response's end.
    bool live(quint64 generation) const { return generation == m_generation && m_busy && !m_responseDone; }

    FaultProxy* m_proxy;
    QTcpSocket* m_client;
    QByteArray m_input;
    std::unique_ptr<HttpWire::MessageReader> m_request;
    QByteArray m_requestBody;
    bool m_busy = false;
    bool m_continueSent = false;
    bool m_keepAlive = true;
    bool m_http11 = true;
    quint64 m_generation = 0;

    // The exchange in progress.
    QString m_rpcMethod;
    QJsonValue m_rpcId;
    std::optional<FaultProxy::Fault> m_fault;
    Mode m_mode = Mode::Pass;
    QPointer<QTcpSocket> m_upstream;
    std::unique_ptr<HttpWire::MessageReader> m_response;
    bool m_headHandled = false;
    bool m_headSent = false;
    bool m_isSse = false;
    bool m_faultDone = false;
    bool m_responseDone = false;
    bool m_watchStream = false; ///< a passed-through GET event stream
    QString m_streamKey; ///< that stream's legacy endpoint key, once its endpoint event went by
    QString m_withholdKey; ///< this POST's answer, kept off its legacy event stream
    bool m_streamAnswerSeen = false;
    bool m_awaitingStreamAnswer = false;
    Framing m_framing = Framing::None;
    QByteArray m_held;
    qsizetype m_scanPos = 0;
    qsizetype m_lineStart = 0;
    SseParser m_sse;
};

} // namespace mcpscope
