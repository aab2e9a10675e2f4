#include "calllog/calllogfile.h"
#include "calllog/compactjsonwriter.h"
#include "calllog/storedstring.h"

#include <QCborMap>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <limits>

using namespace mcpscope;

namespace {

const QStringList Servers { QStringLiteral("alpha"), QStringLiteral("beta"), QStringLiteral("gamma") };
const QStringList Tools { QStringLiteral("echo"), QStringLiteral("add"), QStringLiteral("writeFile"),
    QStringLiteral("slow") };
const QList<CallOutcome> Outcomes { CallOutcome::Success, CallOutcome::ToolError, CallOutcome::Timeout,
    CallOutcome::OutcomeUncertain, CallOutcome::TransportError };

/// Record i of a varied set: server i%3, tool i%4 (every 10th is a tools/list), outcome i%5.
CallRecord makeRecord(int i)
{
    CallRecord r;
    r.callId = QStringLiteral("call-%1").arg(i, 3, 10, QLatin1Char('0'));
    r.server = Servers.at(i % 3);
    r.transport = i % 2 ? QStringLiteral("http") : QStringLiteral("stdio");
    if (i % 10 == 9) {
        r.method = QStringLiteral("tools/list");
    } else {
        r.method = QStringLiteral("tools/call");
        r.tool = Tools.at(i % 4);
        r.arguments = QJsonObject { { QStringLiteral("n"), i }, { QStringLiteral("text"), QStringLiteral("é\"\n,") } };
    }
    r.annotations = QJsonObject { { QStringLiteral("readOnlyHint"), i % 4 != 2 } };
    r.toolListed = i % 3 != 0;
    r.policy = QJsonObject { { QStringLiteral("idempotentReplay"), i % 2 == 0 } };
    r.startedAt = 1764400000000 + i * 1000;
    r.endedAt = r.startedAt + 10 + i;
    const int attempts = 1 + i % 3;
    for (int a = 1; a <= attempts; ++a) {
        CallAttempt attempt;
        attempt.number = a;
        attempt.requestId = QString::number(i * 10 + a);
        attempt.sessionId = QStringLiteral("session-%1").arg(a);
        attempt.sentAt = r.startedAt + a;
        attempt.firstByteAt = a == attempts ? r.startedAt + a + 2 : 0;
        attempt.endedAt = r.startedAt + a + 3;
        attempt.httpStatus = r.transport == QLatin1String("http") ? (a == attempts ? 200 : 502) : 0;
        attempt.written = a % 2 == 1;
        // How a stdio child that died mid-call ended: an exit code (0 included) or a signal.
        if (r.transport == QLatin1String("stdio") && a < attempts) {
            if (i % 4 == 0)
                attempt.signal = 9;
            else
                attempt.exitCode = i % 3;
        }
        if (a < attempts) {
            attempt.failureKind = FailureKind(a % (int(FailureKind::ToolError) + 1));
            attempt.verdict = DispatchVerdict(a % (int(DispatchVerdict::Executed) + 1));
            attempt.error = QStringLiteral("attempt %1 failed").arg(a);
            CallDecision decision;
            decision.afterAttempt = a;
            decision.rule = QStringLiteral("R%1").arg(1 + (i + a) % 9);
            decision.action = QStringLiteral("retry");
            decision.reason = QStringLiteral("because %1").arg(a);
            r.decisions.append(decision);
        }
        r.attempts.append(attempt);
    }
    if (i % 4 == 1) {
        r.reconnects.append(CallReconnect { QStringLiteral("old"), QStringLiteral("new"), r.startedAt + 5, 7,
            i % 8 == 1, i % 8 == 1 ? QString() : QStringLiteral("refused") });
    }
    if (i % 5 == 2)
        r.events.append(CallEvent { r.startedAt + 1, QStringLiteral("fault"), QStringLiteral("drop-response") });
    r.outcome = Outcomes.at(i % 5);
    r.rule = r.decisions.isEmpty() ? QString() : r.decisions.last().rule;
    r.healed = attempts > 1 && r.outcome == CallOutcome::Success;
    if (r.outcome == CallOutcome::Success)
        r.result = QJsonObject { { QStringLiteral("content"), QJsonArray { QStringLiteral("ok") } } };
    else
        r.error = QJsonObject { { QStringLiteral("message"), QStringLiteral("failed %1").arg(i) } };
    return r;
}

QList<CallRecord> makeRecords(int count)
{
    QList<CallRecord> records;
    for (int i = 0; i < count; ++i)
        records.append(makeRecord(i));
    return records;
}

QByteArray jsonLine(const QJsonObject& object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

/// Random values for records. Exact ones survive Qt's own JSON text; the others also hold what does not
/// (lone surrogates, infinities, NaN), where only the bytes can be compared.
struct Awkward : QRandomGenerator
{
    Awkward(quint32 seed, bool exact)
        : QRandomGenerator(seed)
        , exact(exact)
    { }
    bool exact;
};

/// Text with what a JSON writer must escape or encode: quotes, backslashes, every control character,
/// DEL, Latin-1, BMP and astral characters, and (when not exact) lone surrogates. Exact text leaves out
/// U+E000..U+FFFF: beside astral characters they sort differently as UTF-16 and as code points, so an
/// object's keys could come back from the text in another order.
QString awkwardText(Awkward& random, int length)
{
    static const char16_t Pool[] = { u'a', u'Z', u'0', u' ', u'"', u'\\', u'/', 0x7f, 0xe9, 0x7ff, 0x800, 0x20ac,
        0xd7ff, 0xfeff, 0xfffe, 0xffff, 0xd83d, 0xde00, 0xdbff, 0xdfff };
    constexpr quint32 NotExact = 7; // the last seven
    QString text;
    for (int i = 0; i < length; ++i) {
        const quint32 pick = random.bounded(quint32(std::size(Pool) + 32 - (random.exact ? NotExact : 0)));
        text.append(QChar(pick < 32 ? char16_t(pick) : Pool[pick - 32]));
        if (random.exact && i % 5 == 4)
            text.append(QStringLiteral("\U0001F600\U0010FFFF"));
    }
    return text;
}

QJsonValue awkwardValue(Awkward& random, int depth)
{
    switch (random.bounded(depth > 2 ? 9 : 11)) {
    case 0:
        return QJsonValue::Null;
    case 1:
        return random.bounded(2) == 1;
    case 2:
        return qint64(random.generate64());
    case 3:
        return random.generateDouble() * 1e6 - 5e5;
    case 4: {
        static const double Doubles[] = { 0.0, -0.0, 1.0, 0.1, 1e-7, 1e21, 2.5e-308, 1.7976931348623157e308,
            9007199254740992.0, 9007199254740993.0, -123456789012.5, std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::quiet_NaN() };
        return Doubles[random.bounded(quint32(std::size(Doubles) - (random.exact ? 2 : 0)))];
    }
    case 5: {
        static const qint64 Integers[] = { 0, -1, 1, std::numeric_limits<qint64>::max(),
            std::numeric_limits<qint64>::min(), (qint64(1) << 53) + 1, -(qint64(1) << 53) - 1 };
        return Integers[random.bounded(quint32(std::size(Integers)))];
    }
    case 6:
    case 7:
    case 8:
        return awkwardText(random, int(random.bounded(12)));
    case 9: {
        QJsonArray array;
        for (int i = int(random.bounded(4)); i > 0; --i)
            array.append(awkwardValue(random, depth + 1));
        return array;
    }
    default: {
        QJsonObject object;
        for (int i = int(random.bounded(5)); i > 0; --i)
            object.insert(awkwardText(random, int(random.bounded(6))), awkwardValue(random, depth + 1));
        return object;
    }
    }
}

QJsonObject awkwardObject(Awkward& random)
{
    QJsonObject object;
    for (int i = int(random.bounded(5)); i > 0; --i)
        object.insert(awkwardText(random, int(random.bounded(6))), awkwardValue(random, 1));
    return object;
}

QByteArray awkwardBytes(Awkward& random)
{
    return awkwardText(random, int(random.bounded(20))).toUtf8();
}

WireExchange awkwardExchange(Awkward& random)
{
    WireExchange exchange;
    for (int i = int(random.bounded(3)); i > 0; --i) {
        HttpExchange http;
        http.startedAt = qint64(random.generate64() >> 1);
        http.firstByteAt = random.bounded(2) ? http.startedAt + 3 : 0;
        http.endedAt = http.startedAt + 9;
        http.connectedAt = random.bounded(2) ? http.startedAt + 1 : 0;
        http.connectionReused = random.bounded(2) == 1;
        http.method = QStringLiteral("POST");
        http.url = awkwardText(random, 10);
        http.httpVersion = random.bounded(2) ? QStringLiteral("HTTP/1.1") : QString();
        http.status = random.bounded(2) ? 200 : 0;
        http.statusText = awkwardText(random, int(random.bounded(4)));
        // A header name is Latin-1: one with a byte above 0x7f is written as that character's UTF-8.
        http.requestHeaders
            = { { "Content-Type", "application/json" }, { "X-Odd", awkwardBytes(random) }, { "X-Caf\xe9\"", "x" } };
        http.setRequestBody(awkwardBytes(random));
        if (random.bounded(2))
            http.responseHeaders = { { "Mcp-Session-Id", awkwardBytes(random) } };
        http.mimeType = QStringLiteral("text/event-stream");
        http.appendResponseBody(awkwardBytes(random));
        http.truncated = random.bounded(2) == 1;
        http.answerOnStream = awkwardBytes(random);
        http.error = awkwardText(random, int(random.bounded(5)));
        exchange.http.append(http);
    }
    for (int i = int(random.bounded(3)); i > 0; --i)
        exchange.stdio.append(
            StdioLine::make(qint64(random.generate64() >> 1), random.bounded(2), awkwardBytes(random)));
    return exchange;
}

/// A record whose every field is random: present or absent, empty or not, awkward text and numbers.
CallRecord awkwardRecord(Awkward& random)
{
    const auto text
        = [&random] { return random.bounded(4) == 0 ? QString() : awkwardText(random, int(random.bounded(16))); };
    const auto number = [&random] { return qint64(random.generate64()); };
    CallRecord r;
    r.callId = text();
    r.server = text();
    r.transport = text();
    r.method = text();
    r.tool = text();
    r.arguments = awkwardObject(random);
    r.annotations = awkwardObject(random);
    r.toolListed = random.bounded(2) == 1;
    r.policy = awkwardObject(random);
    r.startedAt = number();
    r.endedAt = number();
    for (int i = int(random.bounded(4)); i > 0; --i) {
        CallAttempt a;
        a.number = int(random.generate());
        a.requestId = text();
        a.sessionId = text();
        a.sentAt = number();
        a.firstByteAt = number();
        a.endedAt = number();
        a.httpStatus = random.bounded(2) ? int(random.generate()) : 0;
        a.written = random.bounded(2) == 1;
        if (random.bounded(2))
            a.failureKind = FailureKind(random.bounded(int(FailureKind::ToolError) + 1));
        if (random.bounded(2))
            a.verdict = DispatchVerdict(random.bounded(int(DispatchVerdict::Executed) + 1));
        a.error = text();
        if (random.bounded(2))
            a.exchange = awkwardExchange(random);
        if (random.bounded(2))
            a.exitCode = int(random.generate());
        a.signal = random.bounded(2) ? int(random.generate()) : 0;
        r.attempts.append(a);
    }
    for (int i = int(random.bounded(3)); i > 0; --i)
        r.decisions.append({ int(random.generate()), text(), text(), text() });
    for (int i = int(random.bounded(3)); i > 0; --i)
        r.reconnects.append({ text(), text(), number(), number(), random.bounded(2) == 1, text() });
    for (int i = int(random.bounded(3)); i > 0; --i)
        r.events.append({ number(), text(), text() });
    r.outcome = CallOutcome(random.bounded(int(CallOutcome::Interrupted) + 1));
    r.rule = text();
    r.healed = random.bounded(2) == 1;
    switch (random.bounded(3)) {
    case 0:
        break; // no result member at all
    case 1:
        r.result = awkwardValue(random, 0);
        break;
    default:
        r.result = QJsonValue::Null;
        break;
    }
    if (random.bounded(2))
        r.error = awkwardObject(random);
    return r;
}
} // namespace

class TestCallLogFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    void roundTrip()
    {
        const QList<CallRecord> records = makeRecords(50);
        const QString path = m_dir.filePath(QStringLiteral("calls.jsonl"));
        QString error;
        QVERIFY2(CallLogWriter::writeJsonl(path, records, {}, &error), qPrintable(error));
        const QByteArray bytes = readAll(path);
        QCOMPARE(bytes.count('\n'), 50);
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY2(read.ok, qPrintable(read.error));
        QVERIFY2(read.problems.isEmpty(), qPrintable(read.problems.join(QLatin1Char('\n'))));
        QCOMPARE(read.records.size(), records.size());
        for (int i = 0; i < records.size(); ++i)
            QCOMPARE(read.records.at(i).toJson(), records.at(i).toJson());
    }

    void filter_data()
    {
        QTest::addColumn<QStringList>("servers");
        QTest::addColumn<QStringList>("tools");
        QTest::addColumn<QStringList>("outcomes");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("expected");

        const QStringList none;
        // 60 records: server i%3, outcome i%5, tools/list when i%10==9, else tool i%4.
        QTest::newRow("everything") << none << none << none << QString() << 60;
        QTest::newRow("server") << QStringList { QStringLiteral("alpha") } << none << none << QString() << 20;
        QTest::newRow("two servers") << QStringList { QStringLiteral("alpha"), QStringLiteral("beta") } << none << none
                                     << QString() << 40;
        // tools/list at 9,19,...,59 (6); echo: i%4==0 and i%10!=9 -> 15
        QTest::newRow("tool") << none << QStringList { QStringLiteral("echo") } << none << QString() << 15;
        QTest::newRow("method as tool") << none << QStringList { QStringLiteral("tools/list") } << none << QString()
                                        << 6;
        QTest::newRow("outcome") << none << none << QStringList { QStringLiteral("timeout") } << QString() << 12;
        QTest::newRow("server and outcome") << QStringList { QStringLiteral("alpha") } << none
                                            << QStringList { QStringLiteral("success") } << QString() << 4; // i%15==0
        QTest::newRow("text call id") << none << none << none << QStringLiteral("CALL-04") << 10;
        QTest::newRow("text outcome name") << none << none << none << QStringLiteral("UNCERTAIN") << 12;
        QTest::newRow("text server") << none << none << none << QStringLiteral("gam") << 20;
        QTest::newRow("text tool") << none << none << none << QStringLiteral("writefile") << 15;
        QTest::newRow("text matches nothing") << none << none << none << QStringLiteral("zzz") << 0;
    }

    void filter()
    {
        QFETCH(QStringList, servers);
        QFETCH(QStringList, tools);
        QFETCH(QStringList, outcomes);
        QFETCH(QString, text);
        QFETCH(int, expected);

        CallLogFilter filter;
        filter.servers = QSet<QString>(servers.begin(), servers.end());
        filter.tools = QSet<QString>(tools.begin(), tools.end());
        for (const QString& name : outcomes)
            filter.outcomes.append(outcomeFromName(name).value());
        filter.text = text;
        const QList<CallRecord> records = makeRecords(60);
        QCOMPARE(CallLogWriter::countMatching(records, filter), expected);

        const QString path = m_dir.filePath(QStringLiteral("filtered.jsonl"));
        QString error;
        QVERIFY2(CallLogWriter::writeJsonl(path, records, filter, &error), qPrintable(error));
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(read.ok);
        QCOMPARE(read.records.size(), expected);
        for (const CallRecord& record : read.records)
            QVERIFY(filter.matches(record));
    }

    void csv_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QByteArray>("field");
        QTest::newRow("plain") << QStringLiteral("echo") << QByteArray("echo");
        QTest::newRow("comma") << QStringLiteral("a,b") << QByteArray("\"a,b\"");
        QTest::newRow("quote") << QStringLiteral("say \"hi\"") << QByteArray("\"say \"\"hi\"\"\"");
        QTest::newRow("newline") << QStringLiteral("two\nlines") << QByteArray("\"two\nlines\"");
        QTest::newRow("all three") << QStringLiteral("a,\"b\"\nc") << QByteArray("\"a,\"\"b\"\"\nc\"");
    }

    void csv()
    {
        QFETCH(QString, tool);
        QFETCH(QByteArray, field);
        CallRecord record = makeRecord(1);
        record.tool = tool;
        const QString path = m_dir.filePath(QStringLiteral("calls.csv"));
        QString error;
        QVERIFY2(CallLogWriter::writeCsv(path, { record }, {}, &error), qPrintable(error));
        const QByteArray expected = "time,server,tool,duration_ms,attempts,rule,outcome,call_id\r\n"
                                    "2025-11-29T07:06:41.000Z,beta,"
            + field + ",11,2," + record.rule.toUtf8() + ",tool_error,call-001\r\n";
        QCOMPARE(readAll(path), expected);
    }

    void truncatedLastLine()
    {
        const QList<CallRecord> records = makeRecords(5);
        QByteArray bytes;
        for (const CallRecord& record : records)
            bytes += jsonLine(record.toJson());
        bytes.chop(40); // cut mid-last-line
        const QString path = m_dir.filePath(QStringLiteral("calls.jsonl"));
        writeBytes(path, bytes);
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(read.ok);
        QCOMPARE(read.records.size(), 4);
        QCOMPARE(read.problems.size(), 1);
        QVERIFY2(read.problems.first().startsWith(QStringLiteral("calls.jsonl:5: truncated last line")),
            qPrintable(read.problems.first()));
    }

    void everyTruncation()
    {
        QByteArray bytes;
        for (const CallRecord& record : makeRecords(3))
            bytes += jsonLine(record.toJson());
        const QString path = m_dir.filePath(QStringLiteral("calls.jsonl"));
        int lastCount = 0;
        for (qsizetype cut = 0; cut <= bytes.size(); ++cut) {
            writeBytes(path, bytes.left(cut));
            const CallLogReadResult read = CallLogReader::read(path);
            QVERIFY(read.records.size() <= 3);
            QVERIFY(read.records.size() >= lastCount); // a longer prefix never yields fewer records
            lastCount = int(read.records.size());
            if (read.ok)
                QVERIFY(read.problems.size() <= 1);
            else
                QVERIFY(read.error.contains(QStringLiteral("not a McpScope call log")));
        }
        QCOMPARE(lastCount, 3);
    }

    void randomBytes()
    {
        QRandomGenerator random(20261129);
        const QString path = m_dir.filePath(QStringLiteral("random.bin"));
        for (int round = 0; round < 200; ++round) {
            QByteArray bytes(int(random.bounded(1, 4096)), Qt::Uninitialized);
            for (char& c : bytes)
                c = char(random.bounded(256));
            writeBytes(path, bytes);
            const CallLogReadResult read = CallLogReader::read(path);
            QVERIFY(read.records.isEmpty());
        }
    }

    void newerSchema()
    {
        const QList<CallRecord> records = makeRecords(3);
        QJsonObject newer = records.at(1).toJson();
        newer.insert(QStringLiteral("schema"), CallRecord::SchemaVersion + 1);
        const QByteArray bytes = jsonLine(records.at(0).toJson()) + jsonLine(newer) + jsonLine(records.at(2).toJson());
        const QString path = m_dir.filePath(QStringLiteral("calls.jsonl"));
        writeBytes(path, bytes);
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(read.ok);
        QCOMPARE(read.records.size(), 2);
        QCOMPARE(read.records.at(1).callId, records.at(2).callId);
        QCOMPARE(read.problems.size(), 1);
        const QString problem = read.problems.first();
        QVERIFY2(problem.startsWith(QStringLiteral("calls.jsonl:2: call record schema 2 ")), qPrintable(problem));
    }

    void nonJsonLineInTheMiddle()
    {
        const QList<CallRecord> records = makeRecords(3);
        const QByteArray bytes = jsonLine(records.at(0).toJson()) + "this is not json\n"
            + jsonLine(QJsonObject { { QStringLiteral("hello"), 1 } }) + jsonLine(records.at(1).toJson())
            + jsonLine(records.at(2).toJson());
        const QString path = m_dir.filePath(QStringLiteral("calls.jsonl"));
        writeBytes(path, bytes);
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(read.ok);
        QCOMPARE(read.records.size(), 3);
        QCOMPARE(read.problems.size(), 2);
        QVERIFY2(
            read.problems.at(0).startsWith(QStringLiteral("calls.jsonl:2: not JSON")), qPrintable(read.problems.at(0)));
        QCOMPARE(read.problems.at(1), QStringLiteral("calls.jsonl:3: not a call record (no callId)"));
    }

    void pngIsNotALog()
    {
        QByteArray png = QByteArray::fromHex("89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61");
        png += QByteArray(200, '\x01') + "IEND\xae\x42\x60\x82";
        const QString path = m_dir.filePath(QStringLiteral("picture.png"));
        writeBytes(path, png);
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(!read.ok);
        QVERIFY(read.records.isEmpty());
        QVERIFY2(
            read.error.startsWith(QStringLiteral("picture.png is not a McpScope call log: ")), qPrintable(read.error));
    }

    void emptyFileIsAnEmptyLog()
    {
        // An empty file is a log with no calls yet (what --log leaves before the first call ends).
        const QString path = m_dir.filePath(QStringLiteral("empty.jsonl"));
        writeBytes(path, QByteArray());
        CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(read.ok);
        QVERIFY(read.records.isEmpty());
        QVERIFY(read.problems.isEmpty());
        writeBytes(path, "\n\r\n  \n");
        read = CallLogReader::read(path);
        QVERIFY(read.ok);
        QVERIFY(read.records.isEmpty());
    }

    void randomJsonIsNotALog()
    {
        const QString path = m_dir.filePath(QStringLiteral("package.json"));
        writeBytes(path, "{\"name\": \"x\", \"version\": \"1.0.0\"}\n");
        CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(!read.ok);
        QCOMPARE(read.error,
            QStringLiteral("package.json is not a McpScope call log: line 1: not a call record (no callId)"));
        writeBytes(path, "{\n  \"name\": \"x\"\n}\n");
        read = CallLogReader::read(path);
        QVERIFY(!read.ok);
        QVERIFY(read.error.startsWith(QStringLiteral("package.json is not a McpScope call log: line 1: not JSON")));
    }

    void missingFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("nowhere/calls.jsonl"));
        const CallLogReadResult read = CallLogReader::read(path);
        QVERIFY(!read.ok);
        QVERIFY(read.error.contains(path));
        QVERIFY(read.error.startsWith(QStringLiteral("cannot read ")));
        const CallLogReadResult dir = CallLogReader::read(m_dir.path());
        QVERIFY(!dir.ok);
        QVERIFY(dir.error.contains(m_dir.path()));
    }

    void redaction_data()
    {
        QTest::addColumn<bool>("csv");
        QTest::newRow("jsonl") << false;
        QTest::newRow("csv") << true;
    }

    void redaction()
    {
        QFETCH(bool, csv);
        CallRecord record = makeRecord(2);
        record.attempts.first().error = QStringLiteral("HTTP 401: request had Authorization: Bearer sekret-token-123");
        record.tool = QStringLiteral("Authorization: Bearer sekret-token-123");
        const QString path = m_dir.filePath(csv ? QStringLiteral("out.csv") : QStringLiteral("out.jsonl"));
        QString error;
        const bool ok = csv ? CallLogWriter::writeCsv(path, { record }, {}, &error)
                            : CallLogWriter::writeJsonl(path, { record }, {}, &error);
        QVERIFY2(ok, qPrintable(error));
        const QByteArray bytes = readAll(path);
        QVERIFY(!bytes.isEmpty());
        QVERIFY2(!bytes.contains("sekret-token-123"), bytes.constData());
        QVERIFY(bytes.contains("[redacted]"));
    }

    void compactJson_data()
    {
        QTest::addColumn<CallRecord>("record");
        QTest::addColumn<bool>("exact"); ///< Qt's own text reads back as toJson()
        CallRecord empty;
        QTest::newRow("default record: no tool, result or error member") << empty << true;
        CallRecord nullResult;
        nullResult.result = QJsonValue::Null;
        QTest::newRow("null result") << nullResult << true;
        CallRecord scalarResult;
        scalarResult.result = 2.5;
        QTest::newRow("number result") << scalarResult << true;
        CallRecord controls;
        for (char16_t c = 0; c < 0x20; ++c)
            controls.callId.append(QChar(c));
        controls.server = QStringLiteral("\"quoted\" back\\slash /slash \x7f");
        QTest::newRow("every control character, quote, backslash") << controls << true;
        CallRecord unicode;
        unicode.tool = QStringLiteral("caf\u00e9 \u20ac \U0001F600 \uFEFF\uFFFF");
        unicode.method = QString(QChar(0xd800)) + QStringLiteral("x") + QChar(0xdc00) + QChar(0xd83d);
        QTest::newRow("unicode and lone surrogates") << unicode << false;
        CallRecord numbers;
        numbers.startedAt = std::numeric_limits<qint64>::min();
        numbers.endedAt = std::numeric_limits<qint64>::max();
        numbers.arguments = { { QStringLiteral("big"), std::numeric_limits<qint64>::max() },
            { QStringLiteral("double"), 9007199254740993.0 }, { QStringLiteral("whole"), 5.0 },
            { QStringLiteral("tiny"), 5e-324 }, { QStringLiteral("inf"), std::numeric_limits<double>::infinity() } };
        QTest::newRow("extreme numbers and infinity") << numbers << false;
        CallRecord longText;
        // The writer reserves room a slice of 4096 UTF-16 units at a time: pairs and escapes across the
        // slices' ends, and a text of escapes only.
        for (int i = 0; i < 3 * 4096; ++i)
            longText.callId.append(i % 4096 == 4095 ? QChar(0xd83d)
                    : i % 4096 == 0 && i > 0        ? QChar(0xde00)
                                                    : QChar(u'x'));
        longText.server = QString(2 * 4096 + 7, QChar(0x1f));
        longText.tool = QString(4096, QChar(0xe9)) + QString(4097, QChar(0x20ac)) + QChar(u'"');
        QTest::newRow("long texts across slices") << longText << true;
        CallRecord lines;
        // A stdio line is written from its bytes: ASCII with every escape, then UTF-8 and bytes that are no
        // UTF-8 (a stray continuation, a cut sequence, 0xff), which Qt reads as U+FFFD.
        CallAttempt wire;
        QByteArray ascii;
        for (int c = 0; c < 0x80; ++c)
            ascii.append(char(c));
        wire.exchange.stdio = { StdioLine::make(1, true, ascii), StdioLine::make(2, false, "caf\xc3\xa9 \xe2\x82\xac"),
            StdioLine::make(3, false,
                "a\x80"
                "b\xe2\x82 \xff\"\n"),
            StdioLine::make(4, true, QByteArray()) };
        lines.attempts = { wire };
        QTest::newRow("stdio lines: ASCII escapes, UTF-8, invalid bytes") << lines << true;
        CallRecord positions;
        // Text is written several characters at a time while none needs an escape: each kind of character
        // at each position of texts up to 19 long, as UTF-16 (arguments) and as stdio bytes.
        QJsonArray texts;
        CallAttempt bytes;
        const QList<QStringView> specials { u"\"", u"\\", u"\n", u"\x1f", QStringView(u"\0", 1), u"\x7f", u"\u00e9",
            u"\u20ac", u"\U0001F600" };
        for (QStringView special : specials) {
            for (int length = 1; length < 20; ++length) {
                for (int at = 0; at < length; ++at) {
                    const QString text = QString(at, u'a') + special + QString(length - at - 1, u'b');
                    texts.append(text);
                    bytes.exchange.stdio.append(StdioLine::make(texts.size(), true, text.toUtf8()));
                }
            }
        }
        positions.arguments = { { QStringLiteral("texts"), texts } };
        positions.attempts = { bytes };
        QTest::newRow("each escape and non-ASCII character at each position") << positions << true;
        for (int i = 0; i < 20; ++i)
            QTest::addRow("log file record %d", i) << makeRecord(i) << true;
        Awkward exact(20261129, true);
        for (int i = 0; i < 300; ++i)
            QTest::addRow("random record %d", i) << awkwardRecord(exact) << true;
        Awkward inexact(1129, false);
        for (int i = 0; i < 100; ++i)
            QTest::addRow("random record %d with lone surrogates and infinities", i) << awkwardRecord(inexact) << false;
    }

    void compactJson()
    {
        QFETCH(CallRecord, record);
        const QByteArray fast = record.toCompactJson();
        const QByteArray qt = QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact);
        // The very bytes Qt writes, so anything that scans the text (the log store's secret check) sees
        // the same as before.
        QCOMPARE(fast, qt);
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(fast, &error);
        QVERIFY2(document.isObject(), qPrintable(error.errorString()));
        QFETCH(bool, exact);
        if (exact)
            QCOMPARE(document.object(), record.toJson());
        else // a lone surrogate or an infinity does not survive Qt's own text either
            QCOMPARE(document.object(), QJsonDocument::fromJson(qt).object());
    }

    // The writer keeps the text of the last policy it wrote, for the next record of the same connection:
    // a record with another policy, even one of the same shape, gets its own text, and one that is
    // equal but not shared gets the same text.
    void compactJsonPolicyChanges()
    {
        const auto policy = [](bool replay, int threshold) {
            return QJsonObject { { QStringLiteral("idempotentReplay"), replay },
                { QStringLiteral("breakerThreshold"), threshold } };
        };
        const QList<QJsonObject> policies { policy(false, 3), policy(false, 3), policy(true, 3), policy(true, 5),
            QJsonObject(), policy(false, 3) };
        for (const QJsonObject& each : policies) {
            CallRecord record;
            record.policy = each;
            const QByteArray fast = record.toCompactJson();
            QCOMPARE(fast, QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact));
            QCOMPARE(QJsonDocument::fromJson(fast).object().value(QStringLiteral("policy")).toObject(), each);
        }
    }

    // The result view writes a large answer's Raw JSON with the same writer, indented: the bytes Qt writes.
    void indentedJson_data() { compactJson_data(); }
    void indentedJson()
    {
        QFETCH(CallRecord, record);
        const QJsonObject object = record.toJson();
        CompactWriter writer(16);
        writer.setIndented(true);
        writer.object(object);
        writer.raw('\n');
        QCOMPARE(writer.take(), QJsonDocument(object).toJson(QJsonDocument::Indented));
        // Arrays, empty containers and scalars at every depth, as a value of their own.
        const QJsonArray nested { QJsonObject {}, QJsonArray {},
            QJsonArray { 1, QJsonArray { QJsonObject { { QStringLiteral("a"), 2.5 } } } },
            QJsonObject { { QStringLiteral("e"), QJsonArray {} }, { QStringLiteral("o"), QJsonObject {} } },
            QStringLiteral("x"), true, QJsonValue::Null };
        CompactWriter array(16);
        array.setIndented(true);
        array.value(nested);
        array.raw('\n');
        QCOMPARE(array.take(), QJsonDocument(nested).toJson(QJsonDocument::Indented));
    }

    /// Strings read from a document's storage (the large-answer path) write the same bytes as through
    /// QString: ASCII the document keeps as bytes, other text it keeps as UTF-16, escapes, a lone
    /// surrogate (which the UTF-8 route would turn into U+FFFD) and a real U+FFFD.
    void storedStrings_data()
    {
        QTest::addColumn<QJsonObject>("object");
        const QString big(300 * 1024, QLatin1Char('a'));
        const QString lone = QStringLiteral("a ") + QChar(0xd800) + QStringLiteral(" b");
        const QJsonObject built {
            { QStringLiteral("ascii"), QStringLiteral("plain") },
            { QStringLiteral("empty"), QString() },
            { QStringLiteral("escapes"), QStringLiteral("q\" b\\ c\x01 n\n t\t del\x7f") },
            { QStringLiteral("wide"), QStringLiteral("\u00e9 \u65e5\u672c \U0001F600") },
            { QStringLiteral("lone"), lone },
            { QStringLiteral("replacement"), QStringLiteral("x \ufffd y") },
            { QStringLiteral("list"),
                QJsonArray { QStringLiteral("one"), QStringLiteral("\u00fc"), 2,
                    QJsonObject { { QStringLiteral("deep"), lone } }, QJsonArray {} } },
            { QStringLiteral("\u00e9key"), true },
            { QStringLiteral("big"), big },
            { QStringLiteral("bigWide"), QString(big + QStringLiteral("\u00e9")) },
            { QStringLiteral("bigLines"), QString(big + QStringLiteral("\nwhy?\n") + big) },
        };
        QTest::newRow("built") << built;
        // Parsed, as an answer is: the parser stores strings by its own road.
        QJsonParseError error;
        const QJsonObject parsed = QJsonDocument::fromJson(QJsonDocument(built).toJson(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(parsed, built);
        QTest::newRow("parsed") << parsed;
    }

    void storedStrings()
    {
        QFETCH(QJsonObject, object);
        for (const bool indented : { false, true }) {
            CompactWriter writer(16);
            writer.setIndented(indented);
            writer.setStringsFromStorage(true);
            writer.object(object);
            QCOMPARE(writer.take(),
                QJsonDocument(object).toJson(indented ? QJsonDocument::Indented : QJsonDocument::Compact).trimmed());
        }
        const QCborMap stored = QCborMap::fromJsonObject(object);
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            const QByteArray bytes = storedStringUtf8(stored.value(it.key()));
            if (!it.value().isString()) {
                QVERIFY2(bytes.isNull(), qPrintable(it.key()));
                continue;
            }
            QVERIFY2(!bytes.isNull(), qPrintable(it.key()));
            QCOMPARE(bytes, it.value().toString().toUtf8());
        }
    }

    // Call ids are RFC 9562 version 7 UUIDs: the millisecond they were made, which orders them in the log
    // store's index, then random bits; they never repeat.
    void newCallIdsAreTimeOrderedUuids()
    {
        QSet<QString> seen;
        for (int i = 0; i < 20000; ++i) {
            const qint64 before = QDateTime::currentMSecsSinceEpoch();
            const QString id = CallRecord::newCallId();
            const qint64 after = QDateTime::currentMSecsSinceEpoch();
            QCOMPARE(id.size(), 36);
            const QUuid uuid(id);
            QVERIFY2(!uuid.isNull(), qPrintable(id));
            QCOMPARE(uuid.variant(), QUuid::DCE);
            QCOMPARE(uuid.toString(QUuid::WithoutBraces), id);
            const QByteArray octets = uuid.toRfc4122();
            // Read from the octets: Qt 6.4's QUuid::version() knows versions 1 to 5 only.
            QCOMPARE(uchar(octets.at(6)) >> 4, 7);
            qint64 ms = 0;
            for (int k = 0; k < 6; ++k)
                ms = (ms << 8) | uchar(octets.at(k));
            QVERIFY2(ms >= before && ms <= after, qPrintable(id));
            seen.insert(id);
        }
        QCOMPARE(seen.size(), 20000);
    }

    void unwritableOutput()
    {
        QString error;
        const QString path = m_dir.filePath(QStringLiteral("nowhere/out.jsonl"));
        QVERIFY(!CallLogWriter::writeJsonl(path, makeRecords(1), {}, &error));
        QVERIFY(error.contains(path));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCallLogFile)
#include "tst_calllogfile.moc"
