// The engine against the real @modelcontextprotocol/server-everything over stdio: one session,
// started once, drives every feature the inspector speaks.

#include "markerprocesses.h"
#include "session/clientsession.h"
#include "session/scriptedresponder.h"
#include "transport/stdiotransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <optional>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {

// Generous: the server starts on a shared, busy machine. Nothing here waits this long when it works.
constexpr int WaitMs = 30000;

const QString SamplingText = u"Scripted sampling answer from tst_stdioeverything"_s;
const QString RootUri = u"file:///tmp/mcpscope-integration-root"_s;
const QString ElicitedName = u"McpScope Tester"_s;

// Collects the one reply a request produces. The slot is shared so a reply that arrives after a
// failed test has returned lands somewhere valid.
class PendingReply
{
public:
    ReplyHandler handler() const
    {
        return [slot = m_slot](const Reply& reply) { *slot = reply; };
    }
    bool done() const { return m_slot->has_value(); }
    const Reply& operator*() const { return **m_slot; }
    const Reply* operator->() const { return &**m_slot; }

private:
    std::shared_ptr<std::optional<Reply>> m_slot = std::make_shared<std::optional<Reply>>();
};

QByteArray describe(const Reply& reply)
{
    return reply.describe().toUtf8()
        + " / result: " + QJsonDocument(reply.resultObject()).toJson(QJsonDocument::Compact);
}

QString textOf(const QJsonArray& content)
{
    QStringList texts;
    for (const QJsonValue& block : content) {
        if (block[u"type"_s] == u"text"_s)
            texts.append(block[u"text"_s].toString());
    }
    return texts.join(u'\n');
}

QStringList namesOf(const QJsonArray& items)
{
    QStringList names;
    for (const QJsonValue& item : items)
        names.append(item[u"name"_s].toString());
    return names;
}

// The tools server-everything 2026.8.31 lists for a client with these capabilities: 13 for
// everyone, the rest only for clients that can serve the requests the tool sends back.
QStringList expectedTools(const QJsonObject& capabilities)
{
    QStringList tools { u"echo"_s, u"get-annotated-message"_s, u"get-env"_s, u"get-resource-links"_s,
        u"get-resource-reference"_s, u"get-structured-content"_s, u"get-sum"_s, u"get-tiny-image"_s,
        u"gzip-file-as-resource"_s, u"toggle-simulated-logging"_s, u"toggle-subscriber-updates"_s,
        u"trigger-long-running-operation"_s, u"simulate-research-query"_s };
    const QJsonValue elicitation = capabilities.value(u"elicitation"_s);
    const QJsonValue taskRequests = capabilities.value(u"tasks"_s)[u"requests"_s];
    if (capabilities.contains(u"roots"_s))
        tools.append(u"get-roots-list"_s);
    if (capabilities.contains(u"sampling"_s))
        tools.append(u"trigger-sampling-request"_s);
    if (!elicitation.isUndefined())
        tools.append(u"trigger-elicitation-request"_s);
    if (!elicitation[u"url"_s].isUndefined())
        tools.append(u"trigger-url-elicitation"_s);
    if (capabilities.contains(u"sampling"_s) && !taskRequests[u"sampling"_s][u"createMessage"_s].isUndefined())
        tools.append(u"trigger-sampling-request-async"_s);
    if (!elicitation.isUndefined() && !taskRequests[u"elicitation"_s][u"create"_s].isUndefined())
        tools.append(u"trigger-elicitation-request-async"_s);
    tools.sort();
    return tools;
}

} // namespace

class TestStdioEverything : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void initialize();
    void listTools();
    void toolAnnotations();
    void echo_data();
    void echo();
    void getSum_data();
    void getSum();
    void structuredContentMatchesOutputSchema();
    void tinyImageIsPng();
    void longRunningOperationReportsProgress();
    void samplingIsAnsweredByTheResponder();
    void elicitationIsAccepted();
    void rootsComeFromTheResponder();
    void resources();
    void unknownResourceIsInvalidParams();
    void prompts();
    void completion_data();
    void completion();
    void toolErrorsComeBackAsIsError_data();
    void toolErrorsComeBackAsIsError();
    void unknownMethodIsRpcError();

private:
    Reply call(const QString& tool, const QJsonObject& arguments, const RequestOptions& options = {});

    QString m_marker = testsupport::newMarker();
    ScriptedResponder m_responder;
    std::unique_ptr<ClientSession> m_session;
};

void TestStdioEverything::initTestCase()
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    const QString server
        = QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js"_s;
    QVERIFY2(QFile::exists(server), qPrintable(server));

    m_responder.setScript(QJsonObject {
        { u"roots"_s, QJsonArray { QJsonObject { { u"uri"_s, RootUri }, { u"name"_s, u"integration-root"_s } } } },
        { u"sampling"_s, QJsonObject { { u"text"_s, SamplingText }, { u"model"_s, u"mcpscope-test-model"_s } } },
        { u"elicitation"_s,
            QJsonObject {
                { u"action"_s, u"accept"_s }, { u"content"_s, QJsonObject { { u"name"_s, ElicitedName } } } } },
    });

    StdioTransport::Options transportOptions;
    transportOptions.serverName = u"everything"_s;
    transportOptions.command = QStringLiteral(MCPSCOPE_NODE);
    transportOptions.args = QStringList { server };
    transportOptions.env.insert(testsupport::markerVariable(), m_marker);
    ClientSession::Options sessionOptions;
    sessionOptions.serverName = u"everything"_s;
    sessionOptions.requestTimeoutMs = WaitMs;
    m_session = std::make_unique<ClientSession>(std::make_unique<StdioTransport>(transportOptions), sessionOptions);
    m_session->setResponder(&m_responder);

    QSignalSpy ready(m_session.get(), &ClientSession::ready);
    QSignalSpy failed(m_session.get(), &ClientSession::failed);
    m_session->start();
    QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty(), WaitMs);
    QVERIFY2(failed.isEmpty(), qPrintable(m_session->lastError()));
    QCOMPARE(m_session->state(), ClientSession::State::Ready);

    // Later tests look tools up by name (outputSchema, annotations).
    PendingReply listed;
    m_session->listTools(listed.handler());
    QTRY_VERIFY_WITH_TIMEOUT(listed.done(), WaitMs);
    QVERIFY2(listed->ok(), describe(*listed));
}

void TestStdioEverything::cleanupTestCase()
{
    if (!m_session)
        return;
    if (m_session->state() != ClientSession::State::Closed) {
        QSignalSpy closed(m_session.get(), &ClientSession::closed);
        m_session->close();
        // server-everything ignores the closed stdin; the SIGTERM 2 s later ends it.
        QVERIFY(closed.wait(WaitMs));
    }
    QCOMPARE(m_session->state(), ClientSession::State::Closed);
    m_session.reset();
    // closed() comes after the last signal to the group; give the kernel a moment to finish it off.
    QTRY_VERIFY2_WITH_TIMEOUT(testsupport::processesWithMarker(m_marker).isEmpty(),
        qPrintable(testsupport::processesWithMarker(m_marker).join(u"; "_s)), 2000);
}

Reply TestStdioEverything::call(const QString& tool, const QJsonObject& arguments, const RequestOptions& options)
{
    auto slot = std::make_shared<std::optional<Reply>>();
    m_session->callTool(tool, arguments, options, [slot](const Reply& reply) { *slot = reply; });
    // QTRY_* returns from void functions only, so wait with the same mechanism by hand.
    if (!QTest::qWaitFor([&slot] { return slot->has_value(); }, WaitMs)) {
        Reply timedOut;
        timedOut.failure.message = u"tools/call %1 got no reply within %2 ms"_s.arg(tool).arg(WaitMs);
        return timedOut;
    }
    return **slot;
}

void TestStdioEverything::initialize()
{
    const ServerDetails& details = m_session->details();
    QCOMPARE(details.protocolVersion, u"2025-11-25"_s);
    QCOMPARE(details.serverInfo.value(u"name"_s).toString(), u"mcp-servers/everything"_s);
    for (const QString& capability : { u"tools"_s, u"resources"_s, u"prompts"_s, u"logging"_s })
        QVERIFY2(details.capabilities.contains(capability), qPrintable(capability));
    QVERIFY(details.capabilities.contains(u"completions"_s));
    QVERIFY(!details.instructions.isEmpty());
    QVERIFY(details.sessionId.startsWith(u"pid:"_s));
}

void TestStdioEverything::listTools()
{
    QSignalSpy changed(m_session.get(), &ClientSession::toolsChanged);
    PendingReply listed;
    m_session->listTools(listed.handler());
    QTRY_VERIFY_WITH_TIMEOUT(listed.done(), WaitMs);
    QVERIFY2(listed->ok(), describe(*listed));
    QVERIFY(!changed.isEmpty());

    QStringList names = namesOf(listed->resultObject().value(u"tools"_s).toArray());
    names.sort();
    // Roots, sampling and elicitation give 16 tools; elicitation.url adds trigger-url-elicitation,
    // and tasks.requests for sampling and elicitation the two *-async tools, 19 in all.
    const QJsonObject capabilities = m_responder.capabilities();
    for (const QString& needed : { u"roots"_s, u"sampling"_s, u"elicitation"_s })
        QVERIFY2(capabilities.contains(needed), qPrintable(needed));
    QCOMPARE(names, expectedTools(capabilities));
    QVERIFY(names.size() >= 16);
    QCOMPARE(m_session->tools().size(), names.size());
}

void TestStdioEverything::toolAnnotations()
{
    const ToolInfo* echo = m_session->tool(u"echo"_s);
    QVERIFY(echo);
    QCOMPARE(echo->annotations.value(u"readOnlyHint"_s), QJsonValue(true));
    QVERIFY(echo->isReadOnly());
    QVERIFY(echo->isIdempotent());

    // Calls back into the client and reaches "an LLM": not read-only, open world.
    const ToolInfo* sampling = m_session->tool(u"trigger-sampling-request"_s);
    QVERIFY(sampling);
    QCOMPARE(sampling->annotations,
        (QJsonObject { { u"readOnlyHint"_s, false }, { u"destructiveHint"_s, false }, { u"idempotentHint"_s, false },
            { u"openWorldHint"_s, true } }));
    QVERIFY(!sampling->isReadOnly());
    QVERIFY(!sampling->isIdempotent());

    const ToolInfo* structured = m_session->tool(u"get-structured-content"_s);
    QVERIFY(structured);
    QVERIFY(structured->hasOutputSchema());
    QVERIFY(!echo->hasOutputSchema());
}

void TestStdioEverything::echo_data()
{
    QTest::addColumn<QString>("message");
    QTest::newRow("plain ascii") << u"hello from McpScope"_s;
    QTest::newRow("quotes, backslashes and a newline") << u"say \"hi\"\\n\nsecond line"_s;
    QTest::newRow("non-ascii text") << u"Grüße, 世界 🎉"_s;
}

void TestStdioEverything::echo()
{
    QFETCH(QString, message);
    const Reply reply = call(u"echo"_s, { { u"message"_s, message } });
    QVERIFY2(reply.ok(), describe(reply));
    const ToolCallResult result = ToolCallResult::fromResult(reply.resultObject(), m_session->tool(u"echo"_s));
    QVERIFY(!result.isError);
    QCOMPARE(result.schemaVerdict, ToolCallResult::SchemaVerdict::NotApplicable);
    QCOMPARE(textOf(result.content), u"Echo: "_s + message);
}

void TestStdioEverything::getSum_data()
{
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("b");
    QTest::addColumn<QString>("expected");
    QTest::newRow("integers") << 2.0 << 3.0 << u"The sum of 2 and 3 is 5."_s;
    QTest::newRow("negative and fractional") << -1.5 << 0.25 << u"The sum of -1.5 and 0.25 is -1.25."_s;
}

void TestStdioEverything::getSum()
{
    QFETCH(double, a);
    QFETCH(double, b);
    QFETCH(QString, expected);
    const Reply reply = call(u"get-sum"_s, { { u"a"_s, a }, { u"b"_s, b } });
    QVERIFY2(reply.ok(), describe(reply));
    QCOMPARE(textOf(reply.resultObject().value(u"content"_s).toArray()), expected);
}

void TestStdioEverything::structuredContentMatchesOutputSchema()
{
    const Reply reply = call(u"get-structured-content"_s, { { u"location"_s, u"Chicago"_s } });
    QVERIFY2(reply.ok(), describe(reply));
    const ToolCallResult result
        = ToolCallResult::fromResult(reply.resultObject(), m_session->tool(u"get-structured-content"_s));
    QVERIFY2(result.schemaVerdict == ToolCallResult::SchemaVerdict::Valid, qPrintable(result.schemaError));
    QVERIFY(result.schemaError.isEmpty());
    const QJsonObject weather = result.structuredContent.toObject();
    QVERIFY(weather.value(u"temperature"_s).isDouble());
    QVERIFY(weather.value(u"humidity"_s).isDouble());
    QVERIFY(weather.value(u"conditions"_s).isString());
}

void TestStdioEverything::tinyImageIsPng()
{
    const Reply reply = call(u"get-tiny-image"_s, {});
    QVERIFY2(reply.ok(), describe(reply));
    QJsonObject image;
    for (const QJsonValue& block : reply.resultObject().value(u"content"_s).toArray()) {
        if (block[u"type"_s] == u"image"_s)
            image = block.toObject();
    }
    QVERIFY2(!image.isEmpty(), describe(reply));
    QCOMPARE(image.value(u"mimeType"_s).toString(), u"image/png"_s);
    const auto decoded = QByteArray::fromBase64Encoding(
        image.value(u"data"_s).toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
    QVERIFY(decoded);
    QVERIFY2(decoded.decoded.startsWith("\x89PNG\r\n\x1a\n"), decoded.decoded.left(8).toHex().constData());
}

void TestStdioEverything::longRunningOperationReportsProgress()
{
    auto updates = std::make_shared<QList<ProgressUpdate>>();
    RequestOptions options;
    options.timeoutMs = WaitMs;
    options.onProgress = [updates](const ProgressUpdate& update) { updates->append(update); };
    const Reply reply = call(u"trigger-long-running-operation"_s, { { u"duration"_s, 1 }, { u"steps"_s, 3 } }, options);
    QVERIFY2(reply.ok(), describe(reply));
    QVERIFY(textOf(reply.resultObject().value(u"content"_s).toArray()).contains(u"Steps: 3"_s));

    // stdio keeps order: every notifications/progress arrived before the result.
    QCOMPARE(updates->size(), 3);
    for (qsizetype i = 0; i < updates->size(); ++i) {
        QCOMPARE(updates->at(i).progress, double(i + 1));
        QVERIFY(updates->at(i).total.has_value());
        QCOMPARE(*updates->at(i).total, 3.0);
        if (i > 0)
            QVERIFY(updates->at(i).progress > updates->at(i - 1).progress);
    }
}

void TestStdioEverything::samplingIsAnsweredByTheResponder()
{
    const int answeredBefore = m_responder.requestsAnswered();
    const Reply reply = call(u"trigger-sampling-request"_s, { { u"prompt"_s, u"Say something"_s } });
    QVERIFY2(reply.ok(), describe(reply));
    const QString text = textOf(reply.resultObject().value(u"content"_s).toArray());
    QVERIFY2(text.contains(SamplingText), qPrintable(text));
    QVERIFY2(text.contains(u"mcpscope-test-model"_s), qPrintable(text));
    QVERIFY(m_responder.requestsAnswered() > answeredBefore);
}

void TestStdioEverything::elicitationIsAccepted()
{
    const Reply reply = call(u"trigger-elicitation-request"_s, {});
    QVERIFY2(reply.ok(), describe(reply));
    QVERIFY(!reply.resultObject().value(u"isError"_s).toBool());
    const QString text = textOf(reply.resultObject().value(u"content"_s).toArray());
    QVERIFY2(text.contains(u"User provided the requested information"_s), qPrintable(text));
    QVERIFY2(text.contains(u"- Name: "_s + ElicitedName), qPrintable(text));
    // Fields the script leaves out come from the schema's defaults.
    QVERIFY2(text.contains(u"- Favorite Integer: 42"_s), qPrintable(text));
    QVERIFY2(text.contains(u"\"action\": \"accept\""_s), qPrintable(text));
}

void TestStdioEverything::rootsComeFromTheResponder()
{
    const Reply reply = call(u"get-roots-list"_s, {});
    QVERIFY2(reply.ok(), describe(reply));
    const QString text = textOf(reply.resultObject().value(u"content"_s).toArray());
    QVERIFY2(text.contains(u"URI: "_s + RootUri), qPrintable(text));
    QVERIFY2(text.contains(u"(1 total)"_s), qPrintable(text));
}

void TestStdioEverything::resources()
{
    PendingReply listed;
    m_session->listAll(u"resources/list"_s, u"resources"_s, listed.handler());
    QTRY_VERIFY_WITH_TIMEOUT(listed.done(), WaitMs);
    QVERIFY2(listed->ok(), describe(*listed));
    const QJsonArray resources = listed->resultObject().value(u"resources"_s).toArray();
    QVERIFY(!resources.isEmpty());
    QVERIFY(!listed->resultObject().contains(u"nextCursor"_s));

    const QJsonObject first = resources.first().toObject();
    const QString uri = first.value(u"uri"_s).toString();
    QVERIFY(!uri.isEmpty());
    PendingReply read;
    m_session->request(u"resources/read"_s, { { u"uri"_s, uri } }, {}, read.handler());
    QTRY_VERIFY_WITH_TIMEOUT(read.done(), WaitMs);
    QVERIFY2(read->ok(), describe(*read));
    const QJsonArray contents = read->resultObject().value(u"contents"_s).toArray();
    QCOMPARE(contents.size(), 1);
    QCOMPARE(contents.first()[u"uri"_s].toString(), uri);
    QCOMPARE(contents.first()[u"mimeType"_s].toString(), first.value(u"mimeType"_s).toString());
    QVERIFY(!contents.first()[u"text"_s].toString().isEmpty());
}

void TestStdioEverything::unknownResourceIsInvalidParams()
{
    PendingReply read;
    m_session->request(u"resources/read"_s, { { u"uri"_s, u"demo://resource/no-such-thing"_s } }, {}, read.handler());
    QTRY_VERIFY_WITH_TIMEOUT(read.done(), WaitMs);
    QCOMPARE(read->status, Reply::Status::RpcError);
    // The spec reserves -32002 for "resource not found"; the SDK-based server sends -32602.
    QCOMPARE(read->error.code, ErrorCode::InvalidParams);
    QVERIFY2(read->error.message.contains(u"not found"_s), qPrintable(read->error.message));
}

void TestStdioEverything::prompts()
{
    PendingReply listed;
    m_session->listAll(u"prompts/list"_s, u"prompts"_s, listed.handler());
    QTRY_VERIFY_WITH_TIMEOUT(listed.done(), WaitMs);
    QVERIFY2(listed->ok(), describe(*listed));
    const QStringList names = namesOf(listed->resultObject().value(u"prompts"_s).toArray());
    QCOMPARE(
        names, (QStringList { u"simple-prompt"_s, u"args-prompt"_s, u"completable-prompt"_s, u"resource-prompt"_s }));

    PendingReply prompt;
    m_session->request(u"prompts/get"_s, { { u"name"_s, u"simple-prompt"_s } }, {}, prompt.handler());
    QTRY_VERIFY_WITH_TIMEOUT(prompt.done(), WaitMs);
    QVERIFY2(prompt->ok(), describe(*prompt));
    const QJsonArray messages = prompt->resultObject().value(u"messages"_s).toArray();
    QCOMPARE(messages.size(), 1);
    QCOMPARE(messages.first()[u"role"_s].toString(), u"user"_s);
    QCOMPARE(messages.first()[u"content"_s][u"text"_s].toString(), u"This is a simple prompt without arguments."_s);
}

void TestStdioEverything::completion_data()
{
    QTest::addColumn<QString>("argument");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QJsonObject>("context");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("department by prefix")
        << u"department"_s << u"E"_s << QJsonObject() << QStringList { u"Engineering"_s };
    QTest::newRow("all departments for an empty value")
        << u"department"_s << QString() << QJsonObject()
        << QStringList { u"Engineering"_s, u"Sales"_s, u"Marketing"_s, u"Support"_s };
    QTest::newRow("team member narrowed by the department in context")
        << u"name"_s << QString() << QJsonObject { { u"arguments"_s, QJsonObject { { u"department"_s, u"Sales"_s } } } }
        << QStringList { u"David"_s, u"Eve"_s, u"Frank"_s };
    QTest::newRow("team member without context") << u"name"_s << u"A"_s << QJsonObject() << QStringList();
}

void TestStdioEverything::completion()
{
    QFETCH(QString, argument);
    QFETCH(QString, value);
    QFETCH(QJsonObject, context);
    QFETCH(QStringList, expected);
    QJsonObject params {
        { u"ref"_s, QJsonObject { { u"type"_s, u"ref/prompt"_s }, { u"name"_s, u"completable-prompt"_s } } },
        { u"argument"_s, QJsonObject { { u"name"_s, argument }, { u"value"_s, value } } },
    };
    if (!context.isEmpty())
        params.insert(u"context"_s, context);
    PendingReply completed;
    m_session->request(u"completion/complete"_s, params, {}, completed.handler());
    QTRY_VERIFY_WITH_TIMEOUT(completed.done(), WaitMs);
    QVERIFY2(completed->ok(), describe(*completed));
    QStringList values;
    for (const QJsonValue& v : completed->resultObject().value(u"completion"_s)[u"values"_s].toArray())
        values.append(v.toString());
    QCOMPARE(values, expected);
}

void TestStdioEverything::toolErrorsComeBackAsIsError_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QJsonObject>("arguments");
    QTest::addColumn<QString>("expectedText");
    // server-everything answers both with a result carrying isError: true, never a JSON-RPC error.
    QTest::newRow("unknown tool") << u"no-such-tool"_s << QJsonObject() << u"Tool no-such-tool not found"_s;
    QTest::newRow("arguments that fail the input schema")
        << u"get-sum"_s << QJsonObject { { u"a"_s, u"not a number"_s } } << u"Input validation error"_s;
}

void TestStdioEverything::toolErrorsComeBackAsIsError()
{
    QFETCH(QString, tool);
    QFETCH(QJsonObject, arguments);
    QFETCH(QString, expectedText);
    const Reply reply = call(tool, arguments);
    QCOMPARE(reply.status, Reply::Status::Ok);
    const ToolCallResult result = ToolCallResult::fromResult(reply.resultObject(), m_session->tool(tool));
    QVERIFY(result.isError);
    QCOMPARE(result.schemaVerdict, ToolCallResult::SchemaVerdict::NotApplicable);
    const QString text = textOf(result.content);
    QVERIFY2(text.contains(expectedText), qPrintable(text));
    QVERIFY2(text.contains(u"-32602"_s), qPrintable(text));
}

void TestStdioEverything::unknownMethodIsRpcError()
{
    PendingReply reply;
    m_session->request(u"mcpscope/no-such-method"_s, {}, {}, reply.handler());
    QTRY_VERIFY_WITH_TIMEOUT(reply.done(), WaitMs);
    QCOMPARE(reply->status, Reply::Status::RpcError);
    QCOMPARE(reply->error.code, ErrorCode::MethodNotFound);
    QCOMPARE(reply->method, u"mcpscope/no-such-method"_s);
    QVERIFY(reply->written);
    // The session survives a JSON-RPC error.
    QCOMPARE(m_session->state(), ClientSession::State::Ready);
}

QTEST_GUILESS_MAIN(TestStdioEverything)
#include "tst_stdioeverything.moc"
