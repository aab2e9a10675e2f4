#include "redirectlistener.h"

#include "transport/httpwire.h"

#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>

namespace mcpscope {

namespace {

/// Parameters that must appear at most once in an authorization response (RFC 6749 §3.1): two `state`
/// or two `code` values would let whoever added the second choose which one a reader picks up.
const char* const SingleParameters[] = { "code", "state", "iss", "error", "error_description", "error_uri" };

/// Text from the request (Host, method, path) is attacker-chosen: only printable ASCII, bounded, goes
/// into a reason shown in the Auth steps.
QString printable(QByteArrayView bytes)
{
    constexpr qsizetype Limit = 80;
    QString text;
    for (const char c : bytes.first(std::min(bytes.size(), Limit)))
        text += (c >= 0x20 && c < 0x7f) ? QChar::fromLatin1(c) : QChar(u'?');
    if (bytes.size() > Limit)
        text += u'…';
    return text;
}

/// Compares without stopping at the first difference, so the time taken says nothing about the state.
bool sameBytes(const QByteArray& a, const QByteArray& b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return diff == 0;
}

QByteArray page(const QString& title, const QString& text)
{
    return QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title></head>"
                          "<body style=\"font-family: sans-serif; margin: 3em\"><h1>%1</h1><p>%2</p></body></html>\n")
        .arg(title.toHtmlEscaped(), text.toHtmlEscaped())
        .toUtf8();
}

} // namespace

RedirectListener::RedirectListener(QObject* parent)
    : QObject(parent)
{ }

RedirectListener::~RedirectListener()
{
    close();
}

QString RedirectListener::callbackPath()
{
    return QStringLiteral("/mcpscope/oauth/callback");
}

bool RedirectListener::listen(QString* error)
{
    return listen(0, error);
}

bool RedirectListener::listen(quint16 preferredPort, QString* error)
{
    close();
    m_server = new QTcpServer(this);
    connect(m_server, &QTcpServer::newConnection, this, &RedirectListener::onConnection);
    // Only the IPv4 loopback address (RFC 8252 §7.3, §8.3): never "localhost", which may resolve to ::1
    // or to something else, and never an address other machines can reach.
    bool bound = preferredPort != 0 && m_server->listen(QHostAddress(QHostAddress::LocalHost), preferredPort);
    if (!bound)
        bound = m_server->listen(QHostAddress(QHostAddress::LocalHost), 0);
    if (!bound) {
        if (error)
            *error
                = tr("Could not listen on 127.0.0.1 for the authorization callback: %1").arg(m_server->errorString());
        delete m_server;
        m_server = nullptr;
        m_port = 0;
        return false;
    }
    m_port = m_server->serverPort();
    m_done = false;
    return true;
}

bool RedirectListener::isListening() const
{
    return m_server && m_server->isListening();
}

QUrl RedirectListener::redirectUri() const
{
    if (m_port == 0)
        return {};
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(m_port);
    url.setPath(callbackPath());
    return url;
}

void RedirectListener::expectState(const QString& state)
{
    m_state = state;
}

void RedirectListener::close()
{
    if (m_server) {
        m_server->close();
        m_server->deleteLater();
        m_server = nullptr;
    }
    const QList<QTcpSocket*> sockets = findChildren<QTcpSocket*>(Qt::FindDirectChildrenOnly);
    for (QTcpSocket* socket : sockets) {
        // A page already written (the callback's) is still delivered: disconnectFromHost flushes first.
        if (socket->property("answered").toBool())
            continue;
        socket->abort();
        socket->deleteLater();
    }
}

void RedirectListener::onConnection()
{
    if (!m_server)
        return;
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        socket->setParent(this); // the sockets outlive m_server, which close() deletes
        if (findChildren<QTcpSocket*>(Qt::FindDirectChildrenOnly).size() > MaxConnections) {
            socket->abort();
            socket->deleteLater();
            continue;
        }
        // Qt stops reading from the kernel once this much is buffered: a client that streams bytes cannot
        // grow memory, and the head limit is checked on what was buffered.
        socket->setReadBufferSize(2 * MaxHeadBytes);
        auto* timer = new QTimer(socket);
        timer->setSingleShot(true);
        connect(timer, &QTimer::timeout, socket, [this, socket] {
            // Browsers open spare connections that never carry a request: closing those is not news. A
            // partial head that stalls is.
            if (!socket->property("answered").toBool() && socket->bytesAvailable() > 0)
                Q_EMIT rejected(tr("A request to the callback listener did not arrive complete within %1 s; "
                                   "the connection was closed.")
                                    .arg(m_readTimeoutMs / 1000.0));
            socket->abort();
            socket->deleteLater();
        });
        timer->start(m_readTimeoutMs);
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { handle(socket); });
        if (socket->bytesAvailable() > 0)
            handle(socket);
    }
}

void RedirectListener::handle(QTcpSocket* socket)
{
    if (socket->property("answered").toBool()) {
        socket->readAll(); // one request per connection: what follows is dropped
        return;
    }
    // The head stays in the socket's buffer until it is complete, so nothing per connection is kept here.
    HttpWire::MessageReader reader(HttpWire::MessageReader::Kind::Request);
    reader.feed(socket->peek(MaxHeadBytes));
    if (reader.failed()) { // headComplete() is true then too
        refuse(
            socket, 400, tr("The callback listener received a request that is not HTTP/1.1 (%1).").arg(reader.error()));
        return;
    }
    if (!reader.headComplete()) {
        if (socket->bytesAvailable() >= MaxHeadBytes)
            refuse(socket, 400,
                tr("The callback listener refused a request whose head is larger than %1 KiB.")
                    .arg(MaxHeadBytes / 1024));
        return;
    }

    const qsizetype question = reader.target.indexOf('?');
    const QByteArray path = question < 0 ? reader.target : reader.target.left(question);
    const QByteArray rawQuery = question < 0 ? QByteArray() : reader.target.mid(question + 1);

    if (path == "/favicon.ico") {
        refuse(socket, 404, {}, false); // the browser asks on its own; nobody sent it
        return;
    }

    // DNS rebinding guard: a web page whose name resolves to 127.0.0.1 reaches this port, but its
    // requests carry its own name in Host.
    const QByteArray port = QByteArray::number(m_port);
    QList<QByteArray> hosts;
    for (const auto& [name, value] : reader.headers) {
        if (name.compare("Host", Qt::CaseInsensitive) == 0)
            hosts.append(value);
    }
    if (hosts.isEmpty()) {
        refuse(socket, 400, tr("The callback listener refused a request without a Host header."));
        return;
    }
    if (hosts.size() > 1) {
        refuse(socket, 400, tr("The callback listener refused a request with more than one Host header."));
        return;
    }
    const QByteArray host = hosts.first();
    const QByteArray loopbackHost = "127.0.0.1:" + port;
    const QByteArray localhostHost = "localhost:" + port;
    if (host != loopbackHost && host.compare(localhostHost, Qt::CaseInsensitive) != 0) {
        refuse(socket, 400,
            tr("The callback listener refused a request for host '%1': only 127.0.0.1:%2 and localhost:%2 are "
               "accepted (a web page on another name may be trying to reach it).")
                .arg(printable(host), QString::fromLatin1(port)));
        return;
    }
    if (path != callbackPath().toLatin1()) {
        refuse(socket, 404,
            tr("The callback listener refused a request for the path '%1'; the callback path is %2.")
                .arg(printable(path), callbackPath()));
        return;
    }
    if (reader.method != "GET") {
        refuse(socket, 405,
            tr("The callback listener refused a %1 request; the browser's redirect is a GET.")
                .arg(printable(reader.method)));
        return;
    }
    if (m_done) {
        refuse(socket, 400, tr("The callback listener refused a second callback: the authorization already finished."));
        return;
    }
    if (m_state.isEmpty()) {
        refuse(socket, 400, tr("The callback listener refused a callback: no authorization request is in progress."));
        return;
    }

    // The response is application/x-www-form-urlencoded (RFC 6749 §4.1.2): '+' is a space there, and
    // QUrlQuery alone would leave it a '+'.
    QByteArray encoded = rawQuery;
    encoded.replace('+', "%20");
    const QUrlQuery query(QString::fromUtf8(encoded));
    for (const char* name : SingleParameters) {
        if (query.allQueryItemValues(QString::fromLatin1(name)).size() > 1) {
            refuse(socket, 400,
                tr("The callback listener refused a callback that carries the parameter '%1' more than once.")
                    .arg(QString::fromLatin1(name)));
            return;
        }
    }
    if (!query.hasQueryItem(QStringLiteral("state"))) {
        refuse(socket, 400, tr("The callback listener refused a callback without a state parameter."));
        return;
    }
    const QString state = query.queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded);
    if (!sameBytes(state.toUtf8(), m_state.toUtf8())) {
        refuse(socket, 400,
            tr("The callback listener refused a callback whose state is not the one of the authorization request "
               "in progress (a stale tab, or a forged request)."));
        return;
    }

    m_done = true;
    if (m_server) {
        m_server->close();
        m_server->deleteLater();
        m_server = nullptr;
    }
    const QString error = query.queryItemValue(QStringLiteral("error"), QUrl::FullyDecoded);
    QByteArray body;
    if (error.isEmpty()) {
        body = page(tr("Authorization finished"),
            tr("Authorization finished — you can close this tab and go back to McpScope."));
    } else {
        QString description = query.queryItemValue(QStringLiteral("error_description"), QUrl::FullyDecoded);
        description.truncate(500);
        const QString reason = description.isEmpty() ? error : error + QStringLiteral(": ") + description;
        body = page(tr("Authorization failed"),
            tr("The authorization server answered: %1. You can close this tab and go back to McpScope.").arg(reason));
    }
    answer(socket, 200, QByteArrayLiteral("text/html; charset=utf-8"), body);
    Q_EMIT callbackReceived(query);
}

void RedirectListener::refuse(QTcpSocket* socket, int status, const QString& reason, bool report)
{
    const QByteArray text = status == 404 ? QByteArrayLiteral("Not found.\n")
        : status == 405                   ? QByteArrayLiteral("Only GET is accepted here.\n")
                                          : QByteArrayLiteral("This request was refused by McpScope.\n");
    answer(socket, status, QByteArrayLiteral("text/plain; charset=utf-8"), text,
        status == 405 ? QByteArrayLiteral("Allow: GET\r\n") : QByteArray());
    if (report)
        Q_EMIT rejected(reason);
}

void RedirectListener::answer(QTcpSocket* socket, int status, const QByteArray& contentType, const QByteArray& body,
    const QByteArray& extraHeaders)
{
    socket->setProperty("answered", true);
    socket->readAll();
    // no-store: the URL of this page holds the authorization code. The page loads nothing and links nowhere.
    const QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + HttpWire::reasonPhrase(status)
        + "\r\nContent-Type: " + contentType + "\r\nContent-Length: " + QByteArray::number(body.size())
        + "\r\nConnection: close\r\nCache-Control: no-store\r\nReferrer-Policy: no-referrer\r\n"
          "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'none'; style-src "
          "'unsafe-inline'\r\n"
        + extraHeaders + "\r\n";
    socket->write(head + body);
    socket->flush();
    socket->disconnectFromHost();
}

} // namespace mcpscope
