#pragma once

#include "session/clientresponder.h"
#include "session/scriptedresponder.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

namespace mcpscope {

class Engine;

/// One request a server sent the client that waits for the user (or one a -32042 error asked for).
struct PendingServerRequest
{
    enum class Kind { Sampling, ElicitationForm, ElicitationUrl };
    enum class State {
        Waiting, ///< nobody answered yet
        AwaitingCompletion, ///< a URL elicitation the user accepted: waits for notifications/elicitation/complete
    };

    quint64 id = 0;
    ServerRequestOrigin origin;
    QString method;
    QJsonObject params;
    QJsonValue requestId; ///< the server's JSON-RPC id (undefined for a -32042 URL)
    qint64 receivedAtMs = 0;
    State state = State::Waiting;
    /// From a tool call's -32042 error: the server waits for nothing, so no answer is sent.
    bool fromError = false;
    /// The call whose error named this URL (fromError only).
    QString errorCallId;
    /// The session's address when the request came, to match it once the session is gone.
    const QObject* sessionKey = nullptr;

    Kind kind() const;
    QString elicitationId() const { return params.value(QLatin1String("elicitationId")).toString(); }
};

/// The app's answer to the requests servers send the client (sampling/createMessage, elicitation/create):
/// each waits in a queue until the user answers it in the server requests panel, unless the server's
/// workspace entry has a canned answer for its method (ServerConfig::autoReply), which is sent at once.
/// roots/list gets the configured roots before it reaches here (ConnectionResponder), otherwise none.
///
/// A request leaves the queue when it is answered, when the server cancels it (notifications/cancelled),
/// when its session ends, or, for an accepted URL elicitation, when notifications/elicitation/complete
/// names it. Nothing is fetched from a URL here; opening one is the panel's job, after consent.
///
/// Signals: added, changed (a URL elicitation now awaits completion) and removed (with why).
class ServerRequestQueue : public QObject, public ClientResponder
{
    Q_OBJECT
public:
    explicit ServerRequestQueue(QObject* parent = nullptr);
    ~ServerRequestQueue() override;

    /// The canned answers of a server (ServerConfig::autoReply), read at each request.
    void setAutoReplies(std::function<QJsonObject(const QString& server)> autoReplies);
    /// Follows the engine's sessions for notifications/elicitation/complete and notifications/cancelled.
    void watch(Engine* engine);

    const QList<PendingServerRequest>& pending() const { return m_pending; }
    const PendingServerRequest* find(quint64 id) const;
    int waitingCount() const;
    int autoAnsweredCount() const { return m_autoAnswered; }

    /// Sends @p result (a CreateMessageResult or an ElicitResult). An accepted URL elicitation stays,
    /// awaiting completion; everything else leaves the queue. False for an unknown id.
    bool answer(quint64 id, const QJsonObject& result);
    /// Sends @p error and removes the request.
    bool reject(quint64 id, const JsonRpcError& error);
    /// Forgets a request without answering: one awaiting completion, or a -32042 URL.
    void dismiss(quint64 id);
    /// A tool call ended with -32042: each URL elicitation in its error data waits for the user's consent.
    void addUrlElicitationsRequired(const ServerRequestOrigin& origin, const QString& callId, const QJsonValue& data);

    /// The error a sampling request the user rejected is answered with (the spec's example: -1).
    static JsonRpcError userRejected();

    QJsonObject capabilities() const override;
    void respond(const JsonRpcMessage& request, Reply reply) override;
    void respondFrom(const ServerRequestOrigin& origin, const JsonRpcMessage& request, Reply reply) override;

Q_SIGNALS:
    void added(quint64 id);
    void changed(quint64 id);
    /// why is empty for a request answered; otherwise "cancelled by the server", "session ended", "completed"
    /// or "dismissed".
    void removed(quint64 id, const QString& why);
    void answeredAutomatically(const QString& server, const QString& method);

private:
    qsizetype indexOf(quint64 id) const;
    void remove(quint64 id, const QString& why);
    void add(PendingServerRequest request, Reply reply);
    void onNotification(const QString& server, const JsonRpcMessage& message);
    void watchSession(const QString& server, QObject* session);

    ScriptedResponder m_scripted; ///< the capabilities, roots and canned answers
    std::function<QJsonObject(const QString&)> m_autoReplies;
    QList<PendingServerRequest> m_pending;
    QHash<quint64, Reply> m_replies;
    quint64 m_nextId = 1;
    int m_autoAnswered = 0;
};

} // namespace mcpscope
