// FaultProxy in front of the real server-everything (Streamable HTTP, started once on a random
// loopback port), driven by the real engine: ClientSession over StreamableHttpTransport pointed at
// the proxy. server-everything keeps an event store, so a stream the proxy cuts can be resumed;
// the TransportLost rows use a plain SDK peer without one, started inline below. The before-head faults
// and the duplicate check are tested with a raw QTcpSocket client, which never re-sends anything, against
// a stateless counting peer that prints every request it runs.

#include "fault/faultcontrolserver.h"
#include "fault/faultproxy.h"
#include "peerprocess.h"
#include "recovery/failureclassifier.h"
#include "session/clientsession.h"
#include "transport/streamablehttptransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

#include <memory>
#include <optional>

#ifdef Q_OS_UNIX
#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

using namespace mcpscope;
using namespace mcpscope::test;
using namespace Qt::StringLiterals;

namespace {
constexpr int WaitMs = 30000;
using Kind = FaultProxy::FaultKind;

// The official SDK's server without an event store: no priming event, so a cut stream cannot be resumed.
const char PlainPeer[] = R"js(
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
const transports = new Map();
http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const sid = req.headers['mcp-session-id'];
  let transport = sid ? transports.get(sid) : undefined;
  if (!transport) {
    if (req.method !== 'POST' || body?.method !== 'initialize') { res.writeHead(404).end(); return; }
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport) });
    const server = new McpServer({ name: 'plain-peer', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } },
      async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
    await server.connect(transport);
  }
  await transport.handleRequest(req, res, body);
}).listen(Number(process.argv[1]), '127.0.0.1', function () { console.log(`listening ${this.address().port}`); });
)js";

// Runs whatever JSON-RPC request it gets, prints "ran METHOD ID" for it, and answers with JSON, or with an
// event stream (a progress event, then the response) when the path has ?sse. GET serves an event stream
// that stays open after one legacy endpoint event: relative on /sse, absolute (on this server) on /absolute-sse.
// A POST to /messages is answered the legacy way: 202, then the response on the last GET stream.
const char CountingPeer[] = R"js(
import http from 'node:http';
let stream;
const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const endpoint = url.pathname === '/absolute-sse'
      ? `http://127.0.0.1:${server.address().port}/messages?sessionId=s1` : '/messages?sessionId=s1';
    res.write(`event: endpoint\ndata: ${endpoint}\n\n`);
    stream = res;
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  console.log(`ran ${body.method} ${JSON.stringify(body.id)}`);
  const reply = JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: [] } });
  if (url.pathname === '/messages') {
    res.writeHead(202, { 'content-length': 8 }).end('Accepted');
    setTimeout(() => stream?.write(`event: message\ndata: ${reply}\n\n`), 30);
  } else if (url.searchParams.has('sse')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 } })}\n\n`);
    setTimeout(() => res.end(`event: message\ndata: ${reply}\n\n`), 50);
  } else {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) }).end(reply);
  }
}).listen(Number(process.argv[1]), '127.0.0.1', function () { console.log(`listening ${this.address().port}`); });
)js";

/// A raw HTTP/1.1 client on one QTcpSocket: it sends what it is told, once, and records what comes back.
struct RawClient
{
    QTcpSocket socket;
    QByteArray received;
    bool disconnected = false;
    std::optional<QAbstractSocket::SocketError> error;

    /// Host: 127.0.0.1:PORT, the only form (with localhost) the proxy answers.
    QByteArray host;

    explicit RawClient(quint16 port)
        : host("Host: 127.0.0.1:" + QByteArray::number(port) + "\r\n")
    {
        socket.setProxy(QNetworkProxy::NoProxy);
        QObject::connect(&socket, &QTcpSocket::readyRead, &socket, [this] { received += socket.readAll(); });
        QObject::connect(&socket, &QTcpSocket::disconnected, &socket, [this] { disconnected = true; });
        QObject::connect(&socket, &QTcpSocket::errorOccurred, &socket,
            [this](QAbstractSocket::SocketError e) { error = error.value_or(e); });
        socket.connectToHost(QHostAddress::LocalHost, port);
    }

    void post(const QByteArray& target, const QByteArray& body)
    {
        socket.write("POST " + target + " HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n"
            + "Accept: application/json, text/event-stream\r\nContent-Length: " + QByteArray::number(body.size())
            + "\r\n\r\n" + body);
    }
    void get(const QByteArray& target)
    {
        socket.write("GET " + target + " HTTP/1.1\r\n" + host + "Accept: text/event-stream\r\n\r\n");
    }
    void send(const QByteArray& raw) { socket.write(raw); }
    int status() const { return received.startsWith("HTTP/1.1 ") ? received.mid(9, 3).toInt() : 0; }
    QByteArray body() const { return received.mid(received.indexOf("\r\n\r\n") + 4); }
};

#ifdef Q_OS_UNIX
/// A client on a plain POSIX socket, read only when asked: unlike QTcpSocket (which reports a reset read
/// as an orderly close), it tells a FIN from an RST.
struct NativeClient
{
    enum class End { Open, Data, Fin, Reset, Error };
    int fd = -1;

    explicit NativeClient(quint16 port)
    {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        // Loopback with a listening server: the kernel completes the handshake before the proxy accepts.
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            ::close(fd);
            fd = -1;
        }
    }
    ~NativeClient()
    {
        if (fd >= 0)
            ::close(fd);
    }
    bool send(const QByteArray& bytes) const
    {
        return fd >= 0 && ::send(fd, bytes.constData(), size_t(bytes.size()), 0) == bytes.size();
    }
    /// How the connection stands now, without waiting.
    End peek() const
    {
        char byte = 0;
        const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0)
            return End::Data;
        if (n == 0)
            return End::Fin;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return End::Open;
        return errno == ECONNRESET ? End::Reset : End::Error;
    }
};
#endif

/// A tools/call request carrying the engine's attempt identity (no identity when callId is empty).
QByteArray toolCallBody(int id, const QString& callId, int attempt)
{
    QJsonObject params { { QStringLiteral("name"), QStringLiteral("write") },
        { QStringLiteral("arguments"), QJsonObject() } };
    if (!callId.isEmpty())
        params.insert(QStringLiteral("_meta"),
            QJsonObject { { QStringLiteral("io.github.mcpscope/attempt"),
                QJsonObject { { QStringLiteral("callId"), callId }, { QStringLiteral("attempt"), attempt } } } });
    return QJsonDocument(
        QJsonObject { { QStringLiteral("jsonrpc"), QStringLiteral("2.0") }, { QStringLiteral("id"), id },
            { QStringLiteral("method"), QStringLiteral("tools/call") }, { QStringLiteral("params"), params } })
        .toJson(QJsonDocument::Compact);
}

/// One engine session through the proxy.
struct Client
{
    std::unique_ptr<ClientSession> session;
    StreamableHttpTransport* transport = nullptr;
};

Client makeClient(const QUrl& url)
{
    HttpTransportOptions options;
    options.serverName = QStringLiteral("via-fault-proxy");
    options.url = url;
    options.defaultRetryMs = 50;
    auto transport = std::make_unique<StreamableHttpTransport>(options);
    Client client;
    client.transport = transport.get();
    client.session = std::make_unique<ClientSession>(
        std::move(transport), ClientSession::Options { options.serverName, WaitMs, 0 });
    return client;
}

/// Runs one request and waits for its reply; id receives the request's id.
Reply call(ClientSession& session, const QString& method, const QJsonObject& params, RequestOptions options = {},
    QJsonValue* id = nullptr)
{
    auto slot = std::make_shared<std::optional<Reply>>();
    const QJsonValue sent = session.request(method, params, options, [slot](const Reply& reply) { *slot = reply; });
    if (id)
        *id = sent;
    if (!QTest::qWaitFor([slot] { return slot->has_value(); }, WaitMs)) {
        Reply none;
        none.failure.message = QStringLiteral("no reply within the test's wait");
        return none;
    }
    return **slot;
}

QJsonObject toolCall(const QString& tool, const QJsonObject& arguments)
{
    return { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), arguments } };
}

QJsonObject echo(const QString& message)
{
    return toolCall(QStringLiteral("echo"), { { QStringLiteral("message"), message } });
}

QString firstText(const Reply& reply)
{
    return reply.resultObject()
        .value(QLatin1String("content"))
        .toArray()
        .first()
        .toObject()
        .value(QLatin1String("text"))
        .toString();
}

struct HttpResult
{
    int status = 0;
    QByteArray body;
};

HttpResult httpRequest(QNetworkAccessManager& nam, const QByteArray& verb, const QUrl& url, const QByteArray& body = {})
{
    QNetworkRequest request(url);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply* reply = nam.sendCustomRequest(request, verb, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    HttpResult result;
    if (finished.wait(WaitMs)) {
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
    }
    reply->deleteLater();
    return result;
}
} // namespace

class TestFaultProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void passThrough();
    void faultKinds_data();
    void faultKinds();
    void cutStreamsWithoutEventStore_data();
    void cutStreamsWithoutEventStore();
    void countIsRespected();
    void filters_data();
    void filters();
    void unfilteredFaultSkipsNotifications();
    void faultOnInitialize();
    void faultFiredCarriesMethodAndId();
    void listensOnLoopbackOnly();
    void controlServer();
    void controlServerRefusesWebPages_data();
    void controlServerRefusesWebPages();
    void proxyRefusesForeignHost_data();
    void proxyRefusesForeignHost();
    void ownHostNames_data();
    void ownHostNames();
    void cliProxy();
    void beforeHeadFaults_data();
    void beforeHeadFaults();
    void duplicateAttemptIsRefused();
    void duplicateCheckCanBeTurnedOff();
    void legacyStreamIsRelayedAsItArrives_data();
    void legacyStreamIsRelayedAsItArrives();
    void legacyAnswerIsWithheld_data();
    void legacyAnswerIsWithheld();
    void legacyStreamBreaksWhereTheAnswerWas_data();
    void legacyStreamBreaksWhereTheAnswerWas();

private:
    /// Starts the counting peer; its upstream URL (path /mcp) goes to *upstream.
    bool startCountingPeer(PeerProcess& peer, QUrl* upstream);

    /// Starts a session through proxy and waits until it is ready and its GET stream is open upstream,
    /// so the proxy's forwarded() count is still afterwards.
    bool startSession(Client& client, FaultProxy& proxy);

    PeerProcess m_server;
    QUrl m_upstream;
};

void TestFaultProxy::initTestCase()
{
    const quint16 port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PORT"), QString::number(port));
    QVERIFY2(m_server.start(everythingScript(), { QStringLiteral("streamableHttp") },
                 QStringLiteral("listening on port %1").arg(port), env),
        m_server.output().constData());
    m_upstream = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
}

bool TestFaultProxy::startSession(Client& client, FaultProxy& proxy)
{
    client = makeClient(proxy.url());
    QSignalSpy ready(client.session.get(), &ClientSession::ready);
    client.session->start();
    if (!ready.wait(WaitMs)) {
        qWarning("session did not start: %s", qPrintable(client.session->lastError()));
        return false;
    }
    const QByteArray established = "Establishing new SSE stream for session " + client.session->sessionId().toLatin1();
    return QTest::qWaitFor([&] { return m_server.output().contains(established); }, WaitMs);
}

void TestFaultProxy::passThrough()
{
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    QSignalSpy seen(&proxy, &FaultProxy::requestSeen);
    Client client;
    QVERIFY(startSession(client, proxy));
    ClientSession& session = *client.session;

    // The session id the engine holds is exactly the one the server assigned.
    const QString sessionId = session.sessionId();
    QVERIFY(!sessionId.isEmpty());
    QVERIFY(m_server.output().contains(QByteArray("Session initialized with ID: " + sessionId.toLatin1())));
    QCOMPARE(
        session.details().serverInfo.value(QLatin1String("name")).toString(), QStringLiteral("mcp-servers/everything"));

    std::optional<Reply> listed;
    session.listTools([&listed](const Reply& reply) { listed = reply; });
    QTRY_VERIFY_WITH_TIMEOUT(listed.has_value(), WaitMs);
    QVERIFY2(listed->ok(), qPrintable(listed->describe()));
    QVERIFY(session.tool(QStringLiteral("echo")));

    const Reply echoed = call(session, QStringLiteral("tools/call"), echo(QStringLiteral("through the proxy")));
    QVERIFY2(echoed.ok(), qPrintable(echoed.describe()));
    QCOMPARE(firstText(echoed), QStringLiteral("Echo: through the proxy"));

    // Progress notifications stream through while the call runs.
    QList<double> progress;
    RequestOptions withProgress;
    withProgress.onProgress = [&progress](const ProgressUpdate& update) { progress.append(update.progress); };
    const Reply longRunning = call(session, QStringLiteral("tools/call"),
        toolCall(QStringLiteral("trigger-long-running-operation"),
            { { QStringLiteral("duration"), 1 }, { QStringLiteral("steps"), 2 } }),
        withProgress);
    QVERIFY2(longRunning.ok(), qPrintable(longRunning.describe()));
    QCOMPARE(progress, QList<double>({ 1, 2 }));

    QStringList methods;
    for (const QList<QVariant>& args : std::as_const(seen))
        methods.append(args.at(0).toString());
    QVERIFY(methods.contains(QStringLiteral("initialize")));
    QVERIFY(methods.contains(QStringLiteral("notifications/initialized")));
    QCOMPARE(methods.count(QStringLiteral("tools/call")), 2);
    QCOMPARE(proxy.faultsFired(), 0);

    // DELETE carries the session id through as well.
    QSignalSpy closed(&session, &ClientSession::closed);
    session.close();
    QVERIFY(closed.wait(WaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(m_server.output().contains(QByteArray(
                                 "Received session termination request for session " + sessionId.toLatin1())),
        WaitMs);
}

void TestFaultProxy::faultKinds_data()
{
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<int>("delayMs");
    QTest::addColumn<bool>("succeeds");
    QTest::addColumn<FailureKind>("failure");
    QTest::addColumn<int>("httpStatus");
    QTest::addColumn<int>("forwardedRequests");
    QTest::addColumn<int>("resumedStreams");

    QTest::newRow("expire-before answers 404 without forwarding")
        << Kind::ExpireBefore << 0 << false << FailureKind::SessionExpired << 404 << 0 << 0;
    QTest::newRow("expire-after answers 404 after the server ran the call")
        << Kind::ExpireAfter << 0 << false << FailureKind::SessionExpired << 404 << 1 << 0;
    QTest::newRow("auth-401 answers 401 with a challenge without forwarding")
        << Kind::Auth401 << 0 << false << FailureKind::AuthRequired << 401 << 0 << 0;
    QTest::newRow("delay 300 still answers") << Kind::Delay << 300 << true << FailureKind::NotSent << 0 << 1 << 0;
    // server-everything stores every event, so the transport resumes the broken stream with Last-Event-ID
    // (a GET, which no fault matches) and the answer arrives after all.
    QTest::newRow("cut-after is healed by resuming from the event store")
        << Kind::CutAfter << 0 << true << FailureKind::NotSent << 0 << 2 << 1;
    QTest::newRow("drop-stream is healed by resuming from the event store")
        << Kind::DropStream << 0 << true << FailureKind::NotSent << 0 << 2 << 1;
}

void TestFaultProxy::faultKinds()
{
    QFETCH(Kind, kind);
    QFETCH(int, delayMs);
    QFETCH(bool, succeeds);
    QFETCH(FailureKind, failure);
    QFETCH(int, httpStatus);
    QFETCH(int, forwardedRequests);
    QFETCH(int, resumedStreams);

    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    Client client;
    QVERIFY(startSession(client, proxy));
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    FaultProxy::Fault fault;
    fault.kind = kind;
    fault.delayMs = delayMs;
    fault.tool = QStringLiteral("echo");
    proxy.arm(fault);
    const int forwardedBefore = proxy.forwarded();

    const Reply reply = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("faulty")));
    QCOMPARE(fired.count(), 1);
    QCOMPARE(fired.first().at(0).value<FaultProxy::Fault>().kind, kind);
    QVERIFY(proxy.armed().isEmpty());
    if (succeeds) {
        QVERIFY2(reply.ok(), qPrintable(reply.describe()));
        QCOMPARE(firstText(reply), QStringLiteral("Echo: faulty"));
    } else {
        QCOMPARE(reply.status, Reply::Status::Failed);
        QVERIFY2(FailureClassifier::kindOf(reply.failure) == failure, qPrintable(reply.describe()));
        QCOMPARE(reply.failure.httpStatus, httpStatus);
    }
    QCOMPARE(proxy.forwarded() - forwardedBefore, forwardedRequests);
    QCOMPARE(client.transport->resumedStreams(), resumedStreams);
    if (kind == Kind::Auth401) {
        const QByteArray expected = "Bearer resource_metadata=\"http://127.0.0.1:" + QByteArray::number(proxy.port())
            + "/.well-known/oauth-protected-resource\"";
        QCOMPARE(reply.failure.header("WWW-Authenticate"), expected);
    }
}

void TestFaultProxy::cutStreamsWithoutEventStore_data()
{
    QTest::addColumn<Kind>("kind");
    QTest::newRow("cut-after loses the transport") << Kind::CutAfter;
    QTest::newRow("drop-stream loses the transport") << Kind::DropStream;
}

void TestFaultProxy::cutStreamsWithoutEventStore()
{
    QFETCH(Kind, kind);
    PeerProcess peer;
    QVERIFY2(peer.start(QStringLiteral("--input-type=module"),
                 { QStringLiteral("-e"), QString::fromUtf8(PlainPeer), QString::number(freePort()) },
                 QStringLiteral("listening")),
        peer.output().constData());
    const QRegularExpressionMatch port
        = QRegularExpression(QStringLiteral("listening (\\d+)")).match(QString::fromUtf8(peer.output()));
    QVERIFY(port.hasMatch());
    FaultProxy proxy(QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port.captured(1))));
    QVERIFY(proxy.listen());
    Client client = makeClient(proxy.url());
    QSignalSpy ready(client.session.get(), &ClientSession::ready);
    client.session->start();
    QVERIFY2(ready.wait(WaitMs), qPrintable(client.session->lastError()));

    const Reply healthy = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("before")));
    QVERIFY2(healthy.ok(), qPrintable(healthy.describe()));
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    proxy.arm({ kind, 1, QStringLiteral("tools/call"), {}, 0, 0 });
    const Reply reply = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("lost")));
    QCOMPARE(fired.count(), 1);
    QCOMPARE(reply.status, Reply::Status::Failed);
    QVERIFY2(FailureClassifier::kindOf(reply.failure) == FailureKind::TransportLost, qPrintable(reply.describe()));
    QVERIFY(reply.failure.requestWritten);
    QCOMPARE(client.transport->resumedStreams(), 0);
}

void TestFaultProxy::countIsRespected()
{
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    Client client;
    QVERIFY(startSession(client, proxy));
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    QSignalSpy changed(&proxy, &FaultProxy::armedChanged);
    proxy.arm({ Kind::ExpireBefore, 2, QStringLiteral("tools/call"), {}, 0, 0 });
    QCOMPARE(proxy.armed().size(), 1);
    QCOMPARE(proxy.armed().first().count, 2);

    for (int i = 0; i < 2; ++i) {
        const Reply expired = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("no")));
        QCOMPARE(FailureClassifier::kindOf(expired.failure), FailureKind::SessionExpired);
        QCOMPARE(fired.count(), i + 1);
        QCOMPARE(fired.last().at(0).value<FaultProxy::Fault>().count, 1 - i); // firings left
    }
    QVERIFY(proxy.armed().isEmpty());
    const Reply third = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("yes")));
    QVERIFY2(third.ok(), qPrintable(third.describe()));
    QCOMPARE(fired.count(), 2);
    QCOMPARE(changed.count(), 3); // armed, one left, used up
}

void TestFaultProxy::filters_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("passingMethod");
    QTest::addColumn<QJsonObject>("passingParams");
    QTest::addColumn<QString>("failingMethod");
    QTest::addColumn<QJsonObject>("failingParams");

    const QJsonObject sum
        = toolCall(QStringLiteral("get-sum"), { { QStringLiteral("a"), 2 }, { QStringLiteral("b"), 3 } });
    QTest::newRow("a fault for tool get-sum lets echo through")
        << QString() << QStringLiteral("get-sum") << QStringLiteral("tools/call") << echo(QStringLiteral("x"))
        << QStringLiteral("tools/call") << sum;
    QTest::newRow("a fault for resources/list lets tools/list through")
        << QStringLiteral("resources/list") << QString() << QStringLiteral("tools/list") << QJsonObject()
        << QStringLiteral("resources/list") << QJsonObject();
    QTest::newRow("a fault for tools/call lets ping through")
        << QStringLiteral("tools/call") << QString() << QStringLiteral("ping") << QJsonObject()
        << QStringLiteral("tools/call") << sum;
}

void TestFaultProxy::filters()
{
    QFETCH(QString, method);
    QFETCH(QString, tool);
    QFETCH(QString, passingMethod);
    QFETCH(QJsonObject, passingParams);
    QFETCH(QString, failingMethod);
    QFETCH(QJsonObject, failingParams);

    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    Client client;
    QVERIFY(startSession(client, proxy));
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    proxy.arm({ Kind::ExpireBefore, 1, method, tool, 0, 0 });

    const Reply passing = call(*client.session, passingMethod, passingParams);
    QVERIFY2(passing.ok(), qPrintable(passing.describe()));
    QCOMPARE(fired.count(), 0);
    QCOMPARE(proxy.armed().size(), 1);
    const Reply failing = call(*client.session, failingMethod, failingParams);
    QCOMPARE(FailureClassifier::kindOf(failing.failure), FailureKind::SessionExpired);
    QCOMPARE(fired.count(), 1);
    QCOMPARE(fired.first().at(1).toString(), failingMethod);
}

void TestFaultProxy::unfilteredFaultSkipsNotifications()
{
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    Client client;
    QVERIFY(startSession(client, proxy));
    QSignalSpy seen(&proxy, &FaultProxy::requestSeen);
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    proxy.arm({ Kind::ExpireBefore, 1, {}, {}, 0, 0 });

    client.session->notify(QStringLiteral("notifications/roots/list_changed"));
    QTRY_VERIFY_WITH_TIMEOUT(!seen.isEmpty(), WaitMs);
    QCOMPARE(seen.first().at(0).toString(), QStringLiteral("notifications/roots/list_changed"));
    QVERIFY(seen.first().at(1).value<QJsonValue>().isUndefined());
    QCOMPARE(proxy.armed().size(), 1); // a notification never matches

    const Reply ping = call(*client.session, QStringLiteral("ping"), {});
    QCOMPARE(FailureClassifier::kindOf(ping.failure), FailureKind::SessionExpired);
    QCOMPARE(fired.count(), 1);
    QCOMPARE(fired.first().at(1).toString(), QStringLiteral("ping"));
}

void TestFaultProxy::faultOnInitialize()
{
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    proxy.arm({ Kind::Auth401, 1, {}, {}, 0, 0 });
    Client client = makeClient(proxy.url());
    QSignalSpy failed(client.session.get(), &ClientSession::failed);
    client.session->start();
    QVERIFY(failed.wait(WaitMs));
    QCOMPARE(FailureClassifier::kindOf(client.session->lastFailure()), FailureKind::AuthRequired);
    QCOMPARE(client.session->initializeFailure().httpStatus, 401);
    QVERIFY(client.session->initializeFailure().header("WWW-Authenticate").startsWith("Bearer resource_metadata="));
    QCOMPARE(proxy.forwarded(), 0);
}

void TestFaultProxy::faultFiredCarriesMethodAndId()
{
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    Client client;
    QVERIFY(startSession(client, proxy));
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    const quint64 armedId = proxy.arm({ Kind::ExpireAfter, 1, {}, QStringLiteral("echo"), 0, 0 });

    QJsonValue requestId;
    const Reply reply
        = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("marked")), {}, &requestId);
    QCOMPARE(FailureClassifier::kindOf(reply.failure), FailureKind::SessionExpired);
    QCOMPARE(fired.count(), 1);
    const auto fault = fired.first().at(0).value<FaultProxy::Fault>();
    QCOMPARE(fault.id, armedId);
    QCOMPARE(fault.kind, Kind::ExpireAfter);
    QCOMPARE(fault.tool, QStringLiteral("echo"));
    QCOMPARE(fault.count, 0);
    QCOMPARE(fired.first().at(1).toString(), QStringLiteral("tools/call"));
    QCOMPARE(fired.first().at(2).value<QJsonValue>(), requestId);
    QVERIFY(!requestId.isUndefined());
}

void TestFaultProxy::listensOnLoopbackOnly()
{
    FaultProxy proxy(m_upstream);
    QString error;
    QVERIFY2(proxy.listen(0, &error), qPrintable(error));
    QCOMPARE(proxy.serverAddress(), QHostAddress(QHostAddress::LocalHost));
    QCOMPARE(proxy.url().host(), QStringLiteral("127.0.0.1"));
    QCOMPARE(proxy.url().port(), int(proxy.port()));
    QCOMPARE(proxy.url().path(), QStringLiteral("/mcp"));
    QVERIFY(!proxy.listen(0, &error));
    QVERIFY(error.contains(QString::number(proxy.port())));
}

void TestFaultProxy::controlServer()
{
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    FaultControlServer control(&proxy);
    QVERIFY(control.listen());
    QNetworkAccessManager nam;
    nam.setProxy(QNetworkProxy::NoProxy);
    QUrl faults = control.url();
    faults.setPath(QStringLiteral("/faults"));

    HttpResult posted = httpRequest(
        nam, "POST", faults, R"({"kind":"expire-after","count":2,"method":"tools/call","tool":"write","delayMs":0})");
    QCOMPARE(posted.status, 201);
    const qint64 id = QJsonDocument::fromJson(posted.body).object().value(QLatin1String("id")).toInteger();
    QVERIFY(id > 0);
    QCOMPARE(proxy.armed().size(), 1);
    QCOMPARE(proxy.armed().first().kind, Kind::ExpireAfter);
    QCOMPARE(proxy.armed().first().count, 2);
    QCOMPARE(proxy.armed().first().tool, QStringLiteral("write"));

    QCOMPARE(httpRequest(nam, "POST", faults, R"({"kind":"delay","delayMs":250})").status, 201);
    QCOMPARE(httpRequest(nam, "POST", faults, R"({"kind":"melt"})").status, 400);
    QCOMPARE(httpRequest(nam, "POST", faults, R"({"kind":"delay"})").status, 400);
    QCOMPARE(httpRequest(nam, "POST", faults, R"({"kind":"cut-after","count":0})").status, 400);

    const HttpResult listed = httpRequest(nam, "GET", faults);
    QCOMPARE(listed.status, 200);
    const QJsonArray list = QJsonDocument::fromJson(listed.body).array();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list.at(0).toObject().value(QLatin1String("id")).toInteger(), id);
    QCOMPARE(list.at(0).toObject().value(QLatin1String("kind")).toString(), QStringLiteral("expire-after"));
    QCOMPARE(list.at(0).toObject().value(QLatin1String("method")).toString(), QStringLiteral("tools/call"));
    QCOMPARE(list.at(1).toObject().value(QLatin1String("delayMs")).toInt(), 250);

    QUrl one = faults;
    one.setPath(QStringLiteral("/faults/%1").arg(id));
    QCOMPARE(httpRequest(nam, "DELETE", one).status, 204);
    QCOMPARE(httpRequest(nam, "DELETE", one).status, 404);
    QCOMPARE(proxy.armed().size(), 1);
    QCOMPARE(httpRequest(nam, "DELETE", faults).status, 204);
    QVERIFY(proxy.armed().isEmpty());
    QCOMPARE(QJsonDocument::fromJson(httpRequest(nam, "GET", faults).body).array().size(), 0);

    for (const char* kind : { "close-before-head", "rst-before-head" }) {
        const QByteArray body = "{\"kind\":\"" + QByteArray(kind) + "\",\"tool\":\"write\"}";
        QCOMPARE(httpRequest(nam, "POST", faults, body).status, 201);
        QCOMPARE(FaultProxy::kindName(proxy.armed().constLast().kind), QString::fromLatin1(kind));
    }
    const QJsonObject status = QJsonDocument::fromJson(httpRequest(nam, "GET", control.url()).body).object();
    QCOMPARE(status.value(QLatin1String("duplicatesRefused")).toInt(-1), 0);
}

void TestFaultProxy::controlServerRefusesWebPages_data()
{
    // Each row is one raw request to the control API; PORT stands for its port. The browser rows are the
    // exact heads a page can make a browser send: these are wire shapes no SDK peer produces.
    QTest::addColumn<QByteArray>("head"); ///< request line and headers, without Content-Length
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error"); ///< in the JSON error body; empty for an accepted request
    const QByteArray post = "POST /faults HTTP/1.1\r\n";
    const QByteArray json = "Content-Type: application/json\r\n";
    QTest::newRow("tool on 127.0.0.1: accepted") << post + "Host: 127.0.0.1:PORT\r\n" + json << 201 << QString();
    QTest::newRow("tool on localhost, json with charset: accepted")
        << post + "Host: localhost:PORT\r\nContent-Type: application/json; charset=utf-8\r\n"
        << 201 << QString();
    QTest::newRow("DNS rebinding: a foreign Host")
        << post + "Host: rebind.example:PORT\r\n" + json << 403 << u"not 'rebind.example:PORT'"_s;
    QTest::newRow("Host with another port") << post + "Host: 127.0.0.1:1\r\n" + json << 403 << u"not '127.0.0.1:1'"_s;
    QTest::newRow("Host without a port") << post + "Host: 127.0.0.1\r\n" + json << 403 << u"not '127.0.0.1'"_s;
    QTest::newRow("no Host at all") << post + json << 403 << u"Host 127.0.0.1:PORT or localhost:PORT"_s;
    QTest::newRow("page's fetch with a browser Origin")
        << post + "Host: 127.0.0.1:PORT\r\nOrigin: http://evil.example\r\n" + json << 403
        << u"refuses requests from web pages (Origin 'http://evil.example')"_s;
    QTest::newRow("sandboxed page: Origin null")
        << post + "Host: 127.0.0.1:PORT\r\nOrigin: null\r\n" + json << 403 << u"(Origin 'null')"_s;
    QTest::newRow("simple cross-origin POST as text/plain")
        << post + "Host: 127.0.0.1:PORT\r\nContent-Type: text/plain\r\n"
        << 415 << u"only Content-Type: application/json bodies, not 'text/plain'"_s;
    QTest::newRow("form POST") << post + "Host: 127.0.0.1:PORT\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                               << 415 << u"not 'application/x-www-form-urlencoded'"_s;
    QTest::newRow("body without a Content-Type") << post + "Host: 127.0.0.1:PORT\r\n" << 415 << u"not ''"_s;
}

void TestFaultProxy::controlServerRefusesWebPages()
{
    QFETCH(QByteArray, head);
    QFETCH(int, status);
    QFETCH(QString, error);
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    FaultControlServer control(&proxy);
    QVERIFY(control.listen());
    const QByteArray port = QByteArray::number(control.port());
    const QByteArray body = R"({"kind":"cut-after","tool":"write"})";
    RawClient client(control.port());
    client.send(head.replace("PORT", port) + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, WaitMs);
    QCOMPARE(client.status(), status);
    if (error.isEmpty()) {
        QCOMPARE(proxy.armed().size(), 1);
        QCOMPARE(proxy.armed().first().kind, Kind::CutAfter);
        return;
    }
    QVERIFY(proxy.armed().isEmpty());
    const QString message = QJsonDocument::fromJson(client.body()).object().value(u"error"_s).toString();
    QVERIFY2(message.contains(QString(error).replace(u"PORT"_s, QString::fromLatin1(port))), qPrintable(message));
}

void TestFaultProxy::proxyRefusesForeignHost_data()
{
    // Raw heads to the proxy's data port: a rebound page's request carries its own name in Host, which no
    // MCP client sends to a loopback proxy. PORT stands for the proxy's port.
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<int>("status");
    QTest::newRow("127.0.0.1: forwarded") << QByteArray("127.0.0.1:PORT") << 200;
    QTest::newRow("localhost: forwarded") << QByteArray("localhost:PORT") << 200;
    QTest::newRow("a loopback name without the port (port 80, not ours)") << QByteArray("127.0.0.1") << 403;
    QTest::newRow("localhost without the port") << QByteArray("localhost") << 403;
    QTest::newRow("DNS rebinding: a foreign name without a port") << QByteArray("rebind.example") << 403;
    QTest::newRow("a loopback name with a trailing dot") << QByteArray("localhost.:PORT") << 403;
    QTest::newRow("DNS rebinding: a foreign name") << QByteArray("rebind.example:PORT") << 403;
    QTest::newRow("another port") << QByteArray("127.0.0.1:1") << 403;
    QTest::newRow("no Host") << QByteArray() << 403;
}

void TestFaultProxy::proxyRefusesForeignHost()
{
    QFETCH(QByteArray, host);
    QFETCH(int, status);
    FaultProxy proxy(m_upstream);
    QVERIFY(proxy.listen());
    const QByteArray port = QByteArray::number(proxy.port());
    const QByteArray body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    RawClient client(proxy.port());
    client.send("POST /mcp HTTP/1.1\r\n"
        + (host.isEmpty() ? QByteArray() : "Host: " + host.replace("PORT", port) + "\r\n")
        + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n"
          "Content-Length: "
        + QByteArray::number(body.size()) + "\r\n\r\n" + body);
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, WaitMs);
    if (status == 403) {
        QCOMPARE(client.status(), 403);
        QCOMPARE(proxy.forwarded(), 0);
        QVERIFY2(client.body().contains(QByteArray("Host 127.0.0.1:" + port)), client.body().constData());
        return;
    }
    // Forwarded: whatever the server answers a ping without a session, it came from upstream.
    QCOMPARE(proxy.forwarded(), 1);
    QVERIFY(client.status() != 403);
}

void TestFaultProxy::ownHostNames_data()
{
    // What both listeners (the data port and the control API) take as a Host of their own.
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("own");
    QTest::newRow("127.0.0.1 with the port") << QByteArray("127.0.0.1:8931") << 8931 << true;
    QTest::newRow("localhost in capitals, spaced") << QByteArray(" LocalHost:8931 ") << 8931 << true;
    QTest::newRow("without the port") << QByteArray("127.0.0.1") << 8931 << false;
    QTest::newRow("another port") << QByteArray("localhost:80") << 8931 << false;
    QTest::newRow("on port 80, without the port") << QByteArray("localhost") << 80 << true;
    QTest::newRow("on port 80, with it") << QByteArray("127.0.0.1:80") << 80 << true;
    QTest::newRow("on port 80, a foreign name") << QByteArray("rebind.example") << 80 << false;
    QTest::newRow("IPv6 loopback (we listen on IPv4 only)") << QByteArray("[::1]:8931") << 8931 << false;
    QTest::newRow("a name ending in localhost") << QByteArray("evil-localhost:8931") << 8931 << false;
}

void TestFaultProxy::ownHostNames()
{
    QFETCH(QByteArray, host);
    QFETCH(int, port);
    QFETCH(bool, own);
    QCOMPARE(FaultProxy::isOwnHost(host, quint16(port)), own);
}

void TestFaultProxy::cliProxy()
{
    QProcess cli;
    cli.start(QStringLiteral(MCPSCOPE_CLI),
        { QStringLiteral("proxy"), QStringLiteral("--upstream"), m_upstream.toString(), QStringLiteral("--control"),
            QStringLiteral("0") });
    QVERIFY(cli.waitForStarted(WaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(cli.canReadLine(), WaitMs);
    const QString line = QString::fromUtf8(cli.readLine()).trimmed();
    const QRegularExpressionMatch match = QRegularExpression(
        QStringLiteral("^proxy listening on (http://127\\.0\\.0\\.1:\\d+/mcp) -> (\\S+) \\(control "
                       "on (http://127\\.0\\.0\\.1:\\d+)\\)$"))
                                              .match(line);
    QVERIFY2(match.hasMatch(), qPrintable(line));
    QCOMPARE(match.captured(2), m_upstream.toString());

    QNetworkAccessManager nam;
    nam.setProxy(QNetworkProxy::NoProxy);
    QCOMPARE(httpRequest(nam, "POST", QUrl(match.captured(3) + QStringLiteral("/faults")),
                 R"({"kind":"expire-before","tool":"echo"})")
                 .status,
        201);
    Client client = makeClient(QUrl(match.captured(1)));
    QSignalSpy ready(client.session.get(), &ClientSession::ready);
    client.session->start();
    QVERIFY2(ready.wait(WaitMs), qPrintable(client.session->lastError()));
    const Reply expired = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("cli")));
    QCOMPARE(FailureClassifier::kindOf(expired.failure), FailureKind::SessionExpired);
    const Reply passed = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("cli")));
    QVERIFY2(passed.ok(), qPrintable(passed.describe()));

    cli.terminate(); // SIGTERM
    QVERIFY(cli.waitForFinished(WaitMs));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QCOMPARE(cli.exitCode(), 0);
    QVERIFY(cli.readAllStandardError().contains("fault expire-before"));
}

bool TestFaultProxy::startCountingPeer(PeerProcess& peer, QUrl* upstream)
{
    if (!peer.start(QStringLiteral("--input-type=module"),
            { QStringLiteral("-e"), QString::fromUtf8(CountingPeer), QString::number(freePort()) },
            QStringLiteral("listening"))) {
        qWarning("counting peer did not start: %s", peer.output().constData());
        return false;
    }
    const QRegularExpressionMatch port
        = QRegularExpression(QStringLiteral("listening (\\d+)")).match(QString::fromUtf8(peer.output()));
    *upstream = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port.captured(1)));
    return port.hasMatch();
}

void TestFaultProxy::beforeHeadFaults_data()
{
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QByteArray>("target");
    QTest::newRow("close-before-head after a JSON answer: FIN, no byte") << Kind::CloseBeforeHead << QByteArray("/mcp");
    QTest::newRow("rst-before-head after a JSON answer: RST, no byte") << Kind::RstBeforeHead << QByteArray("/mcp");
    // The progress event before the response is held back too: not one byte of the answer goes out.
    QTest::newRow("close-before-head after an event stream's response: FIN, no byte")
        << Kind::CloseBeforeHead << QByteArray("/mcp?sse=1");
    QTest::newRow("rst-before-head after an event stream's response: RST, no byte")
        << Kind::RstBeforeHead << QByteArray("/mcp?sse=1");
}

void TestFaultProxy::beforeHeadFaults()
{
    QFETCH(Kind, kind);
    QFETCH(QByteArray, target);
    PeerProcess peer;
    QUrl upstream;
    QVERIFY(startCountingPeer(peer, &upstream));
    FaultProxy proxy(upstream);
    QVERIFY(proxy.listen());
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    proxy.arm({ kind, 2, QStringLiteral("tools/call"), {}, 0, 0 });

    RawClient client(proxy.port());
    client.post(target, toolCallBody(7, QStringLiteral("call-a"), 1));
    QTRY_VERIFY_WITH_TIMEOUT(client.disconnected, WaitMs);
    QCOMPARE(fired.count(), 1);
    QVERIFY2(client.received.isEmpty(), client.received.constData());
    QVERIFY(client.error.has_value());
    // Qt reports a reset read (ECONNRESET) like an orderly close: both are RemoteHostClosedError.
    QCOMPARE(*client.error, QAbstractSocket::RemoteHostClosedError);
    QCOMPARE(proxy.forwarded(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(peer.output().contains("ran tools/call 7"), WaitMs);
    QCOMPARE(peer.output().count("ran tools/call 7"), 1);

#ifdef Q_OS_UNIX
    // The second firing, seen on a plain socket: exactly FIN or exactly RST, and still no byte.
    NativeClient native(proxy.port());
    QVERIFY(native.send("POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(proxy.port())
        + "\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + QByteArray::number(toolCallBody(8, QStringLiteral("call-n"), 1).size()) + "\r\n\r\n"
        + toolCallBody(8, QStringLiteral("call-n"), 1)));
    // Kept from the first look: the kernel reports ECONNRESET once, then end of file.
    NativeClient::End end = NativeClient::End::Open;
    const auto ended = [&] {
        if (end == NativeClient::End::Open)
            end = native.peek();
        return end != NativeClient::End::Open;
    };
    QTRY_VERIFY_WITH_TIMEOUT(ended(), WaitMs);
    QCOMPARE(end, kind == Kind::RstBeforeHead ? NativeClient::End::Reset : NativeClient::End::Fin);
    QCOMPARE(fired.count(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(peer.output().contains("ran tools/call 8"), WaitMs);
    QCOMPARE(peer.output().count("ran tools/call 8"), 1);
#else
    proxy.clear();
#endif

    // A client that re-sends the same attempt (what Qt's HTTP stack does after this fault) is refused.
    RawClient again(proxy.port());
    again.post(target, toolCallBody(7, QStringLiteral("call-a"), 1));
    QTRY_VERIFY_WITH_TIMEOUT(again.received.contains("call-a"), WaitMs);
    QCOMPARE(again.status(), 409);
    QCOMPARE(proxy.duplicatesRefused(), 1);
    QCOMPARE(proxy.forwarded(), fired.count());
    QCOMPARE(peer.output().count("ran tools/call 7"), 1);
}

void TestFaultProxy::duplicateAttemptIsRefused()
{
    PeerProcess peer;
    QUrl upstream;
    QVERIFY(startCountingPeer(peer, &upstream));
    FaultProxy proxy(upstream);
    QVERIFY(proxy.listen());
    QVERIFY(proxy.duplicateCheck());
    QSignalSpy refused(&proxy, &FaultProxy::duplicateRefused);
    // One keep-alive connection for all of them: the check is per attempt, not per connection.
    RawClient client(proxy.port());
    const auto exchange = [&client](const QByteArray& body) {
        client.received.clear();
        client.post("/mcp", body);
        return QTest::qWaitFor([&client] { return client.received.endsWith("}"); }, WaitMs);
    };

    QVERIFY(exchange(toolCallBody(1, QStringLiteral("call-b"), 1)));
    QCOMPARE(client.status(), 200);
    // A fault armed now must not be used up by the duplicate.
    proxy.arm({ Kind::ExpireBefore, 1, QStringLiteral("tools/call"), {}, 0, 0 });
    QVERIFY(exchange(toolCallBody(2, QStringLiteral("call-b"), 1)));
    QCOMPARE(client.status(), 409);
    const QJsonObject named = QJsonDocument::fromJson(client.body()).object();
    QCOMPARE(named.value(QLatin1String("callId")).toString(), QStringLiteral("call-b"));
    QCOMPARE(named.value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(named.value(QLatin1String("id")).toInt(), 2);
    QVERIFY(named.value(QLatin1String("message")).toString().contains(QLatin1String("already forwarded")));
    QCOMPARE(proxy.duplicatesRefused(), 1);
    QCOMPARE(refused.count(), 1);
    QCOMPARE(refused.first().at(0).toString(), QStringLiteral("call-b"));
    QCOMPARE(refused.first().at(1).toInt(), 1);
    QCOMPARE(refused.first().at(2).value<QJsonValue>(), QJsonValue(2));
    QCOMPARE(proxy.armed().size(), 1);
    QCOMPARE(proxy.forwarded(), 1);
    proxy.clear();

    // The retry of the same call is a new attempt, and requests without the identity are never refused.
    QVERIFY(exchange(toolCallBody(3, QStringLiteral("call-b"), 2)));
    QCOMPARE(client.status(), 200);
    QVERIFY(exchange(toolCallBody(4, QString(), 0)));
    QCOMPARE(client.status(), 200);
    QVERIFY(exchange(toolCallBody(4, QString(), 0)));
    QCOMPARE(client.status(), 200);
    QCOMPARE(proxy.duplicatesRefused(), 1);
    QCOMPARE(proxy.forwarded(), 4);
    QTRY_COMPARE_WITH_TIMEOUT(peer.output().count("ran tools/call"), 4, WaitMs);
    QCOMPARE(peer.output().count("ran tools/call 2"), 0);
    QVERIFY(!client.disconnected);
}

void TestFaultProxy::duplicateCheckCanBeTurnedOff()
{
    PeerProcess peer;
    QUrl upstream;
    QVERIFY(startCountingPeer(peer, &upstream));
    FaultProxy proxy(upstream);
    QVERIFY(proxy.listen());
    proxy.setDuplicateCheck(false);
    for (int id : { 1, 2 }) {
        RawClient client(proxy.port());
        client.post("/mcp", toolCallBody(id, QStringLiteral("call-c"), 1));
        QTRY_VERIFY_WITH_TIMEOUT(client.received.endsWith("}"), WaitMs);
        QCOMPARE(client.status(), 200);
    }
    QCOMPARE(proxy.duplicatesRefused(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(peer.output().count("ran tools/call"), 2, WaitMs);
}

void TestFaultProxy::legacyStreamIsRelayedAsItArrives_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<bool>("absolute");
    QTest::newRow("a relative endpoint passes as sent") << QByteArray("/sse") << false;
    QTest::newRow("an absolute endpoint on the upstream is pointed at the proxy")
        << QByteArray("/absolute-sse") << true;
}

void TestFaultProxy::legacyStreamIsRelayedAsItArrives()
{
    QFETCH(QByteArray, path);
    QFETCH(bool, absolute);
    PeerProcess peer;
    QUrl upstream;
    QVERIFY(startCountingPeer(peer, &upstream));
    upstream.setPath(QString::fromLatin1(path));
    FaultProxy proxy(upstream);
    QVERIFY(proxy.listen());
    RawClient client(proxy.port());
    client.get(path);
    // The upstream never ends this stream: its first event must come through on its own.
    QTRY_VERIFY_WITH_TIMEOUT(client.received.contains("/messages?sessionId=s1\n\n"), WaitMs);
    QCOMPARE(client.status(), 200);
    const QByteArray expected = absolute
        ? "data: http://127.0.0.1:" + QByteArray::number(proxy.port()) + "/messages?sessionId=s1\n"
        : QByteArray("data: /messages?sessionId=s1\n");
    QVERIFY2(client.received.contains(expected), client.received.constData());
    QVERIFY(!client.disconnected);
}

void TestFaultProxy::legacyAnswerIsWithheld_data()
{
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<int>("status"); ///< 0: the POST connection ends with no byte
    QTest::newRow("close-before-head") << Kind::CloseBeforeHead << 0;
    QTest::newRow("rst-before-head") << Kind::RstBeforeHead << 0;
    QTest::newRow("expire-after") << Kind::ExpireAfter << 404;
}

void TestFaultProxy::legacyAnswerIsWithheld()
{
    QFETCH(Kind, kind);
    QFETCH(int, status);
    PeerProcess peer;
    QUrl upstream;
    QVERIFY(startCountingPeer(peer, &upstream));
    upstream.setPath(QStringLiteral("/sse"));
    FaultProxy proxy(upstream);
    QVERIFY(proxy.listen());
    RawClient stream(proxy.port());
    stream.get("/sse");
    QTRY_VERIFY_WITH_TIMEOUT(stream.received.contains("sessionId=s1\n\n"), WaitMs);
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    proxy.arm({ kind, 1, QStringLiteral("tools/call"), {}, 0, 0 });

    // The server acknowledges with 202 and answers on the stream; the client gets neither.
    RawClient faulted(proxy.port());
    faulted.post("/messages?sessionId=s1", toolCallBody(9, QStringLiteral("call-l"), 1));
    if (status == 0) {
        QTRY_VERIFY_WITH_TIMEOUT(faulted.disconnected, WaitMs);
        QVERIFY2(faulted.received.isEmpty(), faulted.received.constData());
    } else {
        QTRY_VERIFY_WITH_TIMEOUT(faulted.received.endsWith("}"), WaitMs);
        QCOMPARE(faulted.status(), status);
    }
    QCOMPARE(fired.count(), 1);
    QCOMPARE(peer.output().count("ran tools/call 9"), 1);

    // The stream is alive and carries the next answer, but never the withheld one.
    RawClient passing(proxy.port());
    passing.post("/messages?sessionId=s1", toolCallBody(10, QStringLiteral("call-m"), 1));
    QTRY_VERIFY_WITH_TIMEOUT(stream.received.contains("\"id\":10"), WaitMs);
    QCOMPARE(passing.status(), 202);
    QVERIFY2(!stream.received.contains("\"id\":9"), stream.received.constData());
    QVERIFY(!stream.disconnected);
}

void TestFaultProxy::legacyStreamBreaksWhereTheAnswerWas_data()
{
    QTest::addColumn<Kind>("kind");
    QTest::newRow("cut-after cuts the event stream halfway through the answer") << Kind::CutAfter;
    QTest::newRow("drop-stream ends the event stream before the answer") << Kind::DropStream;
}

void TestFaultProxy::legacyStreamBreaksWhereTheAnswerWas()
{
    QFETCH(Kind, kind);
    PeerProcess peer;
    QUrl upstream;
    QVERIFY(startCountingPeer(peer, &upstream));
    upstream.setPath(QStringLiteral("/sse"));
    FaultProxy proxy(upstream);
    QVERIFY(proxy.listen());
    RawClient stream(proxy.port());
    stream.get("/sse");
    QTRY_VERIFY_WITH_TIMEOUT(stream.received.contains("sessionId=s1\n\n"), WaitMs);
    QSignalSpy fired(&proxy, &FaultProxy::faultFired);
    proxy.arm({ kind, 1, QStringLiteral("tools/call"), {}, 0, 0 });

    // The acknowledgement is the POST's whole answer and goes through; the stream carries the fault.
    RawClient post(proxy.port());
    post.post("/messages?sessionId=s1", toolCallBody(11, QStringLiteral("call-s"), 1));
    QTRY_VERIFY_WITH_TIMEOUT(stream.disconnected, WaitMs);
    QCOMPARE(post.status(), 202);
    QCOMPARE(fired.count(), 1);
    QCOMPARE(fired.first().at(2).value<QJsonValue>(), QJsonValue(11));
    QVERIFY2(!stream.received.contains("\"result\":{\"content\":[]}}\n\n"), stream.received.constData());
    // Chunked framing tells a cut stream from a clean end: only drop-stream sends the last chunk.
    QCOMPARE(stream.received.endsWith("0\r\n\r\n"), kind == Kind::DropStream);
    QCOMPARE(peer.output().count("ran tools/call 11"), 1);
}

QTEST_GUILESS_MAIN(TestFaultProxy)
#include "tst_faultproxy.moc"
