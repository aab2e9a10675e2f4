#include "clientsession.h"

#include <QJsonArray>

#include <algorithm>

namespace mcpscope {

// 2026-07-28: subscriptions/listen (MCP-NOTES.md). One long-lived request per session whose response
// stream carries the notifications its filter asks for: the list_changed kinds the server declares,
// and the resources the user subscribed to. It replaces the legacy GET stream and resources/subscribe:
// a resources/subscribe or unsubscribe the app or the CLI sends is answered here, once the server
// acknowledged a listen whose filter has the new set of resources. A stream that drops is listened to
// again with backoff; a graceful end (the empty result) or a refusal ends it.

namespace {
// A listen has no deadline of its own: it ends when the server or the user ends it.
constexpr qint64 ListenTimeoutMs = qint64(1) << 50;
constexpr int ListenTries = 8;
constexpr int FirstBackoffMs = 500;
constexpr int MaxBackoffMs = 15000;

bool declares(const QJsonObject& capabilities, const char* kind, const char* flag)
{
    return capabilities.value(QLatin1String(kind)).toObject().value(QLatin1String(flag)).toBool();
}

/// The statuses after which listening again cannot help (issue 16: no retry after 400/403/404/405).
bool refusedOverHttp(int status)
{
    return status == 400 || status == 403 || status == 404 || status == 405;
}
} // namespace

bool ClientSession::handledLocally(const JsonRpcMessage& message)
{
    return refusedAsLegacyOnly(message) || subscribedThroughListen(message);
}

bool ClientSession::subscribedThroughListen(const JsonRpcMessage& message)
{
    const bool subscribe = message.method == QLatin1String("resources/subscribe");
    if (!subscribe && message.method != QLatin1String("resources/unsubscribe"))
        return false;
    const QString uri = message.params.value(QLatin1String("uri")).toString();
    const bool changes = subscribe ? !m_listen.uris.contains(uri) : m_listen.uris.contains(uri);
    m_listen.waiting.append(message.id);
    if (!changes && (m_listen.acknowledged || m_listen.id.isNull())) {
        answerListenWaiting({});
        return true;
    }
    if (subscribe)
        m_listen.uris.insert(uri);
    else
        m_listen.uris.remove(uri);
    m_listen.tries = 0;
    startListening();
    return true;
}

QJsonObject ClientSession::listenFilter() const
{
    QJsonObject filter;
    const QJsonObject& caps = m_details.capabilities;
    if (declares(caps, "tools", "listChanged"))
        filter.insert(QStringLiteral("toolsListChanged"), true);
    if (declares(caps, "prompts", "listChanged"))
        filter.insert(QStringLiteral("promptsListChanged"), true);
    if (declares(caps, "resources", "listChanged"))
        filter.insert(QStringLiteral("resourcesListChanged"), true);
    if (!m_listen.uris.isEmpty()) {
        QStringList uris(m_listen.uris.cbegin(), m_listen.uris.cend());
        uris.sort();
        filter.insert(QStringLiteral("resourceSubscriptions"), QJsonArray::fromStringList(uris));
    }
    return filter;
}

void ClientSession::startListening()
{
    if (!m_modern || m_state != State::Ready)
        return;
    ++m_listen.generation;
    const QJsonObject filter = listenFilter();
    // The stream it replaces stays open until the new one is acknowledged: no update falls in between.
    if (!m_listen.previous.isNull())
        cancel(std::exchange(m_listen.previous, QJsonValue()), tr("replaced by a newer subscriptions/listen"));
    m_listen.previous = std::exchange(m_listen.id, QJsonValue());
    m_listen.acknowledged = false;
    if (filter.isEmpty()) {
        if (!m_listen.previous.isNull())
            cancel(std::exchange(m_listen.previous, QJsonValue()), tr("nothing left to listen for"));
        answerListenWaiting({});
        return;
    }
    const QJsonValue id = m_tracker.nextId();
    m_listen.id = id;
    Pending pending;
    pending.method = Modern::Listen;
    pending.done = [this](const Reply& reply) { onListenEnded(reply); };
    m_pending.insert(idKey(id), std::move(pending));
    RequestOptions options;
    options.timeoutMs = ListenTimeoutMs;
    options.maxTotalMs = ListenTimeoutMs;
    dispatch(JsonRpcMessage::request(id, Modern::Listen, { { QStringLiteral("notifications"), filter } }), options);
}

bool ClientSession::acceptedFromListen(const JsonRpcMessage& notification)
{
    const QJsonValue sid
        = notification.params.value(QLatin1String("_meta")).toObject().value(Modern::SubscriptionIdKey);
    if (sid.isUndefined())
        return true;
    const IdKey key = idKey(sid);
    const bool current = !m_listen.id.isNull() && key == idKey(m_listen.id);
    if (notification.method == Modern::Acknowledged && current) {
        m_listen.acknowledged = true;
        m_listen.tries = 0;
        if (!m_listen.previous.isNull())
            cancel(std::exchange(m_listen.previous, QJsonValue()), tr("replaced by a newer subscriptions/listen"));
        answerListenWaiting({});
    }
    // Routed by subscriptionId: a stream McpScope no longer listens to is not heard.
    return current || (!m_listen.previous.isNull() && key == idKey(m_listen.previous));
}

void ClientSession::onListenEnded(const Reply& reply)
{
    const IdKey key = idKey(reply.id);
    if (!m_listen.previous.isNull() && key == idKey(m_listen.previous)) {
        m_listen.previous = QJsonValue();
        return;
    }
    if (m_listen.id.isNull() || key != idKey(m_listen.id))
        return;
    m_listen.id = QJsonValue();
    m_listen.acknowledged = false;
    if (m_state != State::Ready || reply.status == Reply::Status::Cancelled) {
        answerListenWaiting(tr("the session with '%1' ended").arg(m_options.serverName));
        return;
    }
    QString end;
    if (reply.ok()) {
        end = tr("Server '%1' ended subscriptions/listen (complete): no more notifications until you subscribe again.")
                  .arg(m_options.serverName);
        m_listen.uris.clear();
    } else if (reply.status == Reply::Status::RpcError) {
        end = tr("Server '%1' refused subscriptions/listen: error %2: %3")
                  .arg(m_options.serverName)
                  .arg(reply.error.code)
                  .arg(reply.error.message);
    } else if (refusedOverHttp(reply.failure.httpStatus)) {
        end = tr("Server '%1' refused subscriptions/listen with HTTP %2: not listening again.")
                  .arg(m_options.serverName)
                  .arg(reply.failure.httpStatus);
    } else if (m_listen.tries >= ListenTries) {
        end = tr("The subscriptions/listen stream of '%1' dropped %2 times in a row: not listening again (%3).")
                  .arg(m_options.serverName)
                  .arg(ListenTries)
                  .arg(reply.describe());
    }
    if (!end.isEmpty()) {
        Q_EMIT notice(end);
        answerListenWaiting(end);
        return;
    }
    const int delay = std::min(MaxBackoffMs, FirstBackoffMs << m_listen.tries);
    ++m_listen.tries;
    Q_EMIT notice(tr("The subscriptions/listen stream of '%1' dropped (%2): listening again in %3 ms (try %4 of %5).")
                      .arg(m_options.serverName, reply.describe())
                      .arg(delay)
                      .arg(m_listen.tries)
                      .arg(ListenTries));
    const int generation = m_listen.generation;
    QTimer::singleShot(delay, this, [this, generation] {
        if (generation == m_listen.generation && m_listen.id.isNull())
            startListening();
    });
}

void ClientSession::answerListenWaiting(const QString& failure)
{
    for (const QJsonValue& id : std::exchange(m_listen.waiting, {})) {
        const IdKey key = idKey(id);
        Reply reply;
        reply.id = id;
        reply.method = m_pending.value(key).method;
        if (failure.isEmpty()) {
            reply.status = Reply::Status::Ok;
            reply.result = QJsonObject();
        } else {
            reply.status = Reply::Status::Failed;
            reply.failure.event = TransportEvent::NotSent;
            reply.failure.message = tr("%1 through subscriptions/listen failed: %2").arg(reply.method, failure);
        }
        finish(key, reply);
    }
}

} // namespace mcpscope
