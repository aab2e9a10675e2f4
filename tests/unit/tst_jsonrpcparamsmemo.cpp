// Repeated, equal and changed tools/call params each encode as a fresh request would, and ToolCallParams
// carries the arguments it is given. (The encoder's params memo, dac5033, was reverted: see stop 43's note.)

#include "jsonrpc/jsonrpccodec.h"
#include "jsonrpc/jsonrpcmessage.h"
#include "session/toolinfo.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;

using mcpscope::JsonRpcMessage;
namespace JsonRpcCodec = mcpscope::JsonRpcCodec;

namespace {

QJsonObject object(const QByteArray& json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class TestJsonRpcParamsMemo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void repeatedParamsEncodeAsFreshOnes();
    void numbersThatCompareEqualKeepTheirText();
    void toolCallParamsFollowTheArgumentsGiven();
};

// The encoder keeps the members of the last params it wrote (writeMembersMemoized): every request of a
// sequence of repeated, equal, changed, large and _meta-carrying params is written as if it were the first.
void TestJsonRpcParamsMemo::repeatedParamsEncodeAsFreshOnes()
{
    QJsonObject params = object(R"({"arguments":{"m":"x"},"name":"echo"})");
    const QJsonObject sameKeysOtherValue = object(R"({"arguments":{"m":"y"},"name":"echo"})");
    const QJsonObject otherNumberKind = object(R"({"arguments":{"m":1.5},"name":"echo"})");
    const QJsonObject integerKind = object(R"({"arguments":{"m":1},"name":"echo"})");
    const QJsonObject large { { u"blob"_s, QString(5000, u'a') }, { u"name"_s, u"echo"_s } };
    const QByteArray raw = R"("io.github.mcpscope/attempt":{"attempt":1,"callId":"c-2"})";

    const auto expected = [&](int id, const QJsonObject& p, bool withRaw) {
        QByteArray json = QJsonDocument(p).toJson(QJsonDocument::Compact);
        if (withRaw) {
            QByteArray meta = R"({"_meta":{)";
            meta += raw;
            meta += p.isEmpty() ? "}" : "},";
            json = meta + json.mid(1);
        }
        QByteArray line = R"({"jsonrpc":"2.0","id":)";
        line += QByteArray::number(id);
        line += R"(,"method":"tools/call","params":)";
        line += json;
        line += '}';
        return line;
    };
    int id = 0;
    const auto check = [&](const QJsonObject& p, bool withRaw) {
        JsonRpcMessage message = JsonRpcMessage::request(++id, u"tools/call"_s, p);
        if (withRaw)
            message.rawMeta = raw;
        return JsonRpcCodec::encode(message) == expected(id, p, withRaw);
    };

    QVERIFY(check(params, false));
    QVERIFY(check(params, false)); // the same object again
    QVERIFY(check(params, true)); // the same members after the attempt's _meta
    QVERIFY(check(object(R"({"arguments":{"m":"x"},"name":"echo"})"), false)); // equal, built apart
    QVERIFY(check(sameKeysOtherValue, false));
    QVERIFY(check(params, true));
    QVERIFY(check(otherNumberKind, false));
    QVERIFY(check(integerKind, false));
    QVERIFY(check(otherNumberKind, false));
    params.insert(u"name"_s, u"other"_s); // changed in place: it no longer shares the kept copy's data
    QVERIFY(check(params, false));
    QVERIFY(check(large, false));
    QVERIFY(check(large, true)); // too large to keep: written again
    QVERIFY(check(params, false));
    QVERIFY(check(QJsonObject(), true));
    QVERIFY(check(params, true));
}

// The memos key on QJsonObject's ==, which compares numbers by value. These pairs are where equal values
// could have other texts: an integer beyond 2^53 and its neighbour (== tells them apart), and 0 and -0.0
// (Qt keeps -0.0 as the integer 0, so both are written "0"). Each request must be what a fresh encode gives.
void TestJsonRpcParamsMemo::numbersThatCompareEqualKeepTheirText()
{
    const QList<QByteArray> sequence { R"({"arguments":{"id":9007199254740993},"name":"echo"})",
        R"({"arguments":{"id":9007199254740992},"name":"echo"})", R"({"arguments":{"n":0},"name":"echo"})",
        R"({"arguments":{"n":-0.0},"name":"echo"})", R"({"arguments":{"n":0},"name":"echo"})" };
    int id = 100;
    for (const QByteArray& json : sequence) {
        const QJsonObject params = object(json);
        const QByteArray encoded = JsonRpcCodec::encode(JsonRpcMessage::request(++id, u"tools/call"_s, params));
        QCOMPARE(encoded,
            R"({"jsonrpc":"2.0","id":)" + QByteArray::number(id) + R"(,"method":"tools/call","params":)"
                + QJsonDocument(params).toJson(QJsonDocument::Compact) + '}');
    }
}

void TestJsonRpcParamsMemo::toolCallParamsFollowTheArgumentsGiven()
{
    mcpscope::ToolCallParams last;
    const QJsonObject big = object(R"({"id":9007199254740993})");
    const QJsonObject first = last.of(u"get"_s, big);
    QCOMPARE(first.value("arguments"_L1).toObject(), big);
    // The same arguments object: the same params, shared.
    QCOMPARE(last.of(u"get"_s, big), first);
    // Arguments that differ only beyond a double's precision: new params carrying them.
    const QJsonObject next = object(R"({"id":9007199254740992})");
    const QJsonObject second = last.of(u"get"_s, next);
    QCOMPARE(QJsonDocument(second).toJson(QJsonDocument::Compact),
        R"({"arguments":{"id":9007199254740992},"name":"get"})"_ba);
    // Another tool, the same arguments.
    QCOMPARE(last.of(u"put"_s, next).value("name"_L1).toString(), u"put"_s);
}

QTEST_GUILESS_MAIN(TestJsonRpcParamsMemo)
#include "tst_jsonrpcparamsmemo.moc"
