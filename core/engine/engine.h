#pragma once

#include "config/serverconfig.h"
#include "serverconnection.h"

#include <QJsonArray>
#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>

namespace mcpscope {

class TaskTracker;

/// Owns one ServerConnection per configured server; any number may be live at once, and is the one
/// entry point for every request the app and the CLI make (call()).
///
/// Signals: serverAdded / serverRemoved when the set of servers changes; callUpdated, traffic,
/// serverLog, notice, logMessage and actionLogged re-emit those of every connection, named by server, so the
/// models and stores follow the engine and never a connection.
class Engine : public QObject
{
    Q_OBJECT
public:
    explicit Engine(QObject* parent = nullptr);
    ~Engine() override;

    ServerConnection* addServer(const ServerConfig& config);
    void removeServer(const QString& name);
    ServerConnection* connection(const QString& name) const;
    const QList<ServerConnection*>& connections() const { return m_connections; }
    void setResponder(ClientResponder* responder);

    /// Sends any request (tools/call, resources/read, ping, …) to the named server through its call
    /// record, breaker and decision table. done gets the final record; an unknown server ends at once
    /// as not dispatched, with an error that names it. Returns the call id.
    QString call(const QString& server, const QString& method, const QJsonObject& params, const CallOptions& options,
        std::function<void(const CallRecord&)> done);

    /// Pages through a list method (tools/list, resources/list, prompts/list, …) with one call() per
    /// page, each with its own record. done gets the last page's record with the items of every page
    /// under key and no nextCursor, or the first record that did not succeed.
    void list(const QString& server, const QString& method, const QString& key, const CallOptions& options,
        std::function<void(const CallRecord&)> done);

    /// Connects every server, in order; stdio servers start a few per event-loop pass.
    void connectAll();

    /// Follows the tasks servers create for task-augmented tools/call (2025-11-25): one tracker per engine.
    TaskTracker* tasks() const { return m_tasks; }
    /// A finished call's record changed after its runner ended (a task's status and result, TaskTracker):
    /// published through callUpdated like any change, so the calls log holds one record per call.
    void updateFinishedCall(const CallRecord& record) { Q_EMIT callUpdated(record); }

    /// Where OAuth tokens and client secrets are kept (issue 13). Unset, the first HTTP server makes the
    /// engine use TokenStore::createDefault(): the keychain, or a memory-only store with a warning.
    void setTokenStore(std::shared_ptr<TokenStore> store);
    std::shared_ptr<TokenStore> tokenStore();
    /// How an authorization-code flow reaches the user: External opens a browser (the app, the CLI's
    /// default), None performs the authorization request itself (`--auth-browser none`, the conformance
    /// mock). Applies to servers added from then on.
    void setAuthBrowser(ServerAuth::Browser browser) { m_authBrowser = browser; }
    void setAuthOptionsAdjuster(ServerAuth::OptionsAdjuster adjust) { m_authAdjust = std::move(adjust); }

    /// The one redactor of this engine: every server's secrets, and those added since. Every record,
    /// wire message, log line and text the engine emits has passed through it.
    const Redactor& redactor() const { return *m_redactor; }
    /// A secret learned at run time (a token obtained by OAuth), as sent in a header ("Bearer abc").
    void addCredential(const QString& value);
    /// For the app and the CLI as they stop (quit, window closed, SIGTERM): every call in flight ends
    /// now as interrupted, with its final record on callUpdated and to its done, so a log that follows
    /// the engine holds it before the process exits. A call made from then on ends at once as
    /// interrupted and not dispatched, and no server reconnects in the background. The destructor
    /// ends what is left the same way, but publishes only: a caller may be gone with the owner.
    void shutDown();
    bool isShuttingDown() const { return m_shuttingDown; }

Q_SIGNALS:
    void serverAdded(mcpscope::ServerConnection* connection);
    void serverRemoved(const QString& name);
    void callUpdated(const mcpscope::CallRecord& record);
    void traffic(const QString& server, mcpscope::WireDirection direction, const QByteArray& bytes);
    void serverLog(const QString& server, const QString& line);
    /// McpScope's own word about a server (ServerConnection::notice), redacted: never labelled stderr.
    void notice(const QString& server, const QString& text);
    void logMessage(const QString& server, const QString& level, const QString& logger, const QJsonValue& data);
    void actionLogged(const QString& server, const QString& kind, const QString& text);
    /// The redactor learned a secret: stores holding a copy of it take the new one.
    void redactorChanged();

protected:
    /// The first listener of traffic: every connection's wire is forwarded from then on.
    void connectNotify(const QMetaMethod& signal) override;

private:
    /// Forwards connection's wire, redacted, as traffic.
    void forwardTraffic(ServerConnection* connection);

    void listPage(const QString& server, const QString& method, const QString& key, const QString& cursor,
        std::shared_ptr<QJsonArray> items, const CallOptions& options, std::function<void(const CallRecord&)> done);

    void interruptCalls(bool tellCallers);
    /// A call that ends before reaching a server: published, then handed to done.
    QString endAtOnce(const QString& server, const QString& method, const QJsonObject& params, CallOutcome outcome,
        const QString& message, std::function<void(const CallRecord&)> done);

    /// connectAll's servers not started yet: they start in passes of ConnectPassMs.
    void connectQueued();
    static constexpr qint64 ConnectPassMs = 5;

    QList<ServerConnection*> m_connections;
    QList<QPointer<ServerConnection>> m_connectQueue;
    bool m_connectPassQueued = false;
    ClientResponder* m_responder = nullptr;
    std::shared_ptr<Redactor> m_redactor = std::make_shared<Redactor>();
    bool m_shuttingDown = false;
    // traffic has a listener: until then nothing is copied or scanned for secrets per message (the
    // CLI never listens, and a load runs tens of thousands of calls a second).
    bool m_trafficWatched = false;
    std::shared_ptr<TokenStore> m_tokenStore;
    ServerAuth::Browser m_authBrowser = ServerAuth::Browser::None;
    ServerAuth::OptionsAdjuster m_authAdjust;
    TaskTracker* m_tasks = nullptr;
};

} // namespace mcpscope
