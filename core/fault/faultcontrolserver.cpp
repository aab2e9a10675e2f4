#include "faultcontrolserver.h"

#include "faultproxy.h"
#include "jsonrpc/translation.h"
#include "transport/httpwire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkProxy>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>
#include <memory>
#include <utility>

namespace mcpscope {

namespace {
constexpr qint64 MaxBodyBytes = 64 * 1024;

void reply(QTcpSocket* socket, int status, const QByteArray& body = {})
{
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + HttpWire::reasonPhrase(status) + "\r\n";
    if (!body.isEmpty())
        head += "Content-Type: application/json\r\n";
    head += "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n";
    socket->write(head + body);
    socket->disconnectFromHost();
}

QByteArray json(const QJsonObject& object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray errorBody(const QString& message)
{
    return json({ { QStringLiteral("error"), message } });
}

/// Why a request may come from a web page, with the status to refuse it with; 0 when it may not.
/// A page can reach 127.0.0.1 through DNS rebinding (its own name resolving to us: a foreign Host) or
/// with a "simple" cross-origin request, such as a form POST of text/plain, which browsers send
/// without asking first. Rebinding shows in Host, the form in its Content-Type, and any request a
/// browser makes for a page's script carries Origin. Tools (curl, scripts, the CLI) send none of that.
std::pair<int, QString> browserRefusal(const HttpWire::MessageReader& request, quint16 port)
{
    if (!FaultProxy::isOwnHost(HttpWire::header(request.headers, "Host"), port))
        return { 403,
            McpScope::tr("the fault control API answers only requests for Host 127.0.0.1:%1 or localhost:%1, "
                         "not '%2'")
                .arg(port)
                .arg(QString::fromUtf8(HttpWire::header(request.headers, "Host"))) };
    if (std::any_of(request.headers.cbegin(), request.headers.cend(),
            [](const auto& header) { return header.first.compare("Origin", Qt::CaseInsensitive) == 0; }))
        return { 403,
            McpScope::tr("the fault control API refuses requests from web pages (Origin '%1')")
                .arg(QString::fromUtf8(HttpWire::header(request.headers, "Origin"))) };
    const bool hasBody = request.method == "POST" || request.method == "PUT" || request.method == "PATCH"
        || request.framing() != HttpWire::MessageReader::Framing::None;
    const QByteArray type = HttpWire::header(request.headers, "Content-Type").split(';').first().trimmed().toLower();
    if (hasBody && type != "application/json")
        return { 415,
            McpScope::tr("the fault control API takes only Content-Type: application/json bodies, not '%1'")
                .arg(QString::fromUtf8(HttpWire::header(request.headers, "Content-Type"))) };
    return { 0, {} };
}
} // namespace

FaultControlServer::FaultControlServer(FaultProxy* proxy, QObject* parent)
    : QObject(parent)
    , m_proxy(proxy)
    , m_server(new QTcpServer(this))
{
    m_server->setProxy(QNetworkProxy::NoProxy);
    connect(m_server, &QTcpServer::newConnection, this, &FaultControlServer::onNewConnection);
}

FaultControlServer::~FaultControlServer() = default;

bool FaultControlServer::listen(quint16 port, QString* error)
{
    if (m_server->isListening() || !m_server->listen(QHostAddress::LocalHost, port)) {
        if (error)
            *error = tr("the fault control server cannot listen on 127.0.0.1:%1: %2")
                         .arg(port)
                         .arg(m_server->isListening() ? tr("already listening") : m_server->errorString());
        return false;
    }
    return true;
}

quint16 FaultControlServer::port() const
{
    return m_server->serverPort();
}

QUrl FaultControlServer::url() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(port());
    return url;
}

void FaultControlServer::onNewConnection()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        auto reader = std::make_shared<HttpWire::MessageReader>(HttpWire::MessageReader::Kind::Request);
        auto body = std::make_shared<QByteArray>();
        auto headChecked = std::make_shared<bool>(false);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket, reader, body, headChecked] {
            if (reader->complete() || socket->state() != QAbstractSocket::ConnectedState)
                return; // answered already
            if (!reader->feed(socket->readAll()))
                return reply(socket, 400, errorBody(reader->error()));
            if (reader->headComplete() && !std::exchange(*headChecked, true)) {
                // Refused on the head, before any of the body is read.
                const auto [status, why] = browserRefusal(*reader, port());
                if (status != 0)
                    return reply(socket, status, errorBody(why));
            }
            body->append(reader->takeBody());
            if (body->size() > MaxBodyBytes)
                return reply(socket, 413, errorBody(tr("request body too large")));
            if (reader->complete())
                serve(socket, reader->method, reader->target, *body);
        });
    }
}

void FaultControlServer::serve(
    QTcpSocket* socket, const QByteArray& method, const QByteArray& target, const QByteArray& body)
{
    if (!m_proxy)
        return reply(socket, 502, errorBody(tr("the fault proxy is gone")));
    const QByteArray path = target.left(target.indexOf('?') >= 0 ? target.indexOf('?') : target.size());
    if (path == "/" && method == "GET") {
        return reply(socket, 200,
            json({ { QStringLiteral("proxy"), m_proxy->url().toString() },
                { QStringLiteral("upstream"), m_proxy->upstream().toString() },
                { QStringLiteral("forwarded"), m_proxy->forwarded() },
                { QStringLiteral("faultsFired"), m_proxy->faultsFired() },
                { QStringLiteral("duplicatesRefused"), m_proxy->duplicatesRefused() } }));
    }
    if (path == "/faults" || path == "/faults/") {
        if (method == "GET") {
            QJsonArray list;
            for (const FaultProxy::Fault& fault : m_proxy->armed())
                list.append(FaultProxy::faultToJson(fault));
            return reply(socket, 200, QJsonDocument(list).toJson(QJsonDocument::Compact));
        }
        if (method == "POST") {
            QJsonParseError parseError;
            const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
            if (!document.isObject())
                return reply(socket, 400, errorBody(tr("the body must be a JSON object describing a fault")));
            QString error;
            const auto fault = FaultProxy::faultFromJson(document.object(), &error);
            if (!fault)
                return reply(socket, 400, errorBody(error));
            const quint64 id = m_proxy->arm(*fault);
            return reply(socket, 201, json({ { QStringLiteral("id"), qint64(id) } }));
        }
        if (method == "DELETE") {
            m_proxy->clear();
            return reply(socket, 204);
        }
        return reply(socket, 405, errorBody(tr("use GET, POST or DELETE on /faults")));
    }
    if (path.startsWith("/faults/")) {
        if (method != "DELETE")
            return reply(socket, 405, errorBody(tr("use DELETE on /faults/ID")));
        bool ok = false;
        const quint64 id = path.mid(int(qstrlen("/faults/"))).toULongLong(&ok);
        const QList<FaultProxy::Fault> armed = m_proxy->armed();
        const bool known = ok && std::any_of(armed.cbegin(), armed.cend(), [id](const auto& f) { return f.id == id; });
        if (!known)
            return reply(socket, 404, errorBody(tr("no fault %1 is armed").arg(QString::fromUtf8(path.mid(8)))));
        m_proxy->disarm(id);
        return reply(socket, 204);
    }
    return reply(socket, 404, errorBody(tr("unknown path; see GET /faults")));
}

} // namespace mcpscope
