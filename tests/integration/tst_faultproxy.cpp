// FaultProxy in front of the real server-everything (Streamable HTTP, started once on a random
// loopback port), driven by the real engine: ClientSession over StreamableHttpTransport pointed at
// the proxy. server-everything keeps an event store, so a stream the proxy cuts can be resumed;
// the TransportLost rows use a plain SDK peer without one, started inline below.

#include "fault/faultcontrolserver.h"
#include "fault/faultproxy.h"
#include "peerprocess.h"
#include "session/clientsession.h"
#include "transport/streamablehttptransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <optional>

using namespace mcpscope;
using namespace mcpscope::test;

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
    void cliProxy();

private:
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
        QVERIFY2(reply.failure.kind() == failure, qPrintable(reply.describe()));
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
    QVERIFY2(reply.failure.kind() == FailureKind::TransportLost, qPrintable(reply.describe()));
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
        QCOMPARE(expired.failure.kind(), FailureKind::SessionExpired);
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
    QCOMPARE(failing.failure.kind(), FailureKind::SessionExpired);
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
    QCOMPARE(ping.failure.kind(), FailureKind::SessionExpired);
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
    QCOMPARE(client.session->lastFailureKind(), FailureKind::AuthRequired);
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
    QCOMPARE(reply.failure.kind(), FailureKind::SessionExpired);
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
    QCOMPARE(expired.failure.kind(), FailureKind::SessionExpired);
    const Reply passed = call(*client.session, QStringLiteral("tools/call"), echo(QStringLiteral("cli")));
    QVERIFY2(passed.ok(), qPrintable(passed.describe()));

    cli.terminate(); // SIGTERM
    QVERIFY(cli.waitForFinished(WaitMs));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QCOMPARE(cli.exitCode(), 0);
    QVERIFY(cli.readAllStandardError().contains("fault expire-before"));
}

QTEST_GUILESS_MAIN(TestFaultProxy)
#include "tst_faultproxy.moc"
