#pragma once

#include <QHostAddress>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QUrl>

#include <optional>

class QTcpServer;

namespace mcpscope {

class FaultProxyConnection;

/// A reverse proxy for one Streamable HTTP MCP server that injects the wire faults of RECOVERY.md §8
/// (DESIGN.md "Fault injection"). It listens on 127.0.0.1 only, never on another interface.
///
/// Pass-through is transparent: method, path and query, every end-to-end header (Mcp-Session-Id,
/// MCP-Protocol-Version, Last-Event-ID, Authorization, …) and the body go upstream unchanged; the status,
/// headers and body come back unchanged. Only the hop-by-hop headers are the proxy's own (Connection,
/// Transfer-Encoding, Content-Length framing) and Host names the upstream. A text/event-stream body is
/// relayed chunk by chunk as it arrives. Each client request is one upstream request on its own connection;
/// client connections are kept alive with proper Content-Length or chunked framing, so a cut response
/// is visible to the client as incomplete rather than as a short but complete body.
///
/// Faults are armed for the next `count` matching requests. Only a POST whose body is a JSON-RPC
/// *request* (an object with "method" and "id") can match: notifications, responses, GET streams
/// (including resumptions with Last-Event-ID) and DELETE always pass through. A fault with neither
/// `method` nor `tool` matches the next such request; `method` restricts it to that JSON-RPC method;
/// `tool` restricts it to tools/call of that tool (params.name). When several armed faults match, the
/// one armed first is used. A count is consumed when a request matches, even if the fault's effect
/// never reaches the client (because the client or the upstream went away first).
///
/// Kinds:
/// - expire-before: answers 404 without forwarding (a clean session expiry).
/// - expire-after: forwards, waits for the complete upstream response (for an event stream: until the
///   JSON-RPC response to the request's id has arrived), then answers 404 instead: the ambiguous expiry.
/// - cut-after: forwards; for an event stream, relays the events before the response and the first half
///   of the response event; for any other body, relays the head and half of the body; then closes the
///   client connection without finishing the response.
/// - auth-401: answers 401 with `WWW-Authenticate: Bearer resource_metadata="<proxy>/.well-known/
///   oauth-protected-resource"` without forwarding.
/// - delay: waits delayMs, then forwards normally.
/// - drop-stream: forwards; relays the events before the response (the priming event, progress, …), then
///   ends the stream cleanly without the response event and closes the connection. A non-stream answer
///   is relayed with its status and headers but an empty body.
/// Against a server with an event store, cut-after and drop-stream leave a Last-Event-ID behind, so a
/// client may legitimately resume the stream (a GET that passes through) and still get its answer.
///
/// Signals:
/// - requestSeen for every POST carrying a JSON-RPC request or notification (id undefined for the latter),
///   before any fault is applied.
/// - faultFired when a fault's effect is applied: delay when the wait starts, expire-before and auth-401
///   when the answer is sent, expire-after when the 404 replaces the real answer, cut-after and
///   drop-stream when the client connection is cut or the stream ended. fault.count is the number of
///   firings it has left.
/// - armedChanged whenever the armed list changes (arm, disarm, clear, a count used up).
class FaultProxy : public QObject
{
    Q_OBJECT
public:
    enum class FaultKind { ExpireBefore, ExpireAfter, CutAfter, Auth401, Delay, DropStream };
    Q_ENUM(FaultKind)

    struct Fault
    {
        FaultKind kind = FaultKind::ExpireBefore;
        int count = 1; ///< how many matching requests it applies to
        QString method; ///< only requests with this JSON-RPC method; empty: any
        QString tool; ///< only tools/call of this tool; empty: any
        int delayMs = 0; ///< Delay only
        quint64 id = 0; ///< assigned by arm()
    };

    explicit FaultProxy(QUrl upstream, QObject* parent = nullptr);
    ~FaultProxy() override;

    /// Listens on 127.0.0.1:port (0: any free port). Fails if already listening.
    bool listen(quint16 port = 0, QString* error = nullptr);
    void close();
    bool isListening() const;
    /// The proxied endpoint: the upstream's path and query on http://127.0.0.1:port().
    QUrl url() const;
    quint16 port() const;
    /// Always QHostAddress::LocalHost while listening.
    QHostAddress serverAddress() const;
    QUrl upstream() const { return m_upstream; }

    /// Arms a fault (a count below 1 counts as 1) and returns its id.
    quint64 arm(const Fault& fault);
    void disarm(quint64 id);
    void clear();
    QList<Fault> armed() const { return m_faults; }

    /// Requests sent upstream (pass-through and faults that forward).
    int forwarded() const { return m_forwarded; }
    int faultsFired() const { return m_faultsFired; }

    static std::optional<FaultKind> kindFromName(QStringView name);
    /// "expire-before", "expire-after", "cut-after", "auth-401", "delay", "drop-stream".
    static QString kindName(FaultKind kind);
    /// {"id", "kind", "count", "method"?, "tool"?, "delayMs"?}, as the control API speaks it.
    static QJsonObject faultToJson(const Fault& fault);
    /// Reads the control API's fault object; the id is not read. Returns nullopt with a reason on error.
    static std::optional<Fault> faultFromJson(const QJsonObject& object, QString* error = nullptr);

Q_SIGNALS:
    void faultFired(const mcpscope::FaultProxy::Fault& fault, const QString& method, const QJsonValue& requestId);
    void armedChanged();
    void requestSeen(const QString& method, const QJsonValue& id);

private:
    friend class FaultProxyConnection;

    void onNewConnection();
    /// The fault for a JSON-RPC request, with its count consumed; nullopt when none matches.
    std::optional<Fault> takeFault(const QString& method, const QString& tool);
    void noteFired(const Fault& fault, const QString& method, const QJsonValue& requestId);

    QUrl m_upstream;
    QTcpServer* m_server = nullptr;
    QList<Fault> m_faults;
    quint64 m_nextId = 1;
    int m_forwarded = 0;
    int m_faultsFired = 0;
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::FaultProxy::Fault)
