#pragma once

#include "calllog/callrecord.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"
#include "fault/faultproxy.h"
#include "session/clientsession.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QProcess>

#include <functional>
#include <memory>

namespace mcpscope {

class CircuitBreaker;
class FaultProxy;
class Reconnector;

/// Options for one call through the recovery machinery.
struct CallOptions
{
    qint64 timeoutMs = 0; ///< 0: the server's configured request timeout
    std::function<void(const ProgressUpdate&)> onProgress;
};

/// One configured server and its live session, with the recovery machinery of RECOVERY.md:
/// the circuit breaker, the reconnector and the decision table, applied to every call.
///
/// Signals: stateChanged through setState() only; ready when a session finished initialize (and
/// listed its tools); failed with a message naming the server; callUpdated on every change of a
/// call record; actionLogged for every manual action and fired stdio fault.
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

    enum class StdioFault { KillAfterWrite, CloseStdin, Delay };

    explicit ServerConnection(ServerConfig config, QObject* parent = nullptr);
    ~ServerConnection() override;

    const ServerConfig& config() const { return m_config; }
    QString name() const { return m_config.name; }
    /// Replacing the configuration bumps the generation (the routing guard of RECOVERY.md §4 reads it).
    void setConfig(const ServerConfig& config);
    quint64 generation() const { return m_generation; }
    void setResponder(ClientResponder* responder);

    State state() const { return m_state; }
    static QString stateName(State state);
    ClientSession* session() const { return m_session; }
    QString sessionId() const { return m_session ? m_session->sessionId() : QString(); }
    QString lastError() const { return m_lastError; }
    /// The transport in use: for an "auto" server, Streamable HTTP or the legacy SSE it fell back to.
    TransportKind activeTransport() const { return m_activeTransport; }
    CircuitBreaker* breaker() const { return m_breaker; }
    Reconnector* reconnector() const { return m_reconnector; }
    /// Overrides the URL the transport connects to (the embedded fault proxy sits there).
    void setEndpointOverride(const QUrl& url) { m_endpointOverride = url; }
    /// The fault proxy in front of this server, when its configuration asks for one (viaFaultProxy);
    /// created on the first connect.
    FaultProxy* faultProxy() const { return m_proxy; }
    /// The local process started by the configuration's launchCommand, if it is running.
    bool launcherRunning() const;

    void connectToServer();
    void disconnectFromServer();

    /// Sends a request through the recovery machinery; done gets the final record. Returns the call id.
    QString call(const QString& method, const QJsonObject& params, const CallOptions& options,
        std::function<void(const CallRecord&)> done);
    QString callTool(const QString& tool, const QJsonObject& arguments, const CallOptions& options,
        std::function<void(const CallRecord&)> done);

    /// Cancels a call in flight: notifications/cancelled if it went out; it ends as cancelled, never retried.
    bool cancelCall(const QString& callId);

    // Manual actions (RECOVERY.md §8). Each is logged and marked on the timelines of calls in flight.
    /// serverSide: DELETE the session on the server; otherwise forget the id on the client.
    bool expireSession(bool serverSide, QString* error = nullptr);
    void reconnectNow();
    void killTransport();
    void armStdioFault(StdioFault fault, int delayMs = 0);
    void openBreaker();
    void resetBreaker();
    int pendingStdioFaults() const { return int(m_stdioFaults.size()); }
    /// Records a fault or action on the timeline of every call in flight and emits actionLogged.
    void noteEvent(const QString& kind, const QString& text);
    int callsInFlight() const { return int(m_calls.size()); }

Q_SIGNALS:
    void stateChanged(mcpscope::ServerConnection::State state);
    void sessionCreated(mcpscope::ClientSession* session);
    void ready();
    void failed(const QString& message);
    void closed();
    void toolsChanged();
    void serverLog(const QString& line);
    void logMessage(const QString& level, const QString& logger, const QJsonValue& data);
    void traffic(mcpscope::WireDirection direction, const QByteArray& bytes);
    void callUpdated(const mcpscope::CallRecord& record);
    void actionLogged(const QString& kind, const QString& text);

protected:
    void connectNotify(const QMetaMethod& signal) override;

private:
    struct Call;

    void setState(State state);
    void applyBreakerSettings();
    void startSession(TransportKind kind);
    void startLauncher();
    void waitForLauncherPort(int attemptsLeft);
    void stopLauncher();
    void retire(ClientSession* old);
    bool fallBackToLegacySse();
    void onSessionState(ClientSession::State state);
    void reconnectSession(std::function<void(bool, const QString&, const QString&)> done);
    void startAttempt(const std::shared_ptr<Call>& call);
    void onAttemptReply(const std::shared_ptr<Call>& call, const Reply& reply);
    void healThen(const std::shared_ptr<Call>& call, qint64 waitMs, std::function<void(bool healed)> next);
    void finishCall(const std::shared_ptr<Call>& call, CallOutcome outcome);
    void publish(const std::shared_ptr<Call>& call);
    qint64 remainingMs(const Call& call) const;

    ServerConfig m_config;
    quint64 m_generation = 1;
    ClientResponder* m_responder = nullptr;
    QPointer<ClientSession> m_session;
    State m_state = State::Disconnected;
    TransportKind m_activeTransport = TransportKind::Stdio;
    QString m_lastError;
    QUrl m_endpointOverride;
    QPointer<FaultProxy> m_proxy;
    QPointer<QProcess> m_launcher;
    bool m_trafficWatched = false;
    CircuitBreaker* m_breaker = nullptr;
    Reconnector* m_reconnector = nullptr;
    QHash<QString, std::shared_ptr<Call>> m_calls;
    /// The wire exchange of each request just settled, by (session serial, request id key). A
    /// transport reports it right before the answer, so onAttemptReply takes it at once; entries
    /// of requests made outside call() (initialize, tools/list) are dropped in bulk.
    QHash<QPair<quint64, QString>, WireExchange> m_wire;
    quint64 m_sessionSerial = 0;
    /// Keeps this server's credentials out of the wire exchanges call records carry.
    Redactor m_redactor;
    struct ArmedStdioFault
    {
        StdioFault fault;
        int delayMs;
    };
    QList<ArmedStdioFault> m_stdioFaults;
};

} // namespace mcpscope
