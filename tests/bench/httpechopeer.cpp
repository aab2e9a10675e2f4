// A minimal MCP server over Streamable HTTP for the HTTP call-overhead benchmark (bench_httpecho),
// the HTTP sibling of echopeer.cpp. It is the fixed cost under every client (floor, engine, SDK), so
// it does as little as it can: one thread, HTTP/1.1 keep-alive on any number of connections, every
// answer a plain application/json body (never SSE), and JSON-RPC read by plain string search for
// "id", "method", "name", "message", "ms" and "protocolVersion", their raw tokens copied into the
// answer. That is enough for the compact JSON the three clients send; it is not a general server.
//
// POST /mcp: initialize (a new Mcp-Session-Id, the client's protocolVersion echoed), notifications
// and responses (202), ping, tools/list (echo {message} and sleep {ms}, both readOnlyHint true),
// tools/call echo (answered at once) and tools/call sleep (answered after ms by a timer, so any number
// run at once). Other requests need a session this peer issued: none is 400, an unknown one 404, as
// the TypeScript SDK's example servers answer. GET /mcp is 405 (no server-initiated stream); DELETE
// ends the session (200).
//
// Usage: httpechopeer [port]   (0 or none: any free port). Prints "listening PORT" once it listens.

#include "transport/httpwire.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QObject>
#include <QPointer>
#include <QRandomGenerator>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <cstdio>
#include <string_view>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

constexpr QByteArrayView DefaultProtocolVersion = "2025-11-25";
constexpr char Endpoint[] = "/mcp";
constexpr int MaxSleepMs = 600'000;

// The raw JSON token after "key": a string literal with its quotes and escapes, or a bare
// number/literal. Empty when the key is missing or the token is cut off. Same as echopeer.cpp's.
QByteArrayView rawValue(QByteArrayView json, QByteArrayView quotedKey)
{
    qsizetype pos = json.indexOf(quotedKey);
    if (pos < 0)
        return {};
    pos += quotedKey.size();
    while (pos < json.size() && (json[pos] == ' ' || json[pos] == '\t' || json[pos] == ':'))
        ++pos;
    if (pos >= json.size())
        return {};
    qsizetype end = pos;
    if (json[pos] == '"') {
        for (++end; end < json.size() && json[end] != '"'; ++end) {
            if (json[end] == '\\')
                ++end;
        }
        if (end >= json.size())
            return {};
        return json.sliced(pos, end + 1 - pos);
    }
    while (end < json.size() && json[end] != ',' && json[end] != '}' && json[end] != ']' && json[end] != ' ')
        ++end;
    return json.sliced(pos, end - pos);
}

QByteArray result(QByteArrayView id, QByteArrayView resultJson)
{
    QByteArray out;
    out.reserve(32 + id.size() + resultJson.size());
    out += R"({"jsonrpc":"2.0","id":)";
    out += id;
    out += R"(,"result":)";
    out += resultJson;
    out += '}';
    return out;
}

QByteArray error(QByteArrayView id, int code, QByteArrayView message)
{
    return R"({"jsonrpc":"2.0","id":)" + id.toByteArray() + R"(,"error":{"code":)" + QByteArray::number(code)
        + R"(,"message":")" + message.toByteArray() + "\"}}";
}

const QByteArray ToolsList = R"({"tools":[)"
                             R"({"name":"echo","description":"Returns the message argument as text.",)"
                             R"("inputSchema":{"type":"object","properties":{"message":{"type":"string"}},)"
                             R"("required":["message"]},"annotations":{"readOnlyHint":true}},)"
                             R"({"name":"sleep","description":"Answers after ms milliseconds.",)"
                             R"("inputSchema":{"type":"object","properties":{"ms":{"type":"integer"}},)"
                             R"("required":["ms"]},"annotations":{"readOnlyHint":true}}]})"_ba;

class Peer;

/// One client connection: one request at a time, in order. A request's answer may wait (sleep);
/// bytes that arrive meanwhile (a pipelined request) are kept until it has gone out.
class Connection : public QObject
{
public:
    Connection(Peer* peer, QTcpSocket* socket)
        : QObject(socket)
        , m_peer(peer)
        , m_socket(socket)
    {
        m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        QObject::connect(m_socket, &QTcpSocket::readyRead, this, [this] { onReadyRead(); });
        QObject::connect(m_socket, &QTcpSocket::disconnected, m_socket, &QObject::deleteLater);
    }

    /// The answer to the request being handled: writes it and goes on with the next one.
    void respond(int status, QByteArrayView contentType, QByteArrayView body, QByteArrayView sessionId = {});

private:
    void onReadyRead()
    {
        const QByteArray bytes = m_socket->readAll();
        if (m_waiting) {
            m_stash += bytes;
            return;
        }
        feed(bytes);
    }

    void feed(QByteArrayView bytes)
    {
        if (!m_reader.feed(bytes)) {
            m_close = true;
            respond(400, "text/plain", m_reader.error().toUtf8());
            return;
        }
        m_body += m_reader.takeBody();
        if (!m_reader.complete())
            return;
        m_close = HttpWire::headerHasToken(m_reader.headers, "Connection", "close");
        m_waiting = true;
        m_stash.prepend(m_reader.takeRemainder());
        handle();
    }

    void handle();

    Peer* m_peer;
    QTcpSocket* m_socket;
    HttpWire::MessageReader m_reader { HttpWire::MessageReader::Kind::Request };
    QByteArray m_body;
    QByteArray m_stash;
    bool m_waiting = false; ///< a request is being handled; its answer has not gone out yet
    bool m_close = false;
};

class Peer
{
public:
    bool listen(quint16 port) { return m_server.listen(QHostAddress::LocalHost, port); }
    quint16 port() const { return m_server.serverPort(); }
    QString errorString() const { return m_server.errorString(); }

    Peer()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection())
                new Connection(this, socket);
        });
    }

    void handle(Connection* connection, const HttpWire::MessageReader& request, const QByteArray& body)
    {
        const QByteArray sessionId = HttpWire::header(request.headers, "Mcp-Session-Id");
        if (request.target != Endpoint) {
            connection->respond(404, "text/plain", "Not Found");
            return;
        }
        if (request.method == "GET") {
            connection->respond(405, "text/plain", "Method Not Allowed");
            return;
        }
        if (request.method == "DELETE") {
            if (m_sessions.remove(sessionId))
                connection->respond(200, "text/plain", {});
            else
                connection->respond(404, "application/json", error("null", -32001, "Session not found"));
            return;
        }
        if (request.method != "POST") {
            connection->respond(405, "text/plain", "Method Not Allowed");
            return;
        }

        const QByteArrayView id = rawValue(body, R"("id")");
        const QByteArrayView method = rawValue(body, R"("method")");
        if (method == R"("initialize")") {
            const QByteArrayView offered = rawValue(body, R"("protocolVersion")");
            const QByteArray version = offered.size() > 2 ? offered.sliced(1, offered.size() - 2).toByteArray()
                                                          : DefaultProtocolVersion.toByteArray();
            const QByteArray newId = QByteArray::number(++m_sessionCount) + '-'
                + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
            m_sessions.insert(newId);
            connection->respond(200, "application/json",
                result(id.isEmpty() ? QByteArrayView("null") : id,
                    QByteArray(R"({"protocolVersion":")" + version
                        + R"(","capabilities":{"tools":{}},"serverInfo":{"name":"mcpscope-httpechopeer","version":"1.0.0"}})")),
                newId);
            return;
        }
        if (sessionId.isEmpty()) {
            connection->respond(
                400, "application/json", error("null", -32000, "Bad Request: No valid session ID provided"));
            return;
        }
        if (!m_sessions.contains(sessionId)) {
            connection->respond(404, "application/json", error("null", -32001, "Session not found"));
            return;
        }
        if (id.isEmpty() || method.isEmpty()) {
            connection->respond(202, "text/plain", {}); // a notification, or a response to nothing we asked
            return;
        }
        if (method == R"("tools/call")") {
            callTool(connection, id, body);
        } else if (method == R"("tools/list")") {
            connection->respond(200, "application/json", result(id, ToolsList));
        } else if (method == R"("ping")") {
            connection->respond(200, "application/json", result(id, "{}"));
        } else {
            connection->respond(200, "application/json", error(id, -32601, "Method not found"));
        }
    }

private:
    void callTool(Connection* connection, QByteArrayView id, QByteArrayView body)
    {
        const QByteArrayView name = rawValue(body, R"("name")");
        if (name == R"("echo")") {
            const QByteArrayView message = rawValue(body, R"("message")");
            if (message.isEmpty() || message.front() != '"') {
                connection->respond(200, "application/json",
                    error(id, -32602, R"(tools/call echo needs a string argument \"message\")"));
                return;
            }
            QByteArray content;
            content.reserve(48 + message.size());
            content += R"({"content":[{"type":"text","text":)";
            content += message;
            content += "}]}";
            connection->respond(200, "application/json", result(id, content));
            return;
        }
        if (name == R"("sleep")") {
            bool ok = false;
            const int ms = rawValue(body, R"("ms")").toInt(&ok);
            if (!ok || ms < 0 || ms > MaxSleepMs) {
                connection->respond(200, "application/json",
                    error(id, -32602, "tools/call sleep needs an integer argument \\\"ms\\\" from 0 to 600000"));
                return;
            }
            const QByteArray answer = result(
                id, QByteArray(R"({"content":[{"type":"text","text":"slept )" + QByteArray::number(ms) + R"( ms"}]})"));
            // The connection may be gone by then (the client gave up): the timer dies with it.
            QTimer::singleShot(
                ms, connection, [connection, answer] { connection->respond(200, "application/json", answer); });
            return;
        }
        connection->respond(200, "application/json", error(id, -32602, "Unknown tool"));
    }

    QTcpServer m_server;
    QSet<QByteArray> m_sessions;
    quint64 m_sessionCount = 0;
};

void Connection::handle()
{
    m_peer->handle(this, m_reader, m_body);
}

void Connection::respond(int status, QByteArrayView contentType, QByteArrayView body, QByteArrayView sessionId)
{
    QByteArray out;
    out.reserve(160 + body.size());
    out += "HTTP/1.1 ";
    out += QByteArray::number(status);
    out += ' ';
    out += HttpWire::reasonPhrase(status);
    out += "\r\nContent-Type: ";
    out += contentType;
    out += "\r\nContent-Length: ";
    out += QByteArray::number(body.size());
    if (!sessionId.isEmpty()) {
        out += "\r\nMcp-Session-Id: ";
        out += sessionId;
    }
    if (status == 405)
        out += "\r\nAllow: POST, DELETE";
    if (m_close)
        out += "\r\nConnection: close";
    out += "\r\n\r\n";
    out += body;
    m_socket->write(out);
    m_socket->flush(); // now, not on the next event loop pass: the client is waiting for it
    if (m_close) {
        m_socket->disconnectFromHost();
        return;
    }

    // The next request, from what arrived while this one was handled.
    m_reader = HttpWire::MessageReader(HttpWire::MessageReader::Kind::Request);
    m_body.clear();
    m_waiting = false;
    if (!m_stash.isEmpty())
        feed(std::exchange(m_stash, {}));
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const quint16 port = argc > 1 ? quint16(QByteArray(argv[1]).toUInt()) : 0;
    Peer peer;
    if (!peer.listen(port)) {
        std::fprintf(stderr, "httpechopeer: cannot listen on 127.0.0.1:%u: %s\n", unsigned(port),
            peer.errorString().toLocal8Bit().constData());
        return 1;
    }
    std::printf("listening %u\n", unsigned(peer.port()));
    std::fflush(stdout);
    return app.exec();
}
