#pragma once

#include <QHash>
#include <QHostAddress>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

class QTcpServer;

namespace mcpscope {

class FaultProxyConnection;

/// A reverse proxy for one Streamable HTTP or legacy HTTP+SSE MCP server that injects the wire faults of
/// RECOVERY.md §8 (DESIGN.md "Fault injection"). It listens on 127.0.0.1 only, never on another interface.
///
/// Pass-through is transparent: method, path and query, every end-to-end header (Mcp-Session-Id,
/// MCP-Protocol-Version, Last-Event-ID, Authorization, …) and the body go upstream unchanged; the status,
/// headers and body come back unchanged. Only the hop-by-hop headers are the proxy's own (Connection,
/// Transfer-Encoding, Content-Length framing) and Host names the upstream. A text/event-stream body is
/// relayed chunk by chunk as it arrives. Each client request is one upstream request on its own connection;
/// client connections are kept alive with proper Content-Length or chunked framing, so a cut response
/// is visible to the client as incomplete rather than as a short but complete body.
///
/// Legacy HTTP+SSE: the GET event stream is relayed event by event as it arrives; its `endpoint` event is
/// passed on as sent when relative, and rewritten to the proxy when it names the upstream's origin, so the
/// client's POSTs come through the proxy. A fault that keeps the answer from the client (expire-after,
/// cut-after, drop-stream, close-before-head, rst-before-head) also keeps the JSON-RPC response to that
/// request off the session's event stream, and the faults that wait for the answer wait for it there when
/// the POST itself is only acknowledged (202).
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
/// - close-before-head: forwards, lets the server run the request (it waits for the complete upstream
///   response as expire-after does), then closes the client connection (FIN) without one byte of the
///   response: the case an HTTP library that silently re-sends turns into a duplicate.
/// - rst-before-head: the same, but resets the client connection (RST) instead of closing it.
/// - unsupported-version (2026-07-28): answers 400 with the JSON-RPC error -32022 (data.supported lists
///   2026-07-28) without forwarding: the pre-execution refusal of RECOVERY.md §9, rule R10.
/// - header-mismatch (2026-07-28): answers 400 with the JSON-RPC error -32020 without forwarding (R11).
/// - drop-response-stream (2026-07-28): drop-stream under the revision's name: forwards, lets the server run
///   the request, then ends the response stream without the answer. The revision has no resumption, so the
///   client is left with a broken response stream after the call ran (TransportLost, R4 or R5).
/// - era-flip: answers like a server of the other protocol era, without forwarding (RECOVERY.md §9, R13): a
///   2026-07-28 request (no Mcp-Session-Id) gets the 400 a legacy server's session gate sends ("Bad Request:
///   Server not initialized", -32000, id null, as the TypeScript SDK v1 answers); a 2025-11-25 request
///   (with Mcp-Session-Id, or initialize) gets the 400 -32022 of a 2026-07-28-only server.
/// Against a server with an event store, cut-after and drop-stream leave a Last-Event-ID behind, so a
/// client may legitimately resume the stream (a GET that passes through) and still get its answer.
///
/// Duplicate check (on by default): every tools/call POST whose params._meta["io.github.mcpscope/attempt"]
/// names a (callId, attempt) the proxy has already forwarded is answered 409 Conflict, with a JSON body
/// naming the duplicate, and is NOT forwarded. The engine never sends one attempt twice, so a 409 proves
/// that some layer (an HTTP library, a transport) re-sent a request by itself. Requests without the key
/// are never refused. A duplicate is checked before faults are matched and consumes none.
///
/// Signals:
/// - requestSeen for every POST carrying a JSON-RPC request or notification (id undefined for the latter),
///   before any fault is applied.
/// - faultFired when a fault's effect is applied: delay when the wait starts, expire-before and auth-401
///   when the answer is sent, expire-after when the 404 replaces the real answer, cut-after and
///   drop-stream when the client connection is cut or the stream ended, close-before-head and
///   rst-before-head when the client connection is closed or reset. fault.count is the number of
///   firings it has left.
/// - duplicateRefused when the 409 for a duplicate attempt is sent.
/// - armedChanged whenever the armed list changes (arm, disarm, clear, a count used up).
class FaultProxy : public QObject
{
    Q_OBJECT
public:
    enum class FaultKind {
        ExpireBefore,
        ExpireAfter,
        CutAfter,
        Auth401,
        Delay,
        DropStream,
        CloseBeforeHead,
        RstBeforeHead,
        UnsupportedVersion,
        HeaderMismatch,
        DropResponseStream,
        EraFlip
    };
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
    /// Whether a request's Host header names a loopback listener on port exactly as a local client
    /// addresses it: 127.0.0.1:port or localhost:port (on port 80 also without the port). A page whose own
    /// name resolves to 127.0.0.1 (DNS rebinding) sends its own name; a Host without our port names another
    /// listener.
    static bool isOwnHost(const QByteArray& host, quint16 port);
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
    /// POSTs answered 409 because their (callId, attempt) had already been forwarded.
    int duplicatesRefused() const { return m_duplicatesRefused; }
    /// The duplicate check is on unless turned off here (a client that re-sends on purpose, say).
    void setDuplicateCheck(bool on) { m_duplicateCheck = on; }
    bool duplicateCheck() const { return m_duplicateCheck; }

    static std::optional<FaultKind> kindFromName(QStringView name);
    /// "expire-before", "expire-after", "cut-after", "auth-401", "delay", "drop-stream", "close-before-head",
    /// "rst-before-head".
    static QString kindName(FaultKind kind);
    /// Every kind's name, in the order above: what a fault picker offers.
    static QStringList kindNames();
    /// The kinds that make sense against a 2025-11-25 server (the session faults) and against a 2026-07-28 one
    /// (no session to expire: the refusals, and the response cuts that lose an answer after the server ran).
    static QStringList legacyKindNames();
    static QStringList modernKindNames();
    /// {"id", "kind", "count", "method"?, "tool"?, "delayMs"?}, as the control API speaks it.
    static QJsonObject faultToJson(const Fault& fault);
    /// Reads the control API's fault object; the id is not read. Returns nullopt with a reason on error.
    static std::optional<Fault> faultFromJson(const QJsonObject& object, QString* error = nullptr);

Q_SIGNALS:
    void faultFired(const mcpscope::FaultProxy::Fault& fault, const QString& method, const QJsonValue& requestId);
    void armedChanged();
    void requestSeen(const QString& method, const QJsonValue& id);
    void duplicateRefused(const QString& callId, int attempt, const QJsonValue& requestId);

private:
    friend class FaultProxyConnection;

    void onNewConnection();
    /// The fault for a JSON-RPC request, with its count consumed; nullopt when none matches.
    std::optional<Fault> takeFault(const QString& method, const QString& tool);
    void noteFired(const Fault& fault, const QString& method, const QJsonValue& requestId);
    bool alreadyForwarded(const QString& callId, int attempt) const;
    void noteForwarded(const QString& callId, int attempt);
    void noteDuplicate(const QString& callId, int attempt, const QJsonValue& requestId);

    /// A legacy SSE answer a fault keeps off the event stream: the POST's connection and exchange, and the
    /// fault (cut-after and drop-stream act on the stream itself).
    struct Withheld
    {
        QPointer<FaultProxyConnection> waiter;
        quint64 generation = 0;
        Fault fault;
        QString method;
        QJsonValue requestId;
    };
    // Keyed by stream key + '\n' + JSON-RPC id key.
    void withholdResponse(const QString& key, const Withheld& withheld);
    void releaseWithheld(const QString& key);
    /// Called by a stream for every response event: the entry when the answer is withheld (the waiter is
    /// told), nullopt when it passes.
    std::optional<Withheld> takeWithheld(const QString& key);

    QUrl m_upstream;
    QTcpServer* m_server = nullptr;
    QList<Fault> m_faults;
    quint64 m_nextId = 1;
    int m_forwarded = 0;
    int m_faultsFired = 0;
    int m_duplicatesRefused = 0;
    bool m_duplicateCheck = true;
    QSet<QString> m_forwardedAttempts;
    QHash<QString, Withheld> m_withheld;
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::FaultProxy::Fault)
