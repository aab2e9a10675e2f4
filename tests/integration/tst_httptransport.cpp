// Streamable HTTP and legacy SSE against the real server-everything (started by the test on a
// random loopback port), plus the project's SDK peer for stream resumption and a deliberate mock
// (tests/peers/bad-http.mjs) for wire behaviours no real server produces.

#include "peerprocess.h"
#include "recovery/failureclassifier.h"
#include "session/clientsession.h"
#include "session/scriptedresponder.h"
#include "transport/legacyssetransport.h"
#include "transport/streamablehttptransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {
constexpr int WaitMs = 30000;

/// Runs one request and waits for its reply.
Reply call(ClientSession& session, const QString& method, const QJsonObject& params, RequestOptions options = {})
{
    std::optional<Reply> result;
    session.request(method, params, options, [&result](const Reply& reply) { result = reply; });
    (void)QTest::qWaitFor([&result] { return result.has_value(); }, WaitMs);
    if (!result) {
        Reply none;
        none.failure.message = QStringLiteral("no reply within the test's wait");
        return none;
    }
    return *result;
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
} // namespace

class TestHttpTransport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everythingFeatures_data();
    void everythingFeatures();
    void deletedSessionIsSessionExpired();
    void resumedStreamDeliversResponse();
    void badInput_data();
    void badInput();
};

void TestHttpTransport::everythingFeatures_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("path");
    QTest::newRow("streamable http") << QStringLiteral("streamableHttp") << QStringLiteral("/mcp");
    QTest::newRow("legacy sse") << QStringLiteral("sse") << QStringLiteral("/sse");
}

void TestHttpTransport::everythingFeatures()
{
    QFETCH(QString, mode);
    QFETCH(QString, path);
    const quint16 port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PORT"), QString::number(port));
    PeerProcess server;
    QVERIFY2(server.start(everythingScript(), { mode }, QString::number(port), env), server.output().constData());

    HttpTransportOptions options;
    options.serverName = QStringLiteral("everything-") + mode;
    options.url = QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path));
    std::unique_ptr<Transport> transport;
    if (mode == QLatin1String("sse"))
        transport = std::make_unique<LegacySseTransport>(options);
    else
        transport = std::make_unique<StreamableHttpTransport>(options);
    ScriptedResponder responder(QJsonObject {
        { QStringLiteral("roots"),
            QJsonArray { QJsonObject { { QStringLiteral("uri"), QStringLiteral("file:///tmp") } } } },
        { QStringLiteral("sampling"), QJsonObject { { QStringLiteral("text"), QStringLiteral("scripted sample") } } },
        { QStringLiteral("elicitation"), QJsonObject { { QStringLiteral("action"), QStringLiteral("accept") } } },
    });
    ClientSession session(std::move(transport), ClientSession::Options { options.serverName, 30000, 0 });
    session.setResponder(&responder);
    QSignalSpy ready(&session, &ClientSession::ready);
    session.start();
    QVERIFY2(ready.wait(WaitMs), qPrintable(session.lastError()));
    QCOMPARE(session.details().protocolVersion, QStringLiteral("2025-11-25"));
    QVERIFY(!session.sessionId().isEmpty());
    QCOMPARE(
        session.details().serverInfo.value(QLatin1String("name")).toString(), QStringLiteral("mcp-servers/everything"));

    std::optional<Reply> listed;
    session.listTools([&listed](const Reply& reply) { listed = reply; });
    QTRY_VERIFY_WITH_TIMEOUT(listed.has_value(), WaitMs);
    QVERIFY(listed->ok());
    // 12 base tools plus the ones for roots, form and url elicitation, sampling and the research task.
    // The two *-async tools need the client tasks capability, which McpScope does not declare.
    QTRY_COMPARE_WITH_TIMEOUT(session.tools().size(), 17, WaitMs);
    QVERIFY(session.tool(QStringLiteral("echo")));
    QVERIFY(session.tool(QStringLiteral("echo"))->isReadOnly());

    Reply echo = call(session, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("echo") },
            { QStringLiteral("arguments"),
                QJsonObject { { QStringLiteral("message"), QStringLiteral("over http") } } } });
    QVERIFY2(echo.ok(), qPrintable(echo.describe()));
    QCOMPARE(firstText(echo), QStringLiteral("Echo: over http"));

    Reply structured = call(session, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("get-structured-content") },
            { QStringLiteral("arguments"),
                QJsonObject { { QStringLiteral("location"), QStringLiteral("Chicago") } } } });
    QVERIFY2(structured.ok(), qPrintable(structured.describe()));
    const ToolCallResult checked
        = ToolCallResult::fromResult(structured.resultObject(), session.tool(QStringLiteral("get-structured-content")));
    QCOMPARE(checked.schemaVerdict, ToolCallResult::SchemaVerdict::Valid);

    QList<double> progress;
    RequestOptions withProgress;
    withProgress.onProgress = [&progress](const ProgressUpdate& update) { progress.append(update.progress); };
    Reply longRunning = call(session, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("trigger-long-running-operation") },
            { QStringLiteral("arguments"),
                QJsonObject { { QStringLiteral("duration"), 1 }, { QStringLiteral("steps"), 3 } } } },
        withProgress);
    QVERIFY2(longRunning.ok(), qPrintable(longRunning.describe()));
    QCOMPARE(progress, QList<double>({ 1, 2, 3 }));

    Reply sampling = call(session, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("trigger-sampling-request") },
            { QStringLiteral("arguments"), QJsonObject { { QStringLiteral("prompt"), QStringLiteral("hello") } } } });
    QVERIFY2(sampling.ok(), qPrintable(sampling.describe()));
    QVERIFY(firstText(sampling).contains(QLatin1String("scripted sample")));

    Reply resources = call(session, QStringLiteral("resources/list"), {});
    QVERIFY(resources.ok());
    const QString uri = resources.resultObject()
                            .value(QLatin1String("resources"))
                            .toArray()
                            .first()
                            .toObject()
                            .value(QLatin1String("uri"))
                            .toString();
    Reply read = call(session, QStringLiteral("resources/read"), { { QStringLiteral("uri"), uri } });
    QVERIFY2(read.ok(), qPrintable(read.describe()));
    QCOMPARE(read.resultObject().value(QLatin1String("contents")).toArray().size(), 1);

    Reply unknown = call(session, QStringLiteral("no/such/method"), {});
    QCOMPARE(unknown.status, Reply::Status::RpcError);
    QCOMPARE(unknown.error.code, ErrorCode::MethodNotFound);

    QSignalSpy closed(&session, &ClientSession::closed);
    session.close();
    QVERIFY(closed.wait(WaitMs));
}

void TestHttpTransport::deletedSessionIsSessionExpired()
{
    const quint16 port = freePort();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PORT"), QString::number(port));
    PeerProcess server;
    QVERIFY(server.start(everythingScript(), { QStringLiteral("streamableHttp") }, QString::number(port), env));

    HttpTransportOptions options;
    options.serverName = QStringLiteral("everything-http");
    options.url = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
    auto owned = std::make_unique<StreamableHttpTransport>(options);
    StreamableHttpTransport* transport = owned.get();
    ClientSession session(std::move(owned), ClientSession::Options { options.serverName, 30000, 0 });
    QSignalSpy ready(&session, &ClientSession::ready);
    session.start();
    QVERIFY(ready.wait(WaitMs));
    const QString oldSession = session.sessionId();

    transport->terminateSession();
    // The server forgets the session once the DELETE is through; then any request carrying it fails.
    QTRY_VERIFY_WITH_TIMEOUT(server.output().contains("termination"), WaitMs);
    Reply ping = call(session, QStringLiteral("ping"), {});
    QCOMPARE(ping.status, Reply::Status::Failed);
    QCOMPARE(FailureClassifier::kindOf(ping.failure), FailureKind::SessionExpired);
    QCOMPARE(ping.failure.sessionId, oldSession);
    QVERIFY(ping.failure.httpStatus == 404 || ping.failure.httpStatus == 400);
    QVERIFY(ping.failure.message.contains(oldSession));
}

void TestHttpTransport::resumedStreamDeliversResponse()
{
    const quint16 port = freePort();
    PeerProcess server;
    QVERIFY(server.start(
        peersDir() + QStringLiteral("/resumable-http.mjs"), { QString::number(port) }, QStringLiteral("listening")));
    HttpTransportOptions options;
    options.serverName = QStringLiteral("resumable");
    options.url = QUrl(QStringLiteral("http://127.0.0.1:%1/mcp").arg(port));
    auto owned = std::make_unique<StreamableHttpTransport>(options);
    StreamableHttpTransport* transport = owned.get();
    ClientSession session(std::move(owned), ClientSession::Options { options.serverName, 30000, 0 });
    QSignalSpy ready(&session, &ClientSession::ready);
    session.start();
    QVERIFY(ready.wait(WaitMs));
    Reply reply = call(session, QStringLiteral("tools/call"),
        { { QStringLiteral("name"), QStringLiteral("close-then-echo") },
            { QStringLiteral("arguments"), QJsonObject { { QStringLiteral("message"), QStringLiteral("hi") } } } });
    QVERIFY2(reply.ok(), qPrintable(reply.describe()));
    QCOMPARE(firstText(reply), QStringLiteral("resumed: hi"));
    // The answer can only have come over a GET that resumed the closed stream.
    QCOMPARE(transport->resumedStreams(), 1);
}

void TestHttpTransport::badInput_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QStringList>("extraArgs");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("invalid JSON in an SSE data line")
        << QStringLiteral("invalid-sse-json") << QStringList() << 4 << QStringLiteral("not a JSON-RPC message");
    QTest::newRow("SSE stream that never sends the response")
        << QStringLiteral("never-answers") << QStringList { QStringLiteral("--timeout"), QStringLiteral("2") } << 7
        << QStringLiteral("did not answer tools/call");
    QTest::newRow("500 with an HTML body")
        << QStringLiteral("html-500") << QStringList() << 4 << QStringLiteral("500 Internal Server Error");
    QTest::newRow("70 MB response") << QStringLiteral("huge") << QStringList() << 4 << QStringLiteral("byte limit");
    QTest::newRow("nothing listening") << QString() << QStringList() << 4 << QStringLiteral("Connection refused");
}

void TestHttpTransport::badInput()
{
    QFETCH(QString, mode);
    QFETCH(QStringList, extraArgs);
    QFETCH(int, exitCode);
    QFETCH(QString, messagePart);
    const quint16 port = freePort();
    PeerProcess server;
    if (!mode.isEmpty())
        QVERIFY(server.start(peersDir() + QStringLiteral("/bad-http.mjs"), { QString::number(port), mode },
            QStringLiteral("listening")));
    const CliRun run
        = runCli(QStringList { QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:%1/mcp").arg(port),
                     QStringLiteral("--transport"), QStringLiteral("http") }
            + extraArgs + QStringList { QStringLiteral("call"), QStringLiteral("echo") });
    QVERIFY2(run.exitCode == exitCode, run.err.constData());
    QVERIFY2(run.err.contains(messagePart.toUtf8()), run.err.constData());
}

QTEST_GUILESS_MAIN(TestHttpTransport)
#include "tst_httptransport.moc"
