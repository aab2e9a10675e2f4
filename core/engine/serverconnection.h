#pragma once

#include "calllog/callrecord.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"
#include "engine/connectionresponder.h"
#include "fault/faultproxy.h"
#include "fault/stdiofault.h"
#include "recovery/retrypolicy.h"
#include "serverauth.h"
#include "session/clientsession.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QTimer;

namespace mcpscope {

class CallRunner;
class CircuitBreaker;
class FaultProxy;
class LocalServerLauncher;
class Reconnector;
class ResponderTap;
class StdioFaultInjector;
class TokenStore;

/// Options for one call through the recovery machinery.
struct CallOptions
{
    qint64 timeoutMs = 0; ///< 0: the server's configured request timeout
    std::function<void(const ProgressUpdate&)> onProgress;
    /// The id of an earlier call this request belongs to: a task's tasks/get, tasks/result or tasks/cancel
    /// after the tools/call that created it (TaskTracker). Such a request runs through the breaker and the
    /// decision table like any other, and done gets its record, but the record is not published
    /// (callUpdated): it is not a call of its own in the calls log, and its attempts are not the creating
    /// call's attempts. TaskTracker puts what it learned on the creating call's timeline instead.
    QString partOfCall;
};

/// One configured server and its live session, with the recovery machinery of RECOVERY.md:
/// the circuit breaker, the reconnector and the decision table, applied to every call (each call
/// runs in a CallRunner of its own).
///
/// Signals: stateChanged through setState() only; ready when a session finished initialize (and
/// listed its tools); failed with a message naming the server; callUpdated on every change of a
/// call record; actionLogged for every manual action and fired stdio fault; serverLog for the server's
/// own output (stdio stderr, a launch command's output); notice for McpScope's own word about the
/// server (a transport fallback, an authorization), which is never the server's output.
///
/// A start that fails (initialize never finished, or a launch command exited before listening) ends
/// its message with the last lines of the server's output, redacted: what a developer looks for first.
class ServerConnection : public QObject
{
    Q_OBJECT
public:
    enum class State {
        Disconnected,
        Connecting,
        Initializing,
        Ready,
        Suspect,
        Reconnecting,
        Parked,
        NeedsAuth,
        Failed,
        Closed
    };
    Q_ENUM(State)

    explicit ServerConnection(ServerConfig config, QObject* parent = nullptr);
    ~ServerConnection() override;

    const ServerConfig& config() const { return m_config; }
    /// The replay policy this server's config asks for: what the engine decides with and what the
    /// tools table and the CLI show as "on expiry".
    PolicySettings policy() const
    {
        return PolicySettings { m_config.idempotentReplay, m_config.era == ProtocolEra::Auto };
    }
    QString name() const { return m_config.name; }
    /// Replacing the configuration bumps the generation (the routing guard of RECOVERY.md §4 reads it).
    void setConfig(const ServerConfig& config);
    quint64 generation() const { return m_generation; }
    void setResponder(ClientResponder* responder);
    /// Whether call records carry each attempt's wire exchange (the default). A load whose records
    /// nobody keeps turns it off: no copy of each request and answer line, no secret scan of them.
    void setRecordsWire(bool on);
    /// An MRTR input request (2026-07-28) of the call callId, answered as the server's own requests are: the
    /// connection's roots, else the engine's responder (the panels, the CLI's script), told which call asks.
    void answerInputRequest(const QString& callId, const JsonRpcMessage& request, ClientResponder::Reply reply);
    /// R13 (RECOVERY.md §9): the server answered in the other era, so the era it was cached as is forgotten
    /// and the next session probes it again (only in era auto; a fixed era is the user's word).
    void forgetEra();
    /// Makes this connection redact with redactor (the engine's, shared by all its servers) and teaches
    /// it this server's secrets.
    void shareRedactor(std::shared_ptr<Redactor> redactor);

    State state() const { return m_state; }
    /// The stable name of a state ("needs_auth"), as logs and the CLI print it.
    static QString stateName(State state);
    ClientSession* session() const { return m_session; }
    QString sessionId() const { return m_session ? m_session->sessionId() : QString(); }
    /// The session id to show a person: the one the server assigned, empty without a live session
    /// (a failed start) or when the server assigns none.
    QString shownSessionId() const;
    QString lastError() const { return m_lastError; }
    /// The transport in use: for an "auto" server, Streamable HTTP or the legacy SSE it fell back to.
    TransportKind activeTransport() const { return m_activeTransport; }
    CircuitBreaker* breaker() const { return m_breaker; }
    /// The policy in force (idempotentReplay, breaker settings), as each call's record keeps it.
    const QJsonObject& recordPolicy() const { return m_recordPolicy; }
    Reconnector* reconnector() const { return m_reconnector; }
    /// Overrides the URL the transport connects to (the embedded fault proxy sits there).
    void setEndpointOverride(const QUrl& url) { m_endpointOverride = url; }
    /// The fault proxy in front of this server, when its configuration asks for one (viaFaultProxy);
    /// created on the first connect.
    FaultProxy* faultProxy() const { return m_proxy; }
    /// An HTTP server's OAuth (issue 13): tokens from store, flows that open a browser or not. Without it a
    /// 401 only reconnects. The engine calls this for every HTTP server it adds.
    void enableAuth(
        std::shared_ptr<TokenStore> store, ServerAuth::Browser browser, ServerAuth::OptionsAdjuster adjust = {});
    /// The server's OAuth, or null (stdio, or auth not enabled).
    ServerAuth* auth() const { return m_auth; }
    /// The challenge of the last initialize that needed credentials (what a call waiting in NeedsAuth joins).
    const TransportFailure& authChallenge() const { return m_authChallenge; }
    /// The local process started by the configuration's launchCommand, if it is running.
    bool launcherRunning() const;

    void connectToServer();
    void disconnectFromServer();

    /// Sends a request through the recovery machinery; done gets the final record. Returns the call id.
    QString call(const QString& method, const QJsonObject& params, const CallOptions& options,
        std::function<void(const CallRecord&)> done);
    /// call() of tools/call, with the last params while tool and arguments stay equal (ToolCallParams).
    QString callTool(const QString& tool, const QJsonObject& arguments, const CallOptions& options,
        std::function<void(const CallRecord&)> done)
    {
        return call(QStringLiteral("tools/call"), m_lastToolCall.of(tool, arguments), options, std::move(done));
    }

    /// Cancels a call in flight: notifications/cancelled if it went out; it ends as cancelled, never retried.
    bool cancelCall(const QString& callId);
    /// McpScope is stopping: no background reconnect starts any more, and every call in flight ends now
    /// as interrupted (CallRunner::interrupt), its final record published through callUpdated. With
    /// tellCallers false their done callbacks are dropped (an owner being destroyed).
    void interruptCalls(bool tellCallers = true);

    // Manual actions (RECOVERY.md §8). Each is logged and marked on the timelines of calls in flight.
    /// serverSide: DELETE the session on the server; otherwise forget the id on the client.
    bool expireSession(bool serverSide, QString* error = nullptr);
    void reconnectNow();
    void killTransport();
    void armStdioFault(StdioFault fault, int delayMs = 0);
    void openBreaker();
    void resetBreaker();
    int pendingStdioFaults() const;
    /// Records a fault or action on the timeline of every call in flight and emits actionLogged.
    void noteEvent(const QString& kind, const QString& text);
    /// Records an event on the timeline of every call in flight only (a server request and its answer).
    void noteOnCalls(const QString& kind, const QString& text);
    int callsInFlight() const { return int(m_calls.size()); }

Q_SIGNALS:
    void stateChanged(mcpscope::ServerConnection::State state);
    void sessionCreated(mcpscope::ClientSession* session);
    void ready();
    void failed(const QString& message);
    void closed();
    void toolsChanged();
    void serverLog(const QString& line);
    void notice(const QString& text);
    void logMessage(const QString& level, const QString& logger, const QJsonValue& data);
    void traffic(mcpscope::WireDirection direction, const QByteArray& bytes);
    void callUpdated(const mcpscope::CallRecord& record);
    void actionLogged(const QString& kind, const QString& text);
    /// The era probe found a server's era (auto): the workspace keeps it, so the next start skips the probe.
    void eraDetected(mcpscope::ProtocolEra era);
    /// A secret learned at run time (an OAuth token): the engine's redactor must know it.
    void secretLearned(const QString& value);

protected:
    void connectNotify(const QMetaMethod& signal) override;

private:
    void setState(State state);
    /// Records the error, enters Failed and emits failed.
    void fail(const QString& message);
    /// One line of the server's output: kept for a failed start's message, then emitted as serverLog.
    void takeOutput(const QString& line);
    /// message, then the last lines of the server's output (redacted), if there are any.
    QString withOutputTail(const QString& message) const;
    /// The breaker's settings and recordPolicy() from the configuration.
    void applyBreakerSettings();
    void startSession(TransportKind kind);
    void retire(ClientSession* old);
    bool fallBackToLegacySse();
    QString m_inputRequestCall; ///< the call an MRTR input request being handed on belongs to
    /// Keeps the era a probe found (auto) and says so once it changed.
    void noteEra(const ClientSession* session);
    /// A start with a cached era failed: forget it and probe again (MCP-NOTES.md). False when there was none.
    bool reprobeEra();
    /// The message of a failed legacy-SSE fallback names both attempts (their URL and status).
    QString describeFallbackFailure(const QString& message) const;
    void onSessionState(ClientSession::State state);
    void reconnectSession(std::function<void(bool, const QString&, const QString&)> done);
    /// The ready session's first tools/list ended: Q_EMIT ready(), and end the reconnect waiting for it.
    void onToolsListed(ClientSession* session, const Reply& reply);
    /// A CallRunner's call ends: it is no longer in flight.
    void forgetCall(const QString& callId)
    {
        m_calls.remove(callId);
        m_partOf.remove(callId);
    }
    /// A finished CallRunner waits to be deleted by a timer, when no runner's code is running
    /// (CallRunner::onStack), not by deleteLater: each posted event wakes the event loop, an eventfd
    /// write, a poll and a read that were three of a stdio call's seven syscalls.
    void retireRunner(CallRunner* runner);
    void reapRunners();
    friend class CallRunner;
    /// initialize ended for want of credentials: authorize, then connect again. False when it cannot.
    bool authorizeInitialize(const QString& message);

    ServerConfig m_config;
    QJsonObject m_recordPolicy;
    quint64 m_generation = 1;
    ConnectionResponder m_responder { &m_config };
    std::unique_ptr<ResponderTap> m_tap; ///< between m_responder and the engine's responder
    QPointer<ClientSession> m_session;
    State m_state = State::Disconnected;
    TransportKind m_activeTransport = TransportKind::Stdio;
    int m_fallbackStatus = 0; ///< the Streamable HTTP initialize's status that made us try legacy SSE
    QString m_lastError;
    QStringList m_outputTail; ///< the last lines of the server's output since its process started
    QUrl m_endpointOverride;
    QPointer<FaultProxy> m_proxy;
    LocalServerLauncher* m_launcher = nullptr;
    bool m_trafficWatched = false;
    bool m_recordsWire = true;
    CircuitBreaker* m_breaker = nullptr;
    Reconnector* m_reconnector = nullptr;
    QHash<QString, CallRunner*> m_calls;
    ToolCallParams m_lastToolCall; ///< callTool()'s
    std::vector<CallRunner*> m_retiredRunners;
    QTimer* m_runnerReaper = nullptr; ///< reaps the retired runners (retireRunner)
    QHash<QString, QString> m_partOf; ///< a task poll's call id → the call that created the task
    /// Keeps this server's credentials out of the wire exchanges call records carry.
    std::shared_ptr<Redactor> m_redactor = std::make_shared<Redactor>();
    StdioFaultInjector* m_stdioFaults = nullptr;
    ServerAuth* m_auth = nullptr;
    int m_initializeAuthorizations = 0;
    TransportFailure m_authChallenge; ///< since the last ready session (MCP-NOTES "Authorization" §8: 3)
    /// A reconnect waiting for its session's first tool list (the one every ready session sends).
    struct ReconnectWait
    {
        QPointer<ClientSession> session;
        std::function<void(const Reply&)> listed;
    };
    ReconnectWait m_reconnectWait;
};

} // namespace mcpscope
