#pragma once

#include "clientresponder.h"
#include "jsonrpc/jsonrpcmessage.h"
#include "jsonrpc/protocolera.h"
#include "jsonrpc/requesttracker.h"
#include "toolinfo.h"
#include "transport/transport.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace mcpscope {

struct ProgressUpdate
{
    double progress = 0;
    std::optional<double> total;
    QString message;
};

struct RequestOptions
{
    qint64 timeoutMs = 60000;
    /// How far notifications/progress may push the deadline out; 0 means 10 × timeoutMs.
    qint64 maxTotalMs = 0;
    /// Adds _meta.progressToken and routes notifications/progress to onProgress.
    std::function<void(const ProgressUpdate&)> onProgress;
    /// Extra _meta entries.
    QJsonObject meta;
    /// Extra _meta entries already encoded (JsonRpcMessage::rawMeta): the attempt's identity, new on
    /// every call. The caller keeps their keys apart from params' own _meta and from meta's.
    QByteArray rawMeta;
};

/// How one request ended.
struct Reply
{
    enum class Status {
        Ok, ///< a JSON-RPC result
        RpcError, ///< a JSON-RPC error response
        Failed, ///< the transport failed; failure holds the evidence
        TimedOut, ///< no answer before the deadline; notifications/cancelled was sent
        Cancelled, ///< given up by the caller
    };

    Status status = Status::Failed;
    QJsonValue id;
    QString method;
    QJsonValue result;
    JsonRpcError error;
    TransportFailure failure;
    bool written = false; ///< the request's bytes had been handed to the peer
    qint64 elapsedMs = 0;
    /// What went over the wire for the request, when the session records exchanges and the
    /// transport reported it before the request settled.
    WireExchange exchange;

    bool ok() const { return status == Status::Ok; }
    QJsonObject resultObject() const { return result.toObject(); }
    /// One line for people, naming what failed.
    QString describe() const;
};

using ReplyHandler = std::function<void(const Reply&)>;

struct ServerDetails
{
    QString protocolVersion;
    QJsonObject capabilities;
    QJsonObject serverInfo;
    QString instructions;
    QString sessionId;
    /// Legacy (initialize, a session) or modern (2026-07-28, sessionless); never Auto once ready.
    ProtocolEra era = ProtocolEra::Legacy;
    /// Modern: the server/discover result as it came, its supportedVersions and cache hints.
    QJsonObject discover;
    QStringList supportedVersions;
    qint64 ttlMs = -1;
    QString cacheScope;
    /// How the era was decided, for people ("server/discover answered", "no answer within 2 s", …).
    QString eraReason;
};

/// One MCP session over one transport: the initialize handshake, requests and their deadlines,
/// notifications, and the requests the server sends back.
///
/// Signals:
/// - stateChanged on every state change, through setState() only.
/// - ready once initialize succeeded and notifications/initialized went out.
/// - failed when the handshake or the channel fails; the session is then unusable.
/// - toolsChanged after each completed tools/list (including re-lists on list_changed).
/// - notificationReceived for every notification from the server.
/// - logMessage for notifications/message; serverLog for stderr and other text outside the protocol;
///   notice for McpScope's own word about the channel (Transport::notice).
/// - keepaliveFailed when a keepalive ping fails (the connection should be treated as suspect).
class ClientSession : public QObject
{
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Initializing, Ready, Closing, Closed, Failed };
    Q_ENUM(State)

    struct Options
    {
        QString serverName;
        qint64 requestTimeoutMs = 60000;
        int keepaliveIntervalSec = 0;
        QString clientName = QStringLiteral("mcpscope");
        QString clientTitle = QStringLiteral("McpScope");
        /// Attach each request's wire exchange to its Reply (costs copies nobody else wants).
        bool recordExchanges = false;
        /// Which era to speak (MCP-NOTES.md, 2026-07-28): auto probes with server/discover first.
        ProtocolEra era = ProtocolEra::Legacy;
        /// What an earlier probe found: with auto, a known legacy server gets initialize at once.
        std::optional<ProtocolEra> knownEra {};
        /// How long auto waits for the server/discover answer before it speaks legacy.
        qint64 probeTimeoutMs = 3000;
        /// Modern: the _meta logLevel every request carries, when the user set one.
        QString logLevel {};
    };

    static const QStringList& supportedProtocolVersions(); ///< newest first; the first is offered

    ClientSession(std::unique_ptr<Transport> transport, Options options, QObject* parent = nullptr);
    ~ClientSession() override;

    void setResponder(ClientResponder* responder) { m_responder = responder; }
    /// Options::recordExchanges, from now on: requests sent later carry their wire exchange, or none.
    void setRecordExchanges(bool on);
    RequestTracker& tracker() { return m_tracker; }
    Transport* transport() const { return m_transport.get(); }

    /// Opens the transport and runs the initialize handshake.
    void start();
    /// Graceful close; closed() is emitted by the transport's shutdown.
    void close();
    /// Drops the transport now; requests in flight fail as transport lost.
    void abort();
    /// Ends every request in flight at once with this failure: written ones keep its kind, unwritten
    /// ones become NotSent. Used before a session is replaced, so no caller waits on a dead session.
    void abandonAll(const TransportFailure& failure);

    State state() const { return m_state; }
    bool isReady() const { return m_state == State::Ready; }
    /// Spoken in the 2026-07-28 revision (sessionless): no ping, no logging/setLevel, no session.
    bool isModern() const { return m_modern; }
    /// Tools the newest tools/list left out because their x-mcp-header annotations are invalid (modern),
    /// each with excludedReason set: the Tools table shows them struck through.
    const QList<ToolInfo>& excludedTools() const { return m_excludedTools; }
    const ServerDetails& details() const { return m_details; }
    QString sessionId() const;
    const QString& lastError() const { return m_lastError; }
    /// The evidence of what ended the session (valid in state Failed); FailureClassifier::kindOf names
    /// its kind.
    const TransportFailure& lastFailure() const { return m_lastFailure; }
    /// The evidence of a failed initialize (HTTP status and headers), for transport fallback and auth.
    const TransportFailure& initializeFailure() const { return m_initializeFailure; }

    /// Sends a request. Before the session is ready, requests wait in a queue (only ping may go
    /// out earlier). done is called exactly once, unless context is destroyed first.
    QJsonValue request(const QString& method, const QJsonObject& params, const RequestOptions& options,
        ReplyHandler done, QObject* context = nullptr);
    void notify(const QString& method, const QJsonObject& params = {});
    /// Gives up on a request: sends notifications/cancelled if it went out, then done(Cancelled).
    bool cancel(const QJsonValue& id, const QString& reason);

    /// tools/list through every page; the list is kept and toolsChanged fires.
    void listTools(ReplyHandler done, QObject* context = nullptr);
    /// Pages through a list method (resources/list, resources/templates/list, prompts/list).
    void listAll(const QString& method, const QString& key, ReplyHandler done, QObject* context = nullptr);
    /// tools/call, with the last params while tool and arguments stay equal (ToolCallParams).
    QJsonValue callTool(const QString& name, const QJsonObject& arguments, const RequestOptions& options,
        ReplyHandler done, QObject* context = nullptr);
    const QList<ToolInfo>& tools() const { return m_tools; }
    bool toolsListed() const { return m_toolsListed; }
    /// The first entry named name, or nullptr. When the listing has the name more than once, every
    /// entry has listedMoreThanOnce set and none of them is the truth: recovery reads listing().
    const ToolInfo* tool(const QString& name) const;
    /// What the newest completed tools/list says about name (not listed before the first one).
    ToolListing listing(const QString& name) const;

    /// Requests in flight; a modern server's open subscriptions/listen streams are not counted.
    int pendingRequests() const { return m_tracker.pendingCount() - m_listen.open(); }
    /// Modern: the resources the subscriptions/listen stream asks updates for, and whether the
    /// server acknowledged the current filter.
    QStringList listenedResources() const { return QStringList(m_listen.uris.cbegin(), m_listen.uris.cend()); }
    bool listenAcknowledged() const { return m_listen.acknowledged; }
    qint64 lateResponses() const { return m_lateResponses; }
    qint64 malformedLines() const { return m_malformedLines; }

Q_SIGNALS:
    void stateChanged(mcpscope::ClientSession::State state);
    void ready();
    void failed(const QString& message);
    void closed();
    void toolsChanged();
    void notificationReceived(const mcpscope::JsonRpcMessage& message);
    void logMessage(const QString& level, const QString& logger, const QJsonValue& data);
    void serverLog(const QString& line);
    void notice(const QString& text);
    void protocolWarning(const QString& message);
    void keepaliveFailed(const mcpscope::Reply& reply);
    /// The last request in flight was answered (or given up on): nothing is pending any more.
    void idle();
    void traffic(mcpscope::WireDirection direction, const QByteArray& bytes);

protected:
    void connectNotify(const QMetaMethod& signal) override;

private:
    struct Pending
    {
        ReplyHandler done;
        std::function<void(const ProgressUpdate&)> onProgress;
        QPointer<QObject> context;
        bool hasContext = false;
        bool written = false;
        QString method;
        WireExchange exchange;
    };
    struct Queued
    {
        JsonRpcMessage message;
        RequestOptions options;
    };
    /// Modern: the subscriptions/listen stream that replaces the GET stream and resources/subscribe
    /// (clientsessionlisten.cpp). subscriptionId is the listen request's id.
    struct Listen
    {
        QJsonValue id; ///< the current listen request; null when none is open
        QJsonValue previous; ///< the one it replaces, kept open until the new one is acknowledged
        bool acknowledged = false;
        int tries = 0; ///< re-listens since the last acknowledgement
        int generation = 0; ///< a scheduled re-listen is stale once another listen started
        QSet<QString> uris;
        QList<QJsonValue> waiting; ///< the resources/subscribe and unsubscribe the next acknowledgement answers
        int open() const { return (id.isNull() ? 0 : 1) + (previous.isNull() ? 0 : 1); }
    };

    void setState(State state);
    void onOpened();
    void sendInitialize();
    void sendDiscover();
    void onDiscoverReply(const Reply& reply);
    void fallBackToLegacy(const QString& reason);
    /// initialize was refused with -32022 by a server that offers 2026-07-28 (a probe that timed out on a
    /// slow start, or a cached legacy era gone stale): probe again with the full timeout. True when it did.
    bool refusedAsModern(const Reply& reply);
    void enterModern(const QJsonObject& result, const QString& reason);
    /// Modern: ends a ping or logging/setLevel at once as not sent (the revision has neither); true when it did.
    bool refusedAsLegacyOnly(const JsonRpcMessage& message);
    /// Modern: answers what the session handles itself (ping, logging/setLevel, resources/subscribe and
    /// unsubscribe); true when it did.
    bool handledLocally(const JsonRpcMessage& message);
    bool subscribedThroughListen(const JsonRpcMessage& message);
    QJsonObject listenFilter() const;
    void startListening();
    void onListenEnded(const Reply& reply);
    bool acceptedFromListen(const JsonRpcMessage& notification);
    void answerListenWaiting(const QString& failure);
    /// Modern: params with the revision's required _meta added.
    QJsonObject withModernMeta(const QJsonObject& params) const;
    /// The responder's capabilities in the 2026-07-28 shape: the tasks extension in place of the core tasks slot.
    QJsonObject modernCapabilities() const;
    /// Modern: Mcp-Method, Mcp-Name and Mcp-Param-* of one message.
    QList<QPair<QByteArray, QByteArray>> modernHeaders(const JsonRpcMessage& message) const;
    /// Modern: a result whose resultType McpScope cannot take; empty when it can.
    QString resultTypeProblem(const QString& method, const QJsonValue& result) const;
    /// Modern: splits a tools/list into the usable tools and those with invalid header annotations.
    void screenModernTools();
    void onInitializeReply(const Reply& reply);
    void fail(const QString& message, const TransportFailure& evidence);
    /// fail() without the failed() signal; true when the session was not failed before.
    bool enterFailed(const QString& message, const TransportFailure& evidence);
    void dispatch(const JsonRpcMessage& message, const RequestOptions& options);
    void onMessage(const JsonRpcMessage& message);
    void onReply(const JsonRpcMessage& message);
    void onServerRequest(const JsonRpcMessage& message);
    void onNotification(const JsonRpcMessage& message);
    void onRequestFailed(const QJsonValue& id, const TransportFailure& failure);
    void onChannelFailed(const TransportFailure& failure);
    void onTimedOut(const RequestTracker::Entry& entry);
    void onMalformed(const QString& reason, const QByteArray& excerpt, const QJsonValue& id);
    void onExchangeRecorded(const QJsonValue& id, const WireExchange& exchange);
    void finish(const IdKey& key, Reply reply);
    void sendKeepalive();
    void listPage(const QString& method, const QString& key, const QString& cursor, std::shared_ptr<QJsonArray> items,
        std::function<void(const Reply&)> done);

    Options m_options;
    std::unique_ptr<Transport> m_transport;
    ClientResponder* m_responder = nullptr;
    RequestTracker m_tracker;
    State m_state = State::Disconnected;
    ServerDetails m_details;
    QString m_lastError;
    TransportFailure m_lastFailure;
    TransportFailure m_initializeFailure;
    QString m_lastMalformed;
    QHash<IdKey, Pending> m_pending;
    QList<Queued> m_queue;
    QList<ToolInfo> m_tools;
    ToolCallParams m_lastToolCall; ///< callTool()'s
    QList<ToolInfo> m_excludedTools;
    Listen m_listen;
    bool m_modern = false;
    bool m_probing = false;
    bool m_reprobed = false;
    bool m_discoverRetried = false; ///< -32022 naming our version: server/discover is sent once more
    bool m_toolsListed = false;
    int m_toolsListsInFlight = 0;
    bool m_toolsDirty = false;
    QTimer m_keepalive;
    qint64 m_lateResponses = 0;
    qint64 m_malformedLines = 0;
    bool m_trafficForwarded = false;
};

} // namespace mcpscope
