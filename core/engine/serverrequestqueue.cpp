#include "serverrequestqueue.h"

#include "engine/engine.h"
#include "session/clientsession.h"

#include <QDateTime>
#include <QJsonArray>

namespace mcpscope {

namespace {

const QLatin1String Sampling("sampling/createMessage");
const QLatin1String Elicitation("elicitation/create");

bool isUrlMode(const QJsonObject& params)
{
    return params.value(QLatin1String("mode")).toString() == QLatin1String("url");
}

} // namespace

PendingServerRequest::Kind PendingServerRequest::kind() const
{
    if (method == Sampling)
        return Kind::Sampling;
    return isUrlMode(params) ? Kind::ElicitationUrl : Kind::ElicitationForm;
}

ServerRequestQueue::ServerRequestQueue(QObject* parent)
    : QObject(parent)
{ }

ServerRequestQueue::~ServerRequestQueue()
{
    // Whoever still waits is told no, rather than left hanging until its timeout.
    const QList<quint64> ids = m_replies.keys();
    for (quint64 id : ids) {
        if (Reply reply = m_replies.take(id))
            reply({}, JsonRpcError { -1, tr("McpScope closed before the request was answered"), {} });
    }
}

void ServerRequestQueue::setAutoReplies(std::function<QJsonObject(const QString&)> autoReplies)
{
    m_autoReplies = std::move(autoReplies);
}

void ServerRequestQueue::watch(Engine* engine)
{
    auto follow = [this](ServerConnection* connection) {
        const QString server = connection->config().name;
        connect(connection, &ServerConnection::sessionCreated, this,
            [this, server](ClientSession* session) { watchSession(server, session); });
        if (connection->session())
            watchSession(server, connection->session());
    };
    connect(engine, &Engine::serverAdded, this, follow);
    // A tool call that ended with -32042 names the URLs the server needs visited; they wait for consent here.
    connect(engine, &Engine::callUpdated, this, [this](const CallRecord& record) {
        if (record.isFinished()
            && record.error.value(QLatin1String("code")).toInteger() == ErrorCode::UrlElicitationRequired) {
            ServerRequestOrigin origin;
            origin.server = record.server;
            origin.callIds = { record.callId };
            addUrlElicitationsRequired(origin, record.callId, record.error.value(QLatin1String("data")));
        }
    });
    for (ServerConnection* connection : engine->connections())
        follow(connection);
}

void ServerRequestQueue::watchSession(const QString& server, QObject* object)
{
    auto* session = qobject_cast<ClientSession*>(object);
    if (!session)
        return;
    connect(session, &ClientSession::notificationReceived, this,
        [this, server](const JsonRpcMessage& message) { onNotification(server, message); });
    // QPointer is null by the time destroyed() fires: compare the address the entries were made with.
    connect(session, &QObject::destroyed, this, [this, object]() {
        QList<quint64> gone;
        for (const PendingServerRequest& request : std::as_const(m_pending))
            if (!request.fromError && request.origin.session.isNull() && request.sessionKey == object)
                gone.append(request.id);
        for (quint64 id : std::as_const(gone))
            remove(id, tr("session ended"));
    });
}

void ServerRequestQueue::onNotification(const QString& server, const JsonRpcMessage& message)
{
    QList<quint64> gone;
    QString why;
    if (message.method == QLatin1String("notifications/cancelled")) {
        const QJsonValue requestId = message.params.value(QLatin1String("requestId"));
        for (const PendingServerRequest& request : std::as_const(m_pending))
            if (request.origin.server == server && !request.fromError && request.requestId == requestId)
                gone.append(request.id);
        const QString reason = message.params.value(QLatin1String("reason")).toString();
        why = reason.isEmpty() ? tr("cancelled by the server") : tr("cancelled by the server: %1").arg(reason);
    } else if (message.method == QLatin1String("notifications/elicitation/complete")) {
        const QString elicitationId = message.params.value(QLatin1String("elicitationId")).toString();
        // One still waiting for the user keeps waiting: the server asked a question that needs its answer.
        for (const PendingServerRequest& request : std::as_const(m_pending))
            if (request.origin.server == server && !elicitationId.isEmpty() && request.elicitationId() == elicitationId
                && (request.state == PendingServerRequest::State::AwaitingCompletion || request.fromError))
                gone.append(request.id);
        why = tr("completed");
    }
    for (quint64 id : std::as_const(gone)) {
        m_replies.remove(id); // a cancelled request gets no answer (the spec: the receiver should not respond)
        remove(id, why);
    }
}

const PendingServerRequest* ServerRequestQueue::find(quint64 id) const
{
    const qsizetype index = indexOf(id);
    return index < 0 ? nullptr : &m_pending.at(index);
}

qsizetype ServerRequestQueue::indexOf(quint64 id) const
{
    for (qsizetype i = 0; i < m_pending.size(); ++i)
        if (m_pending.at(i).id == id)
            return i;
    return -1;
}

int ServerRequestQueue::waitingCount() const
{
    return int(std::count_if(m_pending.cbegin(), m_pending.cend(),
        [](const PendingServerRequest& request) { return request.state == PendingServerRequest::State::Waiting; }));
}

void ServerRequestQueue::remove(quint64 id, const QString& why)
{
    const qsizetype index = indexOf(id);
    if (index < 0)
        return;
    m_pending.removeAt(index);
    m_replies.remove(id);
    Q_EMIT removed(id, why);
}

bool ServerRequestQueue::answer(quint64 id, const QJsonObject& result)
{
    const qsizetype index = indexOf(id);
    if (index < 0)
        return false;
    PendingServerRequest& request = m_pending[index];
    if (Reply reply = m_replies.take(id))
        reply(result, std::nullopt);
    const bool accepted = result.value(QLatin1String("action")).toString() == QLatin1String("accept");
    if (request.kind() == PendingServerRequest::Kind::ElicitationUrl && accepted
        && request.state == PendingServerRequest::State::Waiting) {
        request.state = PendingServerRequest::State::AwaitingCompletion;
        Q_EMIT changed(id);
        return true;
    }
    remove(id, {});
    return true;
}

bool ServerRequestQueue::reject(quint64 id, const JsonRpcError& error)
{
    if (indexOf(id) < 0)
        return false;
    if (Reply reply = m_replies.take(id))
        reply({}, error);
    remove(id, {});
    return true;
}

void ServerRequestQueue::dismiss(quint64 id)
{
    if (Reply reply = m_replies.take(id))
        reply({}, JsonRpcError { -1, tr("The user dismissed the request"), {} });
    remove(id, tr("dismissed"));
}

void ServerRequestQueue::addUrlElicitationsRequired(
    const ServerRequestOrigin& origin, const QString& callId, const QJsonValue& data)
{
    const QJsonArray elicitations = data.toObject().value(QLatin1String("elicitations")).toArray();
    for (const QJsonValue& value : elicitations) {
        const QJsonObject params = value.toObject();
        if (!isUrlMode(params) || params.value(QLatin1String("url")).toString().isEmpty())
            continue;
        bool known = false; // the same -32042 shown twice (a record re-read) queues its URL once
        for (const PendingServerRequest& request : std::as_const(m_pending))
            known = known || (request.fromError && request.errorCallId == callId && request.params == params);
        if (known)
            continue;
        PendingServerRequest request;
        request.origin = origin;
        request.method = Elicitation;
        request.params = params;
        request.fromError = true;
        request.errorCallId = callId;
        add(std::move(request), {});
    }
}

void ServerRequestQueue::add(PendingServerRequest request, Reply reply)
{
    request.id = m_nextId++;
    request.receivedAtMs = QDateTime::currentMSecsSinceEpoch();
    request.sessionKey = request.origin.session.data();
    const quint64 id = request.id;
    m_pending.append(std::move(request));
    if (reply)
        m_replies.insert(id, std::move(reply));
    Q_EMIT added(id);
}

JsonRpcError ServerRequestQueue::userRejected()
{
    return JsonRpcError { -1, QStringLiteral("User rejected sampling request"), {} };
}

QJsonObject ServerRequestQueue::capabilities() const
{
    return m_scripted.capabilities();
}

void ServerRequestQueue::respond(const JsonRpcMessage& request, Reply reply)
{
    respondFrom({}, request, std::move(reply));
}

void ServerRequestQueue::respondFrom(const ServerRequestOrigin& origin, const JsonRpcMessage& request, Reply reply)
{
    if (request.method != Sampling && request.method != Elicitation) {
        m_scripted.respond(request, std::move(reply)); // roots/list without configured roots: none
        return;
    }
    const QJsonObject script = m_autoReplies ? m_autoReplies(origin.server) : QJsonObject();
    const QString key = request.method == Sampling ? QStringLiteral("sampling") : QStringLiteral("elicitation");
    if (script.value(key).isObject()) {
        ++m_autoAnswered;
        if (request.method == Elicitation && isUrlMode(request.params)) {
            // A URL is never opened unattended: the canned answer says only whether to go ahead.
            QJsonObject answer = ScriptedResponder::elicitationResult(script, request.params);
            answer.remove(QLatin1String("content"));
            reply(answer, std::nullopt);
        } else {
            ScriptedResponder(script).respond(request, std::move(reply));
        }
        Q_EMIT answeredAutomatically(origin.server, request.method);
        return;
    }
    PendingServerRequest pending;
    pending.origin = origin;
    pending.method = request.method;
    pending.params = request.params;
    pending.requestId = request.id;
    add(std::move(pending), std::move(reply));
}

} // namespace mcpscope
