// HarWriter: call records with wire exchanges become HAR 1.2, checked field by field and against the
// HAR 1.2 JSON schema (tests/peers/validate-har.mjs); the wire exchange round-trips through JSON; and
// the Redactor keeps credentials out of exchanges and exports.

#include "calllog/calllogfile.h"
#include "calllog/callrecord.h"
#include "calllog/harwriter.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"

#include <QBuffer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;

namespace {
constexpr qint64 T0 = 1764400000000; // 2025-11-29T07:06:40.000Z
const QByteArray Token = "sekret-token-4711";

HttpExchange ssePost()
{
    HttpExchange e;
    e.startedAt = T0;
    e.firstByteAt = T0 + 4;
    e.endedAt = T0 + 10;
    e.method = QStringLiteral("POST");
    e.url = QStringLiteral("http://127.0.0.1:3001/mcp?tenant=a%20b");
    e.httpVersion = QStringLiteral("HTTP/1.1");
    e.status = 200;
    e.statusText = QStringLiteral("OK");
    e.requestHeaders = { { "Authorization", "Bearer " + Token }, { "Cookie", "sid=" + Token },
        { "Content-Type", "application/json" }, { "Mcp-Session-Id", "s-1" } };
    e.setRequestBody(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}})");
    e.responseHeaders = { { "Content-Type", "text/event-stream" }, { "Set-Cookie", "sid=" + Token + "; HttpOnly" } };
    e.mimeType = QStringLiteral("text/event-stream");
    e.appendResponseBody("event: message\ndata: {\"result\":{\"content\":[]},\"jsonrpc\":\"2.0\",\"id\":3}\n\n");
    return e;
}

CallRecord httpRecord()
{
    CallRecord r;
    r.callId = QStringLiteral("call-http");
    r.server = QStringLiteral("everything");
    r.transport = QStringLiteral("http");
    r.method = QStringLiteral("tools/call");
    r.tool = QStringLiteral("echo");
    r.startedAt = T0;
    r.endedAt = T0 + 30;
    CallAttempt first;
    first.number = 1;
    first.requestId = QStringLiteral("3");
    first.sentAt = T0;
    first.endedAt = T0 + 10;
    first.written = true;
    first.exchange.http = { ssePost() };
    // The second request of attempt 1: a GET that resumed its stream.
    HttpExchange resume;
    resume.startedAt = T0 + 12;
    resume.firstByteAt = T0 + 13;
    resume.endedAt = T0 + 15;
    resume.method = QStringLiteral("GET");
    resume.url = QStringLiteral("http://127.0.0.1:3001/mcp");
    resume.status = 200;
    resume.httpVersion = QStringLiteral("HTTP/1.1");
    resume.requestHeaders = { { "Last-Event-ID", "ev-7" } };
    first.exchange.http.append(resume);
    r.attempts.append(first);
    r.outcome = CallOutcome::Success;
    return r;
}

/// A POST that got no response at all (connection refused).
CallRecord failedRecord()
{
    CallRecord r;
    r.callId = QStringLiteral("call-failed");
    r.server = QStringLiteral("everything");
    r.transport = QStringLiteral("http");
    r.method = QStringLiteral("tools/call");
    r.tool = QStringLiteral("echo");
    r.startedAt = T0 + 100;
    r.endedAt = T0 + 101;
    CallAttempt a;
    a.requestId = QStringLiteral("4");
    a.sentAt = r.startedAt;
    a.endedAt = r.endedAt;
    a.failureKind = FailureKind::NotSent;
    a.error = QStringLiteral("connection refused");
    HttpExchange e;
    e.startedAt = T0 + 100;
    e.endedAt = T0 + 101;
    e.method = QStringLiteral("POST");
    e.url = QStringLiteral("http://127.0.0.1:9/mcp");
    e.requestHeaders = { { "Content-Type", "application/json" } };
    e.setRequestBody(R"({"jsonrpc":"2.0","id":4,"method":"tools/call"})");
    e.error = QStringLiteral("Connection refused");
    a.exchange.http = { e };
    r.attempts.append(a);
    r.outcome = CallOutcome::NotDispatched;
    r.rule = QStringLiteral("R1");
    return r;
}

CallRecord stdioRecord()
{
    CallRecord r;
    r.callId = QStringLiteral("call-stdio");
    r.server = QStringLiteral("local");
    r.transport = QStringLiteral("stdio");
    r.method = QStringLiteral("tools/call");
    r.tool = QStringLiteral("echo");
    r.startedAt = T0;
    r.endedAt = T0 + 1;
    CallAttempt a;
    a.requestId = QStringLiteral("1");
    a.exchange.stdio = { StdioLine::make(T0, true, R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})"),
        StdioLine::make(T0 + 1, false, R"({"jsonrpc":"2.0","id":1,"result":{}})") };
    r.attempts.append(a);
    r.outcome = CallOutcome::Success;
    return r;
}

QByteArray harOf(const QList<CallRecord>& records, const Redactor& redactor = Redactor())
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    HarWriter writer(&buffer, redactor);
    if (!writer.begin())
        return {};
    for (const CallRecord& record : records) {
        if (writer.add(record) < 0)
            return {};
    }
    if (!writer.finish())
        return {};
    return buffer.data();
}

QJsonObject parse(const QByteArray& har)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(har, &error);
    return error.error == QJsonParseError::NoError ? document.object() : QJsonObject();
}

QJsonObject header(const QJsonArray& headers, const QString& name)
{
    for (const QJsonValue& h : headers) {
        if (h.toObject().value(QLatin1String("name")).toString().compare(name, Qt::CaseInsensitive) == 0)
            return h.toObject();
    }
    return {};
}
} // namespace

class TestHarWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exchangeRoundTrip_data();
    void exchangeRoundTrip();
    void oldAttemptWithoutExchangeReads();
    void bodiesAreCutAtTheCap();
    void entryFields();
    void failedAttemptIsAValidEntry();
    void stdioRecordGivesNoEntries();
    void redactsHeadersAndSecrets();
    void redactorRedactsExchangeInPlace();
    void writeFiltersAtomically();
    void writeErrorIsReported();
    void validatesAgainstHarSchema();
};

void TestHarWriter::exchangeRoundTrip_data()
{
    QTest::addColumn<WireExchange>("exchange");
    WireExchange http;
    http.http = httpRecord().attempts.first().exchange.http;
    http.http.first().error = QStringLiteral("Operation canceled");
    http.http.first().answerOnStream = R"({"jsonrpc":"2.0","id":3,"result":{}})";
    QTest::newRow("http POST then resuming GET") << http;
    QTest::newRow("stdio request and answer") << stdioRecord().attempts.first().exchange;
    WireExchange cut;
    cut.stdio = { StdioLine::make(T0, false, QByteArray(WireBodyCap + 10, 'x')) };
    QTest::newRow("stdio line cut at the cap") << cut;
    WireExchange failed;
    failed.http = failedRecord().attempts.first().exchange.http;
    QTest::newRow("http without a response") << failed;
}

void TestHarWriter::exchangeRoundTrip()
{
    QFETCH(WireExchange, exchange);
    CallAttempt attempt;
    attempt.requestId = QStringLiteral("9");
    attempt.exchange = exchange;
    // Through the text form, as a log line does.
    const QByteArray text = QJsonDocument(attempt.toJson()).toJson(QJsonDocument::Compact);
    const CallAttempt back = CallAttempt::fromJson(QJsonDocument::fromJson(text).object());
    QCOMPARE(back.exchange, exchange);
    QCOMPARE(back.toJson(), attempt.toJson());
}

void TestHarWriter::oldAttemptWithoutExchangeReads()
{
    // A schema-1 attempt from before exchanges: reads with an empty one, and writes none back.
    const QByteArray old = R"({"number":1,"requestId":"2","sessionId":"","sentAt":5,"firstByteAt":0,"endedAt":6,)"
                           R"("written":true})";
    const CallAttempt attempt = CallAttempt::fromJson(QJsonDocument::fromJson(old).object());
    QVERIFY(attempt.exchange.isEmpty());
    QVERIFY(!attempt.toJson().contains(QLatin1String("exchange")));
    QCOMPARE(attempt.toJson(), QJsonDocument::fromJson(old).object());
}

void TestHarWriter::bodiesAreCutAtTheCap()
{
    // "é" is two bytes: a cap in the middle of one must not leave half a character.
    HttpExchange e;
    const QByteArray chunk = QString(1000, QChar(0xE9)).toUtf8();
    for (int i = 0; i < 300; ++i)
        e.appendResponseBody(chunk);
    QVERIFY(e.truncated);
    QCOMPARE(e.responseBodySize, qint64(chunk.size()) * 300);
    QVERIFY(e.responseBody.size() <= WireBodyCap);
    QVERIFY(e.responseBody.size() >= WireBodyCap - 1);
    QCOMPARE(QString::fromUtf8(e.responseBody).toUtf8(), e.responseBody);
    QCOMPARE(HttpExchange::fromJson(e.toJson()), e);

    HttpExchange post;
    post.setRequestBody(QByteArray(WireBodyCap * 2, 'a'));
    QVERIFY(post.truncated);
    QCOMPARE(post.requestBody.size(), WireBodyCap);
    QCOMPARE(post.requestBodySize, WireBodyCap * 2);
}

void TestHarWriter::entryFields()
{
    const QJsonObject har = parse(harOf({ httpRecord() }));
    const QJsonObject log = har.value(QLatin1String("log")).toObject();
    QCOMPARE(log.value(QLatin1String("version")).toString(), QStringLiteral("1.2"));
    const QJsonObject creator = log.value(QLatin1String("creator")).toObject();
    QCOMPARE(creator.value(QLatin1String("name")).toString(), QStringLiteral("McpScope"));
    QVERIFY(!creator.value(QLatin1String("version")).toString().isEmpty());
    const QJsonArray entries = log.value(QLatin1String("entries")).toArray();
    QCOMPARE(entries.size(), 2); // the POST and the GET that resumed its stream

    const QJsonObject post = entries.at(0).toObject();
    QCOMPARE(post.value(QLatin1String("startedDateTime")).toString(), QStringLiteral("2025-11-29T07:06:40.000Z"));
    QCOMPARE(post.value(QLatin1String("time")).toInteger(), 10);
    const QJsonObject timings = post.value(QLatin1String("timings")).toObject();
    QCOMPARE(timings.value(QLatin1String("send")).toInteger(), 0);
    QCOMPARE(timings.value(QLatin1String("wait")).toInteger(), 4);
    QCOMPARE(timings.value(QLatin1String("receive")).toInteger(), 6);
    QCOMPARE(timings.value(QLatin1String("dns")).toInteger(), -1);
    QVERIFY(post.value(QLatin1String("cache")).isObject());

    const QJsonObject request = post.value(QLatin1String("request")).toObject();
    QCOMPARE(request.value(QLatin1String("method")).toString(), QStringLiteral("POST"));
    QCOMPARE(request.value(QLatin1String("url")).toString(), QStringLiteral("http://127.0.0.1:3001/mcp?tenant=a%20b"));
    QCOMPARE(request.value(QLatin1String("httpVersion")).toString(), QStringLiteral("HTTP/1.1"));
    QVERIFY(request.value(QLatin1String("cookies")).isArray());
    QCOMPARE(request.value(QLatin1String("headersSize")).toInteger(), -1);
    QCOMPARE(request.value(QLatin1String("bodySize")).toInteger(), ssePost().requestBodySize);
    const QJsonArray query = request.value(QLatin1String("queryString")).toArray();
    QCOMPARE(query.size(), 1);
    QCOMPARE(query.at(0).toObject().value(QLatin1String("value")).toString(), QStringLiteral("a b"));
    QCOMPARE(header(request.value(QLatin1String("headers")).toArray(), QStringLiteral("Mcp-Session-Id"))
                 .value(QLatin1String("value"))
                 .toString(),
        QStringLiteral("s-1"));
    const QJsonObject postData = request.value(QLatin1String("postData")).toObject();
    QCOMPARE(postData.value(QLatin1String("mimeType")).toString(), QStringLiteral("application/json"));
    QVERIFY(postData.value(QLatin1String("text")).toString().contains(QLatin1String("\"method\":\"tools/call\"")));

    const QJsonObject response = post.value(QLatin1String("response")).toObject();
    QCOMPARE(response.value(QLatin1String("status")).toInt(), 200);
    QCOMPARE(response.value(QLatin1String("statusText")).toString(), QStringLiteral("OK"));
    QCOMPARE(response.value(QLatin1String("httpVersion")).toString(), QStringLiteral("HTTP/1.1"));
    QCOMPARE(response.value(QLatin1String("redirectURL")).toString(), QString());
    QCOMPARE(response.value(QLatin1String("headersSize")).toInteger(), -1);
    const QJsonObject content = response.value(QLatin1String("content")).toObject();
    QCOMPARE(content.value(QLatin1String("mimeType")).toString(), QStringLiteral("text/event-stream"));
    QCOMPARE(content.value(QLatin1String("size")).toInteger(), ssePost().responseBodySize);
    QVERIFY(content.value(QLatin1String("text")).toString().startsWith(QLatin1String("event: message\n")));
    QCOMPARE(response.value(QLatin1String("bodySize")).toInteger(), ssePost().responseBodySize);

    const QJsonObject custom = post.value(QLatin1String("_mcpscope")).toObject();
    QCOMPARE(custom.value(QLatin1String("callId")).toString(), QStringLiteral("call-http"));
    QCOMPARE(custom.value(QLatin1String("attempt")).toInt(), 1);
    QCOMPARE(custom.value(QLatin1String("request")).toInt(), 0);
    QCOMPARE(custom.value(QLatin1String("tool")).toString(), QStringLiteral("echo"));
    QCOMPARE(custom.value(QLatin1String("outcome")).toString(), QStringLiteral("success"));

    const QJsonObject get = entries.at(1).toObject();
    QCOMPARE(get.value(QLatin1String("request")).toObject().value(QLatin1String("method")).toString(),
        QStringLiteral("GET"));
    QVERIFY(!get.value(QLatin1String("request")).toObject().contains(QLatin1String("postData")));
    QCOMPARE(get.value(QLatin1String("_mcpscope")).toObject().value(QLatin1String("request")).toInt(), 1);
}

void TestHarWriter::failedAttemptIsAValidEntry()
{
    const QJsonObject har = parse(harOf({ failedRecord() }));
    const QJsonArray entries = har.value(QLatin1String("log")).toObject().value(QLatin1String("entries")).toArray();
    QCOMPARE(entries.size(), 1);
    const QJsonObject entry = entries.at(0).toObject();
    const QJsonObject response = entry.value(QLatin1String("response")).toObject();
    QCOMPARE(response.value(QLatin1String("status")).toInt(), 0);
    QCOMPARE(response.value(QLatin1String("statusText")).toString(), QString());
    QCOMPARE(response.value(QLatin1String("httpVersion")).toString(), QString());
    QCOMPARE(response.value(QLatin1String("content")).toObject().value(QLatin1String("size")).toInteger(), 0);
    QVERIFY(response.value(QLatin1String("headers")).toArray().isEmpty());
    QCOMPARE(entry.value(QLatin1String("time")).toInteger(), 1);
    const QJsonObject custom = entry.value(QLatin1String("_mcpscope")).toObject();
    QCOMPARE(custom.value(QLatin1String("error")).toString(), QStringLiteral("Connection refused"));
    QCOMPARE(custom.value(QLatin1String("failureKind")).toString(), QStringLiteral("not_sent"));
    QCOMPARE(custom.value(QLatin1String("rule")).toString(), QStringLiteral("R1"));
}

void TestHarWriter::stdioRecordGivesNoEntries()
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    HarWriter writer(&buffer);
    QVERIFY(writer.begin());
    QCOMPARE(writer.add(stdioRecord()), 0);
    QCOMPARE(writer.add(CallRecord()), 0);
    QCOMPARE(writer.add(httpRecord()), 2);
    QVERIFY(writer.finish());
    QCOMPARE(writer.entriesWritten(), 2);
    const QJsonObject har = parse(buffer.data());
    QCOMPARE(har.value(QLatin1String("log")).toObject().value(QLatin1String("entries")).toArray().size(), 2);
    QVERIFY(!buffer.data().contains("call-stdio"));

    const QJsonObject empty = parse(harOf({ stdioRecord() }));
    QVERIFY(empty.value(QLatin1String("log")).toObject().value(QLatin1String("entries")).isArray());
    QCOMPARE(empty.value(QLatin1String("log")).toObject().value(QLatin1String("entries")).toArray().size(), 0);
}

void TestHarWriter::redactsHeadersAndSecrets()
{
    CallRecord record = httpRecord();
    // The token also hides in a body, an error text and (as a secret value) a URL.
    HttpExchange& post = record.attempts.first().exchange.http.first();
    post.url += QStringLiteral("&key=") + QString::fromLatin1(Token);
    post.setRequestBody(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"token":")" + Token + "\"}}");
    record.attempts.first().error = QStringLiteral("401 with Authorization: Bearer ") + QString::fromLatin1(Token);
    Redactor redactor;
    redactor.addSecretValue(QString::fromLatin1(Token));
    const QByteArray har = harOf({ record }, redactor);
    QVERIFY(!har.isEmpty());
    QVERIFY2(!har.contains(Token), har.constData());

    // Without the secret value, the header lists are still redacted by name.
    const QByteArray byName = harOf({ httpRecord() });
    QVERIFY2(!byName.contains(Token), byName.constData());
    const QJsonObject entry = parse(byName)
                                  .value(QLatin1String("log"))
                                  .toObject()
                                  .value(QLatin1String("entries"))
                                  .toArray()
                                  .at(0)
                                  .toObject();
    const QJsonArray requestHeaders
        = entry.value(QLatin1String("request")).toObject().value(QLatin1String("headers")).toArray();
    QCOMPARE(header(requestHeaders, QStringLiteral("Authorization")).value(QLatin1String("value")).toString(),
        Redactor::placeholder());
    QCOMPARE(header(requestHeaders, QStringLiteral("Cookie")).value(QLatin1String("value")).toString(),
        Redactor::placeholder());
    const QJsonArray responseHeaders
        = entry.value(QLatin1String("response")).toObject().value(QLatin1String("headers")).toArray();
    QCOMPARE(header(responseHeaders, QStringLiteral("Set-Cookie")).value(QLatin1String("value")).toString(),
        Redactor::placeholder());
    QCOMPARE(header(responseHeaders, QStringLiteral("Content-Type")).value(QLatin1String("value")).toString(),
        QStringLiteral("text/event-stream"));

    // The JSONL export of the same record keeps no token either.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("out.jsonl"));
    QString error;
    QVERIFY2(CallLogWriter::writeJsonl(path, { record }, {}, &error, redactor), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray jsonl = file.readAll();
    QVERIFY(jsonl.contains("\"exchange\""));
    QVERIFY2(!jsonl.contains(Token), jsonl.constData());
}

void TestHarWriter::redactorRedactsExchangeInPlace()
{
    ServerConfig config;
    config.name = QStringLiteral("s");
    config.headers = { { QStringLiteral("Authorization"), QStringLiteral("Bearer ") + QString::fromLatin1(Token) } };
    Redactor redactor;
    redactor.addServer(config);
    WireExchange exchange;
    exchange.http = { ssePost() };
    exchange.http.first().responseBody = "echo: " + Token;
    const QByteArray line = "{\"token\":\"" + Token + "\"}";
    exchange.stdio = { StdioLine::make(T0, true, line) };
    redactor.redactExchange(exchange);
    const QByteArray text = QJsonDocument(exchange.toJson()).toJson();
    QVERIFY2(!text.contains(Token), text.constData());
    QCOMPARE(exchange.http.first().requestHeaders.first().second, Redactor::placeholder().toLatin1());
    // What is not secret stays as it was.
    QCOMPARE(exchange.http.first().requestHeaders.at(2).second, QByteArray("application/json"));
    QCOMPARE(exchange.http.first().responseBody, QByteArray("echo: [redacted]"));

    // Header names are found in any case; bytes with nothing secret in them are not even copied.
    const QByteArray mention = "x-note: authorization: bearer zzzz-yyyy";
    QCOMPARE(Redactor().redactWire(mention), QByteArray("x-note: authorization: [redacted]"));
    const QByteArray plain = R"({"jsonrpc":"2.0","id":1,"result":{"text":"café"}})";
    QVERIFY(redactor.redactWire(plain).isSharedWith(plain));

    // redactRecord redacts header lists ({name, value}) by name.
    CallRecord record = httpRecord();
    const QByteArray redacted = QJsonDocument(Redactor().redactRecord(record)).toJson();
    QVERIFY2(!redacted.contains(Token), redacted.constData());
    QVERIFY(redacted.contains("Mcp-Session-Id"));
}

void TestHarWriter::writeFiltersAtomically()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("calls.har"));
    CallLogFilter filter;
    filter.outcomes = { CallOutcome::NotDispatched };
    const QList<CallRecord> records { httpRecord(), failedRecord(), stdioRecord() };
    QCOMPARE(HarWriter::countEntries(records, filter), 1);
    QCOMPARE(HarWriter::countEntries(records, {}), 3);
    QString error;
    QVERIFY2(HarWriter::write(path, records, filter, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray entries
        = parse(file.readAll()).value(QLatin1String("log")).toObject().value(QLatin1String("entries")).toArray();
    QCOMPARE(entries.size(), 1);
    QCOMPARE(entries.at(0).toObject().value(QLatin1String("_mcpscope")).toObject().value(QLatin1String("callId")),
        QJsonValue(QStringLiteral("call-failed")));
}

void TestHarWriter::writeErrorIsReported()
{
    QString error;
    QVERIFY(!HarWriter::write(QStringLiteral("/nonexistent-dir/calls.har"), { httpRecord() }, {}, &error));
    QVERIFY2(error.contains(QLatin1String("/nonexistent-dir/calls.har")), qPrintable(error));

    QBuffer readOnly;
    readOnly.open(QIODevice::ReadOnly);
    HarWriter writer(&readOnly);
    QVERIFY(!writer.begin());
    QCOMPARE(writer.add(httpRecord()), -1);
    QVERIFY(!writer.finish());
    QVERIFY(!writer.errorString().isEmpty());
}

void TestHarWriter::validatesAgainstHarSchema()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("calls.har"));
    QString error;
    QVERIFY2(HarWriter::write(path, { httpRecord(), failedRecord(), stdioRecord() }, {}, &error), qPrintable(error));
    QProcess node;
    node.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(QStringLiteral(MCPSCOPE_NODE), { QStringLiteral("validate-har.mjs"), path });
    QVERIFY(node.waitForFinished(60000));
    const QByteArray output = node.readAll();
    QVERIFY2(node.exitStatus() == QProcess::NormalExit && node.exitCode() == 0, output.constData());
    QVERIFY2(output.contains("valid: 3 entries"), output.constData());

    // The validator does reject what is not HAR 1.2.
    QFile broken(dir.filePath(QStringLiteral("broken.har")));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write(R"({"log":{"version":"1.2","creator":{"name":"x"},"entries":[{"time":1}]}})");
    broken.close();
    node.start(QStringLiteral(MCPSCOPE_NODE), { QStringLiteral("validate-har.mjs"), broken.fileName() });
    QVERIFY(node.waitForFinished(60000));
    QCOMPARE(node.exitCode(), 1);
}

QTEST_GUILESS_MAIN(TestHarWriter)
#include "tst_harwriter.moc"
