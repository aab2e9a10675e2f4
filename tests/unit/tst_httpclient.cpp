// The engine's HTTP/1.1 client against a loopback QTcpServer that plays each wire behaviour by hand.
// A raw server is the point here: it can close or reset a connection after reading a request and
// before any response byte, which is where QNetworkAccessManager silently sends the POST again. Every
// test counts the requests the SERVER read, so a re-send at any layer fails it.

#include "transport/httpclient.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>
#include <memory>
#include <sys/socket.h>

using namespace mcpscope;

namespace {

/// A loopback HTTP server whose answer to each request is the test's handler.
class RawServer : public QObject
{
public:
    struct Seen
    {
        QByteArray method;
        QByteArray target;
        QByteArray body;
        int connection = 0; ///< which accepted connection carried it (1, 2, …)
        QByteArray host;
        QByteArray authorization;
    };
    using Handler = std::function<void(QTcpSocket*, const Seen&)>;

    explicit RawServer(Handler handler)
        : m_handler(std::move(handler))
    {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                const int number = ++m_connections;
                auto reader = std::make_shared<HttpWire::MessageReader>(HttpWire::MessageReader::Kind::Request);
                auto body = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket, reader, body, number] {
                    QByteArray bytes = socket->readAll();
                    while (!bytes.isEmpty()) {
                        reader->feed(bytes);
                        bytes.clear();
                        body->append(reader->takeBody());
                        if (!reader->complete())
                            return;
                        const Seen seen { reader->method, reader->target, std::exchange(*body, {}), number,
                            HttpWire::header(reader->headers, "Host"),
                            HttpWire::header(reader->headers, "Authorization") };
                        bytes = reader->takeRemainder();
                        *reader = HttpWire::MessageReader(HttpWire::MessageReader::Kind::Request);
                        requests.append(seen);
                        m_handler(socket, seen);
                    }
                });
            }
        });
        m_server.listen(QHostAddress::LocalHost);
    }

    QUrl url(const QString& path = QStringLiteral("/mcp")) const
    {
        return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path));
    }
    int connections() const { return m_connections; }

    QList<Seen> requests;

private:
    QTcpServer m_server;
    Handler m_handler;
    int m_connections = 0;
};

QByteArray response(const QByteArray& body, const QByteArray& extraHeaders = {}, int status = 200)
{
    return "HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n" + extraHeaders + "\r\n" + body;
}

/// Resets the connection: the kernel sends RST instead of FIN.
void reset(QTcpSocket* socket)
{
    const linger option { 1, 0 };
    ::setsockopt(int(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &option, sizeof option);
    socket->abort();
}

HttpRequest post(const QUrl& url, const QByteArray& body)
{
    HttpRequest request;
    request.method = "POST";
    request.url = url;
    request.body = body;
    request.headers.append({ QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json") });
    return request;
}

/// Sends and waits for finished; the reply stays alive for inspection.
HttpReply* roundTrip(HttpClient& client, HttpRequest request)
{
    HttpReply* reply = client.send(std::move(request));
    QSignalSpy finished(reply, &HttpReply::finished);
    if (!finished.wait(10000))
        qWarning("no finished signal");
    return reply;
}

} // namespace

class TestHttpClient : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keepAliveReusesOneConnection();
    void eachRequestOnAConnectionNamesItsOwnTarget();
    void lostBeforeHeadIsNeverSentAgain_data();
    void lostBeforeHeadIsNeverSentAgain();
    void lostMidBodyReportsTheStartedResponse();
    void pooledConnectionClosedByServerIsNotWrittenOn();
    void keepAliveHintRetiresIdleConnections();
    void chunkedStreamArrivesAsItIsSent();
    void concurrentRequestsAreNotCapped();
    void connectRefusedWritesNothing();
    void redirects_data();
    void redirects();
    void abortFinishesFromTheEventLoop();
    void deletingAReplyInFlightClosesItsConnection();
    void reusedConnectionWritesBeforeSendReturns_data();
    void reusedConnectionWritesBeforeSendReturns();
};

void TestHttpClient::keepAliveReusesOneConnection()
{
    RawServer server([](QTcpSocket* socket, const RawServer::Seen& seen) { socket->write(response(seen.body)); });
    HttpClient client;
    for (int i = 0; i < 3; ++i) {
        HttpReply* reply = roundTrip(client, post(server.url(), "{\"n\":" + QByteArray::number(i) + "}"));
        QCOMPARE(reply->error(), HttpClientError::None);
        QCOMPARE(reply->status(), 200);
        QCOMPARE(reply->readAll(), "{\"n\":" + QByteArray::number(i) + "}");
        QCOMPARE(reply->evidence().connectionReused, i > 0);
        QVERIFY(reply->evidence().wholeRequestWritten());
        QVERIFY(reply->evidence().responseComplete);
        reply->deleteLater();
    }
    QCOMPARE(server.requests.size(), 3);
    QCOMPARE(server.connections(), 1);
    QCOMPARE(client.connectionsOpened(), 1);
}

// A connection keeps the head of its last request (request line, Host, the URL's Basic credentials) and
// must not reuse it for another method, path, query or user: every request on the one connection arrives
// with its own.
void TestHttpClient::eachRequestOnAConnectionNamesItsOwnTarget()
{
    RawServer server([](QTcpSocket* socket, const RawServer::Seen& seen) { socket->write(response(seen.body)); });
    HttpClient client;
    QUrl withUser = server.url(QStringLiteral("/mcp"));
    withUser.setUserName(QStringLiteral("ada"));
    withUser.setPassword(QStringLiteral("pw"));
    HttpRequest get;
    get.method = "GET";
    get.url = server.url(QStringLiteral("/sse?stream=1"));
    const QList<HttpRequest> requests { post(server.url(), "1"), post(server.url(), "2"), get,
        post(server.url(QStringLiteral("/messages?sessionId=a")), "3"), post(withUser, "4"), post(server.url(), "5") };
    for (const HttpRequest& request : requests) {
        HttpReply* reply = roundTrip(client, request);
        QCOMPARE(reply->error(), HttpClientError::None);
        reply->deleteLater();
    }
    QCOMPARE(server.connections(), 1);
    QCOMPARE(server.requests.size(), 6);
    const QByteArray host = "127.0.0.1:" + QByteArray::number(server.url().port());
    const QList<QByteArray> targets { "POST /mcp", "POST /mcp", "GET /sse?stream=1", "POST /messages?sessionId=a",
        "POST /mcp", "POST /mcp" };
    for (qsizetype i = 0; i < server.requests.size(); ++i) {
        const RawServer::Seen& seen = server.requests.at(i);
        QCOMPARE(seen.method + ' ' + seen.target, targets.at(i));
        QCOMPARE(seen.host, host);
        QCOMPARE(seen.authorization, i == 4 ? QByteArray("Basic " + QByteArray("ada:pw").toBase64()) : QByteArray());
    }
}

void TestHttpClient::lostBeforeHeadIsNeverSentAgain_data()
{
    QTest::addColumn<bool>("rst");
    QTest::addColumn<bool>("reused");
    QTest::newRow("FIN on a fresh connection") << false << false;
    QTest::newRow("RST on a fresh connection") << true << false;
    QTest::newRow("FIN on a kept-alive connection") << false << true;
    QTest::newRow("RST on a kept-alive connection") << true << true;
}

// The case of issue 10: the server read (and may have run) the POST, then the connection went away
// before any response byte. The client reports exactly that and sends nothing again.
void TestHttpClient::lostBeforeHeadIsNeverSentAgain()
{
    QFETCH(bool, rst);
    QFETCH(bool, reused);
    RawServer server([rst](QTcpSocket* socket, const RawServer::Seen& seen) {
        if (seen.body != "write") {
            socket->write(response("ok"));
            return;
        }
        if (rst)
            reset(socket);
        else
            socket->disconnectFromHost();
    });
    HttpClient client;
    if (reused)
        roundTrip(client, post(server.url(), "warm-up"))->deleteLater();
    HttpReply* reply = roundTrip(client, post(server.url(), "write"));
    const HttpEvidence& e = reply->evidence();
    QCOMPARE(e.error, HttpClientError::ConnectionClosed);
    QCOMPARE(e.connectionReused, reused);
    QVERIFY(e.wholeRequestWritten());
    QVERIFY(!e.responseStarted);
    QCOMPARE(e.status, 0);
    // A re-send would reach the server before this next request does.
    HttpReply* next = roundTrip(client, post(server.url(), "next"));
    QCOMPARE(next->status(), 200);
    QByteArrayList bodies;
    for (const RawServer::Seen& seen : std::as_const(server.requests))
        bodies.append(seen.body);
    QCOMPARE(bodies, reused ? QByteArrayList({ "warm-up", "write", "next" }) : QByteArrayList({ "write", "next" }));
}

void TestHttpClient::lostMidBodyReportsTheStartedResponse()
{
    RawServer server([](QTcpSocket* socket, const RawServer::Seen&) {
        socket->write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf");
        socket->flush();
        socket->disconnectFromHost();
    });
    HttpClient client;
    HttpReply* reply = roundTrip(client, post(server.url(), "x"));
    QCOMPARE(reply->error(), HttpClientError::ConnectionClosed);
    QVERIFY(reply->evidence().responseStarted);
    QVERIFY(!reply->evidence().responseComplete);
    QCOMPARE(reply->status(), 200);
    QCOMPARE(reply->readAll(), QByteArray("half"));
    QCOMPARE(server.requests.size(), 1);
}

// The keep-alive race: the server closes an idle connection; the next request must not be written on
// it (that would make a write "uncertain" for nothing) but go out on a fresh one, once.
void TestHttpClient::pooledConnectionClosedByServerIsNotWrittenOn()
{
    QList<QPointer<QTcpSocket>> sockets;
    RawServer server([&sockets](QTcpSocket* socket, const RawServer::Seen&) {
        socket->write(response("ok"));
        sockets.append(socket);
    });
    HttpClient client;
    roundTrip(client, post(server.url(), "first"))->deleteLater();
    QCOMPARE(client.idleConnections(), 1);
    // The server's keep-alive timeout fires: it closes its side without telling the client otherwise.
    QVERIFY(sockets.first());
    sockets.first()->disconnectFromHost();
    HttpReply* reply = roundTrip(client, post(server.url(), "second"));
    QCOMPARE(reply->error(), HttpClientError::None);
    QCOMPARE(reply->evidence().connectionReused, false);
    QCOMPARE(server.requests.size(), 2);
    QCOMPARE(server.connections(), 2);
}

void TestHttpClient::keepAliveHintRetiresIdleConnections()
{
    RawServer server(
        [](QTcpSocket* socket, const RawServer::Seen&) { socket->write(response("ok", "Keep-Alive: timeout=0\r\n")); });
    HttpClient client;
    roundTrip(client, post(server.url(), "a"))->deleteLater();
    HttpReply* reply = roundTrip(client, post(server.url(), "b"));
    QCOMPARE(reply->error(), HttpClientError::None);
    QCOMPARE(reply->evidence().connectionReused, false);
    QCOMPARE(server.connections(), 2);
}

void TestHttpClient::chunkedStreamArrivesAsItIsSent()
{
    QPointer<QTcpSocket> stream;
    RawServer server([&stream](QTcpSocket* socket, const RawServer::Seen&) {
        socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        socket->write(HttpWire::chunk("data: one\n\n"));
        stream = socket;
    });
    HttpClient client;
    HttpReply* reply = client.send(post(server.url(), "{}"));
    QSignalSpy head(reply, &HttpReply::headReceived);
    QSignalSpy finished(reply, &HttpReply::finished);
    QByteArray body;
    connect(reply, &HttpReply::readyRead, this, [&body, reply] { body += reply->readAll(); });
    QTRY_COMPARE(body, QByteArray("data: one\n\n"));
    QCOMPARE(head.size(), 1);
    QCOMPARE(finished.size(), 0);
    QVERIFY(stream);
    stream->write(HttpWire::chunk("data: two\n\n") + HttpWire::chunk({}));
    QVERIFY(finished.wait());
    QCOMPARE(body, QByteArray("data: one\n\ndata: two\n\n"));
    QCOMPARE(reply->error(), HttpClientError::None);
}

void TestHttpClient::concurrentRequestsAreNotCapped()
{
    QList<QPointer<QTcpSocket>> waiting;
    RawServer server([&waiting](QTcpSocket* socket, const RawServer::Seen&) { waiting.append(socket); });
    HttpClient client;
    QList<HttpReply*> replies;
    for (int i = 0; i < 16; ++i)
        replies.append(client.send(post(server.url(), "{}")));
    // Every one of them reaches the server before any is answered: nothing is queued behind a cap.
    QTRY_COMPARE(server.requests.size(), 16);
    for (const QPointer<QTcpSocket>& socket : std::as_const(waiting))
        socket->write(response("ok"));
    for (HttpReply* reply : std::as_const(replies))
        QTRY_VERIFY(reply->isFinished());
    QCOMPARE(client.connectionsOpened(), 16);
    QCOMPARE(client.idleConnections(), 16);
}

void TestHttpClient::connectRefusedWritesNothing()
{
    quint16 port = 0;
    {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost);
        port = probe.serverPort();
    }
    HttpClient client;
    HttpReply* reply = roundTrip(client, post(QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port)), "{}"));
    QCOMPARE(reply->error(), HttpClientError::ConnectionRefused);
    QCOMPARE(reply->evidence().requestBytesWritten, 0);
    QVERIFY(!reply->evidence().anyRequestByteWritten());
}

void TestHttpClient::redirects_data()
{
    QTest::addColumn<QByteArray>("location");
    QTest::addColumn<int>("policy");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("requests");
    using R = HttpRequest::Redirects;
    QTest::newRow("same origin 307 is followed with the body")
        << QByteArray("/other") << int(R::SameOrigin) << 200 << 2;
    QTest::newRow("another origin is not followed for MCP traffic")
        << QByteArray("http://localhost:1/x") << int(R::SameOrigin) << 307 << 1;
    QTest::newRow("manual leaves the 307 to the caller") << QByteArray("/other") << int(R::Manual) << 307 << 1;
}

void TestHttpClient::redirects()
{
    QFETCH(QByteArray, location);
    QFETCH(int, policy);
    QFETCH(int, status);
    QFETCH(int, requests);
    RawServer server([location](QTcpSocket* socket, const RawServer::Seen& seen) {
        if (seen.target == "/mcp")
            socket->write(response({}, "Location: " + location + "\r\n", 307));
        else
            socket->write(response(seen.method + ' ' + seen.body));
    });
    HttpClient client;
    HttpRequest request = post(server.url(), "payload");
    request.redirects = HttpRequest::Redirects(policy);
    HttpReply* reply = roundTrip(client, request);
    QCOMPARE(reply->status(), status);
    QCOMPARE(server.requests.size(), requests);
    if (status == 200) {
        QCOMPARE(reply->readAll(), QByteArray("POST payload"));
        QCOMPARE(reply->evidence().redirects, 1);
        QCOMPARE(reply->url().path(), QStringLiteral("/other"));
    }
}

void TestHttpClient::abortFinishesFromTheEventLoop()
{
    RawServer server([](QTcpSocket*, const RawServer::Seen&) {});
    HttpClient client;
    HttpReply* reply = client.send(post(server.url(), "{}"));
    QTRY_COMPARE(server.requests.size(), 1);
    QSignalSpy finished(reply, &HttpReply::finished);
    reply->abort();
    QCOMPARE(finished.size(), 0);
    QVERIFY(reply->isFinished());
    QVERIFY(finished.wait());
    QCOMPARE(reply->error(), HttpClientError::Aborted);
    QVERIFY(reply->evidence().wholeRequestWritten());
    QCOMPARE(client.idleConnections(), 0);
}

void TestHttpClient::deletingAReplyInFlightClosesItsConnection()
{
    RawServer server([](QTcpSocket*, const RawServer::Seen&) {});
    HttpClient client;
    HttpReply* reply = client.send(post(server.url(), "{}"));
    QTRY_COMPARE(server.requests.size(), 1);
    delete reply;
    HttpReply* next = client.send(post(server.url(), "{}"));
    QTRY_COMPARE(server.requests.size(), 2);
    QCOMPARE(next->evidence().connectionReused, false);
    QCOMPARE(server.connections(), 2);
}

void TestHttpClient::reusedConnectionWritesBeforeSendReturns_data()
{
    QTest::addColumn<int>("bodyBytes");
    QTest::newRow("small: the kernel takes it all at once") << 64;
    // More than a loopback socket buffer: the kernel takes a part, Qt's buffer the rest.
    QTest::newRow("8 MiB: the rest goes through Qt's buffer") << 8 * 1024 * 1024;
}

void TestHttpClient::reusedConnectionWritesBeforeSendReturns()
{
    // A pooled plain-TCP connection hands the request to the kernel inside send(), so requestWritten
    // can come before anyone could connect to it: whenRequestWritten still runs, once.
    QFETCH(int, bodyBytes);
    RawServer server([](QTcpSocket* socket, const RawServer::Seen& seen) {
        socket->write(response(QByteArray::number(seen.body.size())));
    });
    HttpClient client;
    HttpReply* first = roundTrip(client, post(server.url(), "{}"));
    QCOMPARE(first->error(), HttpClientError::None);
    delete first;

    QByteArray body(bodyBytes, 'x');
    body.front() = '"';
    body.back() = '"';
    HttpReply* reply = client.send(post(server.url(), body));
    QVERIFY(reply->evidence().connectionReused);
    QVERIFY(reply->evidence().anyRequestByteWritten());
    int ran = 0;
    reply->whenRequestWritten(&client, [&ran] { ++ran; });
    QSignalSpy finished(reply, &HttpReply::finished);
    QVERIFY(finished.wait(10000));
    QCOMPARE(ran, 1);
    QCOMPARE(reply->error(), HttpClientError::None);
    QCOMPARE(reply->readAll(), QByteArray::number(bodyBytes));
    QCOMPARE(server.requests.size(), 2);
    QCOMPARE(server.requests.last().body, body);
    QCOMPARE(server.connections(), 1);
    delete reply;
}

QTEST_GUILESS_MAIN(TestHttpClient)
#include "tst_httpclient.moc"
