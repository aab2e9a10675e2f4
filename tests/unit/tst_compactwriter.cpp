// CompactWriter::memoizedObject: a call record's arguments, annotations and result written from the
// per-thread memo are the very bytes Qt writes, whether the objects repeat, are equal, change, or are
// changed in place between records.

#include "calllog/callrecord.h"
#include "calllog/compactjsonwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace mcpscope;

namespace {

QJsonObject object(const char* json)
{
    return QJsonDocument::fromJson(json).object();
}

CallRecord recordWith(const QJsonObject& arguments, const QJsonObject& annotations, const QJsonValue& result)
{
    CallRecord record;
    record.callId = QStringLiteral("c");
    record.server = QStringLiteral("alpha");
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("echo");
    record.arguments = arguments;
    record.annotations = annotations;
    record.result = result;
    record.startedAt = 1764400000000;
    record.endedAt = record.startedAt + 2;
    record.outcome = CallOutcome::Success;
    return record;
}

} // namespace

class TestCompactWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void memoizedObjectsAreWrittenAsQtWritesThem();
};

void TestCompactWriter::memoizedObjectsAreWrittenAsQtWritesThem()
{
    QJsonObject arguments = object(R"({"message":"hello"})");
    const QJsonObject annotations = object(R"({"readOnlyHint":true})");
    const QJsonObject result = object(R"({"content":[{"text":"Echo: hello","type":"text"}]})");
    QJsonObject wide;
    for (int i = 0; i < CompactWriter::MemoMaxMembers + 1; ++i)
        wide.insert(QStringLiteral("k%1").arg(i), i);
    const QJsonObject large { { QStringLiteral("blob"), QString(CompactWriter::MemoMaxBytes, u'x') } };

    const QList<CallRecord> records {
        recordWith(arguments, annotations, result),
        recordWith(arguments, annotations, result), // the same objects again
        recordWith(object(R"({"message":"hello"})"), annotations,
            object(R"({"content":[{"text":"Echo: hello","type":"text"}]})")), // equal, built apart
        recordWith(object(R"({"message":"other"})"), annotations, result), // same keys, another value
        recordWith(object(R"({"message":1})"), object(R"({"readOnlyHint":false})"), result),
        recordWith(object(R"({"message":1.5})"), annotations, result), // a double after an integer
        recordWith(wide, annotations, wide), // too many members to keep
        recordWith(large, large, QJsonValue(large)), // too many bytes to keep
        recordWith(QJsonObject(), QJsonObject(), QJsonValue(QJsonArray { 1, 2 })),
        recordWith(arguments, annotations, result),
        // Numbers that == compares by value: 2^53+1 and 2^53 differ, 0 and -0.0 are both written "0".
        recordWith(object(R"({"id":9007199254740993})"), annotations, object(R"({"n":0})")),
        recordWith(object(R"({"id":9007199254740992})"), annotations, object(R"({"n":-0.0})")),
    };
    int row = 0;
    for (const CallRecord& record : records) {
        const QByteArray qt = QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact);
        QVERIFY2(record.toCompactJson() == qt, qPrintable(QStringLiteral("record %1").arg(row)));
        QVERIFY2(record.toCompactJson() == qt, qPrintable(QStringLiteral("record %1, again").arg(row)));
        ++row;
    }

    // Changed in place: the memo's copy keeps the old data, and the object now holds other members.
    CallRecord first = records.first();
    QVERIFY(first.toCompactJson().contains(R"("arguments":{"message":"hello"})"));
    arguments.insert(QStringLiteral("message"), QStringLiteral("changed"));
    first.arguments = arguments;
    QVERIFY(first.toCompactJson().contains(R"("arguments":{"message":"changed"})"));
    QCOMPARE(first.toCompactJson(), QJsonDocument(first.toJson()).toJson(QJsonDocument::Compact));
}

QTEST_GUILESS_MAIN(TestCompactWriter)
#include "tst_compactwriter.moc"
