// JsonRpcCodec::encode keeps the members of the last small params it wrote on each thread
// (writeMembersMemoized in jsonrpccodec.cpp): no request may come out other than a fresh encode's.

#include "jsonrpc/jsonrpccodec.h"
#include "jsonrpc/jsonrpcmessage.h"

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

QTEST_GUILESS_MAIN(TestJsonRpcParamsMemo)
#include "tst_jsonrpcparamsmemo.moc"
