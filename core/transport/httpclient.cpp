#include "httpclient.h"

#include "httpconnection.h"

#include <QDateTime>
#include <QNetworkProxy>
#include <QNetworkProxyFactory>
#include <QTimer>

#include <climits>

namespace mcpscope {

namespace {

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

constexpr int MaxIdlePerOrigin = 32;

/// The proxy for url, as the environment says (http_proxy, https_proxy, no_proxy), the way
/// Qt's network access manager with the system configuration chose it before.
QNetworkProxy proxyFor(const QUrl& url)
{
    const QList<QNetworkProxy> proxies = QNetworkProxyFactory::systemProxyForQuery(QNetworkProxyQuery(url));
    for (const QNetworkProxy& proxy : proxies) {
        if (proxy.type() == QNetworkProxy::HttpProxy || proxy.type() == QNetworkProxy::Socks5Proxy)
            return proxy;
        if (proxy.type() == QNetworkProxy::NoProxy)
            break;
    }
    return QNetworkProxy(QNetworkProxy::NoProxy);
}

QString originKey(const QUrl& url, bool tlsVerify, const QNetworkProxy& proxy)
{
    return url.scheme() + QStringLiteral("://") + url.host() + QLatin1Char(':') + QString::number(HttpUrl::portOf(url))
        + (tlsVerify ? QString() : QStringLiteral("#noverify"))
        + (proxy.type() == QNetworkProxy::NoProxy
                ? QString()
                : QStringLiteral("@") + proxy.hostName() + QLatin1Char(':') + QString::number(proxy.port()));
}

} // namespace

HttpReply::HttpReply(HttpClient* client, HttpRequest request)
    : QObject(client)
    , m_client(client)
    , m_request(std::move(request))
    , m_url(m_request.url)
{
    m_evidence.startedAt = now();
    if (m_request.timeoutMs > 0) {
        QTimer::singleShot(std::min<qint64>(m_request.timeoutMs, INT_MAX), this, [this] {
            if (m_finished)
                return;
            if (m_connection)
                m_connection->drop();
            finish(HttpClientError::Timeout, tr("no complete response within %1 ms").arg(m_request.timeoutMs));
        });
    }
}

HttpReply::~HttpReply()
{
    if (m_connection)
        m_connection->drop();
}

void HttpReply::abort()
{
    if (m_finished)
        return;
    if (m_connection)
        m_connection->drop();
    m_finished = true;
    m_evidence.error = HttpClientError::Aborted;
    m_evidence.errorString = tr("aborted");
    m_evidence.endedAt = now();
    QMetaObject::invokeMethod(
        this, [this] { Q_EMIT finished(); }, Qt::QueuedConnection);
}

void HttpReply::finish(HttpClientError error, const QString& errorString)
{
    if (m_finished)
        return;
    m_finished = true;
    m_evidence.error = error;
    m_evidence.errorString = errorString;
    m_evidence.endedAt = now();
    Q_EMIT finished();
}

HttpClient::HttpClient(QObject* parent)
    : QObject(parent)
{ }

HttpClient::~HttpClient()
{
    const QList<HttpConnection*> busy = std::exchange(m_busy, {});
    qDeleteAll(busy);
    for (const QList<HttpConnection*>& idle : std::as_const(m_idle))
        qDeleteAll(idle);
    m_idle.clear();
}

HttpReply* HttpClient::send(HttpRequest request)
{
    auto* reply = new HttpReply(this, std::move(request));
    start(reply);
    return reply;
}

void HttpClient::start(HttpReply* reply)
{
    const QUrl& url = reply->m_url;
    const bool tlsVerify = reply->m_request.tlsVerify;
    // The URL the last request went to was checked then.
    if (!m_lastOrigin || m_lastOrigin->tlsVerify != tlsVerify || m_lastOrigin->url != url) {
        if (!url.isValid() || url.host().isEmpty()
            || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))) {
            QMetaObject::invokeMethod(
                reply,
                [reply] {
                    reply->finish(HttpClientError::HostNotFound,
                        tr("'%1' is not an http(s) URL with a host").arg(reply->m_url.toString(QUrl::RemoveUserInfo)));
                },
                Qt::QueuedConnection);
            return;
        }
        // The proxy lookup (libproxy behind Qt's system configuration) costs more than a loopback round
        // trip; the environment it reads does not change while we run, so once per origin is enough.
        const QString origin = url.scheme() + QStringLiteral("://") + url.host() + QLatin1Char(':')
            + QString::number(HttpUrl::portOf(url));
        auto cached = m_proxies.constFind(origin);
        if (cached == m_proxies.constEnd())
            cached = m_proxies.insert(origin, proxyFor(url));
        m_lastOrigin = LastOrigin { url, tlsVerify, *cached, originKey(url, tlsVerify, *cached) };
    }
    const QNetworkProxy proxy = m_lastOrigin->proxy;
    const QString key = m_lastOrigin->key;
    const auto it = m_idle.find(key);
    if (it != m_idle.end()) {
        const qint64 at = now();
        while (!it->isEmpty()) {
            HttpConnection* connection = it->takeLast();
            if (connection->reusable(at, m_maxIdleMs)) {
                m_busy.append(connection);
                connection->carry(reply, true);
                return;
            }
            // Found closed (or stale) before anything was written on it: nothing was sent.
            connection->closeIdle();
            connection->deleteLater();
        }
    }
    auto* connection = new HttpConnection(this, key, url, tlsVerify, proxy);
    ++m_connectionsOpened;
    m_busy.append(connection);
    connection->setConnectTimeout(m_connectTimeoutMs);
    connection->carry(reply, false);
}

void HttpClient::release(HttpConnection* connection)
{
    m_busy.removeOne(connection);
    QList<HttpConnection*>& idle = m_idle[connection->key()];
    if (idle.size() >= MaxIdlePerOrigin) {
        connection->closeIdle();
        connection->deleteLater();
        return;
    }
    idle.append(connection);
}

void HttpClient::discard(HttpConnection* connection)
{
    m_busy.removeOne(connection);
    const auto it = m_idle.find(connection->key());
    if (it != m_idle.end())
        it->removeOne(connection);
    connection->deleteLater();
}

int HttpClient::idleConnections() const
{
    int n = 0;
    for (const QList<HttpConnection*>& idle : m_idle)
        n += int(idle.size());
    return n;
}

void HttpClient::abortAll()
{
    const QList<HttpConnection*> busy = m_busy;
    for (HttpConnection* connection : busy) {
        if (HttpReply* reply = connection->reply())
            reply->abort();
    }
    for (QList<HttpConnection*>& idle : m_idle) {
        for (HttpConnection* connection : std::as_const(idle)) {
            connection->closeIdle();
            connection->deleteLater();
        }
    }
    m_idle.clear();
}

} // namespace mcpscope
