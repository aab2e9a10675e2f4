#include "faultproxy.h"

#include "faultproxyconnection.h"

#include <QNetworkProxy>
#include <QTcpServer>
#include <QTcpSocket>

namespace mcpscope {

namespace {
QString attemptKey(const QString& callId, int attempt)
{
    return callId + u'\n' + QString::number(attempt);
}
} // namespace

FaultProxy::FaultProxy(QUrl upstream, QObject* parent)
    : QObject(parent)
    , m_upstream(std::move(upstream))
    , m_server(new QTcpServer(this))
{
    m_server->setProxy(QNetworkProxy::NoProxy);
    connect(m_server, &QTcpServer::newConnection, this, &FaultProxy::onNewConnection);
}

FaultProxy::~FaultProxy() = default;

bool FaultProxy::listen(quint16 port, QString* error)
{
    if (m_server->isListening()) {
        if (error)
            *error = tr("the fault proxy is already listening on port %1").arg(m_server->serverPort());
        return false;
    }
    if (!m_server->listen(QHostAddress::LocalHost, port)) {
        if (error)
            *error = tr("the fault proxy cannot listen on 127.0.0.1:%1: %2").arg(port).arg(m_server->errorString());
        return false;
    }
    return true;
}

void FaultProxy::close()
{
    m_server->close();
    const auto connections = findChildren<FaultProxyConnection*>(Qt::FindDirectChildrenOnly);
    for (FaultProxyConnection* connection : connections)
        connection->shutdown();
}

bool FaultProxy::isListening() const
{
    return m_server->isListening();
}

QUrl FaultProxy::url() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(port());
    url.setPath(m_upstream.path().isEmpty() ? QStringLiteral("/") : m_upstream.path());
    if (m_upstream.hasQuery())
        url.setQuery(m_upstream.query(QUrl::FullyEncoded), QUrl::StrictMode);
    return url;
}

quint16 FaultProxy::port() const
{
    return m_server->serverPort();
}

bool FaultProxy::isOwnHost(const QByteArray& host, quint16 port)
{
    const QByteArray name = host.trimmed().toLower();
    // On port 80 a client leaves the port out (RFC 9110 §7.2); on any other it must name it.
    const QByteArray suffix = port == 80 ? QByteArray() : ':' + QByteArray::number(port);
    return name == "127.0.0.1" + suffix || name == "localhost" + suffix
        || (port == 80 && (name == "127.0.0.1:80" || name == "localhost:80"));
}

QHostAddress FaultProxy::serverAddress() const
{
    return m_server->serverAddress();
}

void FaultProxy::onNewConnection()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection())
        new FaultProxyConnection(this, socket);
}

void FaultProxy::noteFired(const Fault& fault, const QString& method, const QJsonValue& requestId)
{
    ++m_faultsFired;
    Q_EMIT faultFired(fault, method, requestId);
}

bool FaultProxy::alreadyForwarded(const QString& callId, int attempt) const
{
    return m_forwardedAttempts.contains(attemptKey(callId, attempt));
}

void FaultProxy::noteForwarded(const QString& callId, int attempt)
{
    m_forwardedAttempts.insert(attemptKey(callId, attempt));
}

void FaultProxy::noteDuplicate(const QString& callId, int attempt, const QJsonValue& requestId)
{
    ++m_duplicatesRefused;
    Q_EMIT duplicateRefused(callId, attempt, requestId);
}

void FaultProxy::withholdResponse(const QString& key, const Withheld& withheld)
{
    m_withheld.insert(key, withheld);
}

void FaultProxy::releaseWithheld(const QString& key)
{
    m_withheld.remove(key);
}

std::optional<FaultProxy::Withheld> FaultProxy::takeWithheld(const QString& key)
{
    const auto it = m_withheld.find(key);
    if (it == m_withheld.end())
        return std::nullopt;
    Withheld taken = it.value();
    m_withheld.erase(it);
    // Queued: the stream that found the answer is still relaying its own events.
    if (taken.waiter) {
        const quint64 generation = taken.generation;
        QMetaObject::invokeMethod(
            taken.waiter,
            [waiter = taken.waiter, generation] {
                if (waiter)
                    waiter->onWithheldAnswerSeen(generation);
            },
            Qt::QueuedConnection);
    }
    return taken;
}
} // namespace mcpscope
