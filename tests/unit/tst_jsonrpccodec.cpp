#include "jsonrpc/jsonrpccodec.h"
#include "jsonrpc/jsonrpcmessage.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <limits>

using namespace Qt::StringLiterals;

using mcpscope::DecodeResult;
using mcpscope::JsonRpcError;
using mcpscope::JsonRpcMessage;
using Type = mcpscope::JsonRpcMessage::Type;
namespace JsonRpcCodec = mcpscope::JsonRpcCodec;

namespace {

QJsonObject object(const QByteArray& json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class TestJsonRpcCodec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decodesValidMessages_data();
    void decodesValidMessages();
    void rejectsInvalidMessages_data();
    void rejectsInvalidMessages();
    void nestingLimitIsQtsOwn();
    void decodeMatchesTheFullParse_data();
    void decodeMatchesTheFullParse();
    void validIds_data();
    void validIds();
    void roundTrip_data();
    void roundTrip();
    void encodedValuesRoundTrip_data();
    void encodedValuesRoundTrip();
    void idKeyKeepsNumbersAndStringsApart();
    void rawMetaJoinsTheParamsMeta_data();
    void rawMetaJoinsTheParamsMeta();
};

void TestJsonRpcCodec::decodesValidMessages_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<Type>("type");
    QTest::addColumn<QJsonValue>("id");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QJsonObject>("params");
    QTest::addColumn<QJsonValue>("result");
    QTest::addColumn<int>("errorCode");
    QTest::addColumn<QString>("errorMessage");
    QTest::addColumn<QJsonValue>("errorData");

    const QJsonValue none;
    const QJsonValue undefined(QJsonValue::Undefined);

    QTest::newRow("request with integer id, no params")
        << R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"_ba << Type::Request << QJsonValue(1) << u"tools/list"_s
        << QJsonObject() << undefined << 0 << QString() << undefined;
    QTest::newRow("request with string id and params")
        << R"({"jsonrpc":"2.0","id":"abc-1","method":"tools/call","params":{"name":"echo","arguments":{"x":1}}})"_ba
        << Type::Request << QJsonValue(u"abc-1"_s) << u"tools/call"_s
        << object(R"({"name":"echo","arguments":{"x":1}})"_ba) << undefined << 0 << QString() << undefined;
    QTest::newRow("request with id zero")
        << R"({"jsonrpc":"2.0","id":0,"method":"ping"})"_ba << Type::Request << QJsonValue(0) << u"ping"_s
        << QJsonObject() << undefined << 0 << QString() << undefined;
    QTest::newRow("request with negative integer id")
        << R"({"jsonrpc":"2.0","id":-17,"method":"ping"})"_ba << Type::Request << QJsonValue(-17) << u"ping"_s
        << QJsonObject() << undefined << 0 << QString() << undefined;
    QTest::newRow("request with empty string id")
        << R"({"jsonrpc":"2.0","id":"","method":"ping"})"_ba << Type::Request << QJsonValue(QString()) << u"ping"_s
        << QJsonObject() << undefined << 0 << QString() << undefined;
    QTest::newRow("request with fields in another order")
        << R"({"params":{"a":true},"method":"resources/read","id":9,"jsonrpc":"2.0"})"_ba << Type::Request
        << QJsonValue(9) << u"resources/read"_s << object(R"({"a":true})"_ba) << undefined << 0 << QString()
        << undefined;
    QTest::newRow("notification without params")
        << R"({"jsonrpc":"2.0","method":"notifications/initialized"})"_ba << Type::Notification << none
        << u"notifications/initialized"_s << QJsonObject() << undefined << 0 << QString() << undefined;
    QTest::newRow("notification with params")
        << R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}})"_ba
        << Type::Notification << none << u"notifications/progress"_s
        << object(R"({"progressToken":"t","progress":0.5})"_ba) << undefined << 0 << QString() << undefined;
    QTest::newRow("notification with non-ASCII method")
        << "{\"jsonrpc\":\"2.0\",\"method\":\"caf\xc3\xa9/\xe2\x9c\x93\"}"_ba << Type::Notification << none
        << u"caf\u00e9/\u2713"_s << QJsonObject() << undefined << 0 << QString() << undefined;
    QTest::newRow("response with object result")
        << R"({"jsonrpc":"2.0","id":7,"result":{"tools":[]}})"_ba << Type::Response << QJsonValue(7) << QString()
        << QJsonObject() << QJsonValue(object(R"({"tools":[]})"_ba)) << 0 << QString() << undefined;
    QTest::newRow("response with string id")
        << R"({"jsonrpc":"2.0","id":"7","result":{}})"_ba << Type::Response << QJsonValue(u"7"_s) << QString()
        << QJsonObject() << QJsonValue(QJsonObject()) << 0 << QString() << undefined;
    QTest::newRow("response with null result")
        << R"({"jsonrpc":"2.0","id":2,"result":null})"_ba << Type::Response << QJsonValue(2) << QString()
        << QJsonObject() << QJsonValue() << 0 << QString() << undefined;
    QTest::newRow("response with fields in another order")
        << R"({"result":{"ok":1},"jsonrpc":"2.0","id":3})"_ba << Type::Response << QJsonValue(3) << QString()
        << QJsonObject() << QJsonValue(object(R"({"ok":1})"_ba)) << 0 << QString() << undefined;
    QTest::newRow("error response with data")
        << R"({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found","data":{"method":"x"}}})"_ba
        << Type::ErrorResponse << QJsonValue(4) << QString() << QJsonObject() << undefined
        << mcpscope::ErrorCode::MethodNotFound << u"Method not found"_s << QJsonValue(object(R"({"method":"x"})"_ba));
    QTest::newRow("error response without data")
        << R"({"jsonrpc":"2.0","id":"e","error":{"code":-32602,"message":"Invalid params"}})"_ba << Type::ErrorResponse
        << QJsonValue(u"e"_s) << QString() << QJsonObject() << undefined << mcpscope::ErrorCode::InvalidParams
        << u"Invalid params"_s << undefined;
    QTest::newRow("error response with server-defined code")
        << R"({"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"Resource not found"}})"_ba
        << Type::ErrorResponse << QJsonValue(5) << QString() << QJsonObject() << undefined
        << mcpscope::ErrorCode::ResourceNotFound << u"Resource not found"_s << undefined;
    QTest::newRow("surrounding whitespace")
        << " \t{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\r\n"_ba << Type::Response << QJsonValue(8) << QString()
        << QJsonObject() << QJsonValue(QJsonObject()) << 0 << QString() << undefined;
}

void TestJsonRpcCodec::decodesValidMessages()
{
    QFETCH(QByteArray, input);
    QFETCH(Type, type);
    QFETCH(QJsonValue, id);
    QFETCH(QString, method);
    QFETCH(QJsonObject, params);
    QFETCH(QJsonValue, result);
    QFETCH(int, errorCode);
    QFETCH(QString, errorMessage);
    QFETCH(QJsonValue, errorData);

    const DecodeResult decoded = JsonRpcCodec::decode(input);
    QVERIFY2(decoded.ok, qPrintable(decoded.error));
    QVERIFY(bool(decoded));
    QVERIFY(decoded.error.isEmpty());

    const JsonRpcMessage& message = decoded.message;
    QCOMPARE(message.type, type);
    QCOMPARE(message.id, id);
    // 1 and "1" compare unequal as QJsonValues, but say it outright: the id keeps its JSON type.
    QCOMPARE(message.id.type(), id.type());
    QCOMPARE(message.method, method);
    QCOMPARE(message.params, params);
    if (type == Type::Response)
        QCOMPARE(message.result, result);
    if (type == Type::ErrorResponse) {
        QCOMPARE(message.error.code, errorCode);
        QCOMPARE(message.error.message, errorMessage);
        QCOMPARE(message.error.data, errorData);
    }
    QCOMPARE(message.isRequest(), type == Type::Request);
    QCOMPARE(message.isNotification(), type == Type::Notification);
    QCOMPARE(message.isReply(), type == Type::Response || type == Type::ErrorResponse);
}

void TestJsonRpcCodec::rejectsInvalidMessages_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("error"); ///< a phrase the error must contain
    QTest::addColumn<QJsonValue>("id"); ///< recovered id; null when none was usable

    const QJsonValue none;

    QTest::newRow("not JSON at all") << "Starting server..."_ba << u"not valid JSON"_s << none;
    QTest::newRow("truncated JSON") << R"({"jsonrpc":"2.0","id":1,"meth)"_ba << u"not valid JSON"_s << none;
    QTest::newRow("empty input") << QByteArray() << u"not valid JSON"_s << none;
    QTest::newRow("JSON scalar, not an object") << R"("hello")"_ba << u"not valid JSON"_s << none;
    QTest::newRow("batch array") << R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])"_ba << u"batches"_s << none;
    QTest::newRow("empty array") << "[]"_ba << u"batches"_s << none;
    QTest::newRow("missing jsonrpc, id recovered")
        << R"({"id":1,"method":"ping"})"_ba << u"\"jsonrpc\""_s << QJsonValue(1);
    QTest::newRow("wrong jsonrpc version, id recovered")
        << R"({"jsonrpc":"1.0","id":"a","method":"ping"})"_ba << u"\"jsonrpc\""_s << QJsonValue(u"a"_s);
    QTest::newRow("jsonrpc version as a number")
        << R"({"jsonrpc":2.0,"id":2,"result":{}})"_ba << u"\"jsonrpc\""_s << QJsonValue(2);
    QTest::newRow("missing jsonrpc and a null id") << R"({"id":null,"result":{}})"_ba << u"\"jsonrpc\""_s << none;
    QTest::newRow("method not a string, id recovered")
        << R"({"jsonrpc":"2.0","id":4,"method":42})"_ba << u"\"method\" is not a string"_s << QJsonValue(4);
    QTest::newRow("method null in a notification")
        << R"({"jsonrpc":"2.0","method":null})"_ba << u"\"method\" is not a string"_s << none;
    QTest::newRow("params an array, id recovered")
        << R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1,2]})"_ba << u"\"params\""_s << QJsonValue(5);
    QTest::newRow("params a string in a notification")
        << R"({"jsonrpc":"2.0","method":"notifications/message","params":"hi"})"_ba << u"\"params\""_s << none;
    QTest::newRow("params null") << R"({"jsonrpc":"2.0","id":"p","method":"ping","params":null})"_ba << u"\"params\""_s
                                 << QJsonValue(u"p"_s);
    QTest::newRow("null id on a request")
        << R"({"jsonrpc":"2.0","id":null,"method":"ping"})"_ba << u"neither a string nor an integer"_s << none;
    QTest::newRow("fractional id on a request")
        << R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})"_ba << u"neither a string nor an integer"_s << none;
    QTest::newRow("boolean id on a request")
        << R"({"jsonrpc":"2.0","id":true,"method":"ping"})"_ba << u"neither a string nor an integer"_s << none;
    QTest::newRow("object id on a request")
        << R"({"jsonrpc":"2.0","id":{"n":1},"method":"ping"})"_ba << u"neither a string nor an integer"_s << none;
    QTest::newRow("null id on an error response")
        << R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})"_ba
        << u"without a string or integer id"_s << none;
    QTest::newRow("fractional id on a response")
        << R"({"jsonrpc":"2.0","id":2.25,"result":{}})"_ba << u"without a string or integer id"_s << none;
    QTest::newRow("neither method nor id") << R"({"jsonrpc":"2.0"})"_ba << u"without a string or integer id"_s << none;
    QTest::newRow("response with both result and error")
        << R"({"jsonrpc":"2.0","id":6,"result":{},"error":{"code":1,"message":"x"}})"_ba << u"exactly one"_s
        << QJsonValue(6);
    QTest::newRow("response with neither result nor error")
        << R"({"jsonrpc":"2.0","id":"n"})"_ba << u"exactly one"_s << QJsonValue(u"n"_s);
    QTest::newRow("error without code") << R"({"jsonrpc":"2.0","id":8,"error":{"message":"boom"}})"_ba
                                        << u"numeric code"_s << QJsonValue(8);
    QTest::newRow("error code as a string") << R"({"jsonrpc":"2.0","id":9,"error":{"code":"-32600","message":"x"}})"_ba
                                            << u"numeric code"_s << QJsonValue(9);
    QTest::newRow("error not an object") << R"({"jsonrpc":"2.0","id":10,"error":"boom"})"_ba << u"numeric code"_s
                                         << QJsonValue(10);
    QTest::newRow("error null") << R"({"jsonrpc":"2.0","id":11,"error":null})"_ba << u"numeric code"_s
                                << QJsonValue(11);

    // Lines QJsonDocument refuses outright: the answer to a request still names it (issue 12), so the
    // request fails at once instead of at its deadline.
    QTest::newRow("invalid UTF-8 in a result, id last as the SDK writes it")
        << "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\"}]},\"jsonrpc\":\"2.0\",\"id\":7}"_ba
        << u"invalid UTF-8 at byte 45 in the answer to request 7"_s << QJsonValue(7);
    QTest::newRow("invalid UTF-8, string id first")
        << "{\"jsonrpc\":\"2.0\",\"id\":\"call-1\",\"result\":{\"t\":\"\xc3\"}}"_ba
        << u"invalid UTF-8 at byte 46 in the answer to request \"call-1\""_s << QJsonValue(u"call-1"_s);
    const QByteArray deep = QByteArray(2000, '[') + QByteArray(2000, ']');
    QTest::newRow("nesting too deep, id last")
        << R"({"result":)"_ba + deep + R"(,"jsonrpc":"2.0","id":8})"_ba
        << u"nesting deeper than the 1024 levels the JSON parser reads in the answer to request 8"_s << QJsonValue(8);
    QTest::newRow("nesting too deep, with strings of brackets and escaped quotes")
        << R"({"jsonrpc":"2.0","id":9,"result":{"a":"]}\"]}","b":)"_ba + deep + "}}" << u"answer to request 9"_s
        << QJsonValue(9);
    QTest::newRow("a bad token inside an answer")
        << R"({"jsonrpc":"2.0","id":12,"result":{"x":NaN}})"_ba << u"not valid JSON"_s << QJsonValue(12);
    QTest::newRow("invalid UTF-8 in a request from the server: its id is not ours")
        << "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"sampling/createMessage\",\"params\":{\"x\":\"\xff\"}}"_ba
        << u"invalid UTF-8"_s << none;
    QTest::newRow("invalid UTF-8 in a request whose method key is escaped")
        << "{\"jsonrpc\":\"2.0\",\"id\":3,\"\\u006dethod\":\"ping\",\"params\":{\"x\":\"\xff\"}}"_ba
        << u"invalid UTF-8"_s << none;
    QTest::newRow("invalid UTF-8 in a cut-off answer: what follows could be a method")
        << "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"x\":\"\xff\"}"_ba << u"invalid UTF-8"_s << none;
    QTest::newRow("invalid UTF-8 with two ids")
        << "{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":\"\xff\",\"id\":2}"_ba << u"invalid UTF-8"_s << none;
    QTest::newRow("invalid UTF-8 with a fractional id")
        << "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"result\":\"\xff\"}"_ba << u"invalid UTF-8"_s << none;
    QTest::newRow("invalid UTF-8 after the object")
        << "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} \xff"_ba << u"not valid JSON"_s << none;
}

void TestJsonRpcCodec::rejectsInvalidMessages()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, error);
    QFETCH(QJsonValue, id);

    const DecodeResult decoded = JsonRpcCodec::decode(input);
    QVERIFY(!decoded.ok);
    QVERIFY(!bool(decoded));
    QVERIFY2(decoded.error.contains(error), qPrintable(u"error was: "_s + decoded.error));
    QCOMPARE(decoded.id, id);
    QCOMPARE(decoded.id.type(), id.type());
}

// MaxNestingDepth names the limit in messages; it must be the one QJsonDocument applies.
void TestJsonRpcCodec::nestingLimitIsQtsOwn()
{
    const auto answer = [](int depth) -> QByteArray { // the envelope is one level, the result the rest
        return R"({"jsonrpc":"2.0","id":1,"result":)"_ba + QByteArray(depth - 1, '[') + QByteArray(depth - 1, ']')
            + '}';
    };
    QVERIFY(JsonRpcCodec::decode(answer(JsonRpcCodec::MaxNestingDepth)).ok);
    const DecodeResult tooDeep = JsonRpcCodec::decode(answer(JsonRpcCodec::MaxNestingDepth + 1));
    QVERIFY2(tooDeep.error.startsWith(u"nesting deeper than"_s), qPrintable(tooDeep.error));
    QCOMPARE(tooDeep.id, QJsonValue(1));
}

// decode() reads the common shapes without building the envelope; whatever it accepts must be the
// message the full parse (fromJson on the whole document) gives, ids keeping their kind. The rows mix
// lines the short way takes with lines it hands to the full parse.
void TestJsonRpcCodec::decodeMatchesTheFullParse_data()
{
    QTest::addColumn<QByteArray>("input");

    QTest::newRow("echo answer")
        << R"({"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hello"}]}})"_ba;
    QTest::newRow("id last, as the SDK writes it") << R"({"result":{"tools":[]},"jsonrpc":"2.0","id":12})"_ba;
    QTest::newRow("string id") << R"({"jsonrpc":"2.0","id":"call-7","result":{}})"_ba;
    QTest::newRow("negative id") << R"({"jsonrpc":"2.0","id":-3,"result":[]})"_ba;
    QTest::newRow("id zero") << R"({"jsonrpc":"2.0","id":0,"result":{}})"_ba;
    QTest::newRow("largest short id") << R"({"jsonrpc":"2.0","id":999999999999999,"result":{}})"_ba;
    QTest::newRow("id of 16 digits") << R"({"jsonrpc":"2.0","id":9007199254740991,"result":{}})"_ba;
    QTest::newRow("id -0") << R"({"jsonrpc":"2.0","id":-0,"result":{}})"_ba;
    QTest::newRow("spaces everywhere")
        << " \t{ \"jsonrpc\" : \"2.0\" ,\n \"id\" : 5 , \"result\" : { \"a\" : [ 1 , 2 ] } } \r\n"_ba;
    QTest::newRow("escapes in the result") << R"({"jsonrpc":"2.0","id":6,"result":{"t":"a\"}]\\\u00e9"}})"_ba;
    QTest::newRow("result is a string") << R"({"jsonrpc":"2.0","id":6,"result":"text"})"_ba;
    QTest::newRow("result is null") << R"({"jsonrpc":"2.0","id":6,"result":null})"_ba;
    QTest::newRow("error response") << R"({"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"no"}})"_ba;
    QTest::newRow("escaped key") << R"({"jsonrpc":"2.0","\u0069d":6,"result":{}})"_ba;
    QTest::newRow("escaped id") << R"({"jsonrpc":"2.0","id":"a\u0062","result":{}})"_ba;
    QTest::newRow("non-ASCII id") << "{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\xa9\",\"result\":{}}"_ba;
    QTest::newRow("an extra member") << R"({"jsonrpc":"2.0","id":6,"result":{},"x":1})"_ba;
    QTest::newRow("request")
        << R"({"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"a":{"b":[1]}}})"_ba;
    QTest::newRow("request with a string id") << R"({"jsonrpc":"2.0","id":"srv-1","method":"roots/list"})"_ba;
    QTest::newRow("notification")
        << R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})"_ba;
    QTest::newRow("notification without params") << R"({"method":"notifications/initialized","jsonrpc":"2.0"})"_ba;
    QTest::newRow("escaped method") << R"({"jsonrpc":"2.0","method":"ping\u0021"})"_ba;
    QTest::newRow("empty params") << R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{}})"_ba;
}

void TestJsonRpcCodec::decodeMatchesTheFullParse()
{
    QFETCH(QByteArray, input);
    const DecodeResult fast = JsonRpcCodec::decode(input);
    const DecodeResult full = JsonRpcCodec::fromJson(QJsonDocument::fromJson(input).object());
    QVERIFY2(full.ok, qPrintable(full.error));
    QVERIFY2(fast.ok, qPrintable(fast.error));
    QCOMPARE(fast.message.type, full.message.type);
    QCOMPARE(fast.message.id, full.message.id);
    QCOMPARE(fast.message.id.type(), full.message.id.type());
    QCOMPARE(fast.message.id.toVariant().typeId(), full.message.id.toVariant().typeId());
    QCOMPARE(fast.message.method, full.message.method);
    QCOMPARE(fast.message.params, full.message.params);
    QCOMPARE(fast.message.result, full.message.result);
    QCOMPARE(fast.message.error.code, full.message.error.code);
    QCOMPARE(fast.message.error.message, full.message.error.message);
    // What goes back out is the same too: encode() writes an id by its kind.
    QCOMPARE(JsonRpcCodec::encode(fast.message), JsonRpcCodec::encode(full.message));
}

void TestJsonRpcCodec::validIds_data()
{
    QTest::addColumn<QJsonValue>("id");
    QTest::addColumn<bool>("valid");

    QTest::newRow("positive integer") << QJsonValue(42) << true;
    QTest::newRow("zero") << QJsonValue(0) << true;
    QTest::newRow("negative integer") << QJsonValue(-1) << true;
    QTest::newRow("integer stored as a double") << QJsonValue(3.0) << true;
    QTest::newRow("largest exact double integer") << QJsonValue(qint64(9007199254740991)) << true;
    QTest::newRow("string") << QJsonValue(u"req-1"_s) << true;
    QTest::newRow("empty string") << QJsonValue(QString()) << true;
    QTest::newRow("fraction") << QJsonValue(0.5) << false;
    QTest::newRow("infinity") << QJsonValue(std::numeric_limits<double>::infinity()) << false;
    QTest::newRow("null") << QJsonValue() << false;
    QTest::newRow("undefined") << QJsonValue(QJsonValue::Undefined) << false;
    QTest::newRow("boolean") << QJsonValue(true) << false;
    QTest::newRow("array") << QJsonValue(QJsonArray { 1 }) << false;
    QTest::newRow("object") << QJsonValue(QJsonObject { { u"id"_s, 1 } }) << false;
}

void TestJsonRpcCodec::validIds()
{
    QFETCH(QJsonValue, id);
    QFETCH(bool, valid);
    QCOMPARE(JsonRpcCodec::isValidId(id), valid);
}

void TestJsonRpcCodec::roundTrip_data()
{
    QTest::addColumn<JsonRpcMessage>("message");

    JsonRpcError withData;
    withData.code = mcpscope::ErrorCode::InvalidParams;
    withData.message = u"Invalid params: \"name\" is required"_s;
    withData.data = QJsonObject { { u"field"_s, u"name"_s } };
    JsonRpcError withoutData;
    withoutData.code = mcpscope::ErrorCode::InternalError;
    withoutData.message = u"Internal error"_s;

    QTest::newRow("request with integer id and params") << JsonRpcMessage::request(1, u"tools/call"_s,
        QJsonObject { { u"name"_s, u"echo"_s }, { u"arguments"_s, QJsonObject { { u"n"_s, 3 } } } });
    QTest::newRow("request with string id, no params") << JsonRpcMessage::request(u"1"_s, u"ping"_s);
    QTest::newRow("request with large integer id")
        << JsonRpcMessage::request(qint64(9007199254740991), u"tools/list"_s);
    QTest::newRow("notification without params") << JsonRpcMessage::notification(u"notifications/initialized"_s);
    QTest::newRow("notification with params") << JsonRpcMessage::notification(
        u"notifications/cancelled"_s, QJsonObject { { u"requestId"_s, 5 }, { u"reason"_s, u"user"_s } });
    QTest::newRow("response with nested result") << JsonRpcMessage::response(
        7, QJsonObject { { u"content"_s, QJsonArray { QJsonObject { { u"type"_s, u"text"_s } } } } });
    QTest::newRow("response with null result") << JsonRpcMessage::response(u"r"_s, QJsonValue());
    QTest::newRow("response with array result") << JsonRpcMessage::response(8, QJsonArray { 1, u"two"_s });
    QTest::newRow("error response with data") << JsonRpcMessage::errorResponse(9, withData);
    QTest::newRow("error response without data") << JsonRpcMessage::errorResponse(u"e-9"_s, withoutData);
    QTest::newRow("non-ASCII, newlines and quotes in strings") << JsonRpcMessage::request(
        10, u"tools/call"_s, QJsonObject { { u"text"_s, u"line 1\nline 2\r\n\"caf\u00e9\" \u2713 \U0001F600"_s } });
}

void TestJsonRpcCodec::roundTrip()
{
    QFETCH(JsonRpcMessage, message);

    const QByteArray bytes = JsonRpcCodec::encode(message);
    // stdio framing depends on it: one message, one line.
    QVERIFY2(!bytes.contains('\n'), bytes.constData());
    QVERIFY(!bytes.contains('\r'));

    const DecodeResult decoded = JsonRpcCodec::decode(bytes);
    QVERIFY2(decoded.ok, qPrintable(decoded.error));
    const JsonRpcMessage& back = decoded.message;
    QCOMPARE(back.type, message.type);
    QCOMPARE(back.id, message.id);
    QCOMPARE(back.method, message.method);
    QCOMPARE(back.params, message.params);
    if (message.type == Type::Response)
        QCOMPARE(back.result, message.result);
    QCOMPARE(back.error.code, message.error.code);
    QCOMPARE(back.error.message, message.error.message);
    QCOMPARE(back.error.data, message.error.data);
    QCOMPARE(back.toJson(), message.toJson());
    QCOMPARE(JsonRpcCodec::encode(back), bytes);
}

void TestJsonRpcCodec::encodedValuesRoundTrip_data()
{
    QTest::addColumn<QJsonValue>("value");
    /// Whether the value survives a trip through the wire. Both ways, what comes back is what
    /// comes back when QJsonDocument writes and reads it, and the bytes are QJsonDocument's.
    QTest::addColumn<bool>("exact");

    QString controls;
    for (char16_t c = 0; c < 0x20; ++c)
        controls.append(QChar(c));
    controls.append(u"\u007f"_s);

    QTest::newRow("plain ASCII") << QJsonValue(u"hello, world"_s) << true;
    QTest::newRow("empty string") << QJsonValue(QString()) << true;
    QTest::newRow("quotes") << QJsonValue(uR"(she said "hi" and "bye")"_s) << true;
    QTest::newRow("backslashes") << QJsonValue(uR"(C:\path\to\file \\server\share \" \n)"_s) << true;
    QTest::newRow("every control character") << QJsonValue(controls) << true;
    QTest::newRow("NUL inside") << QJsonValue(QString(u"a\0b"_s)) << true;
    QTest::newRow("Latin-1 and BMP") << QJsonValue(
        u"caf\u00e9 na\u00efve \u00ff \u0100 \u20ac \u2713 \u4e2d\u6587 \uffff"_s)
                                     << true;
    QTest::newRow("two-byte UTF-8 boundary") << QJsonValue(u"\u0080\u07ff\u0800"_s) << true;
    QTest::newRow("emoji (surrogate pairs)")
        << QJsonValue(u"\U0001F600 \U0001F44D\U0001F3FD \U0010FFFF \U00010000"_s) << true;
    QString loneSurrogates = u"a"_s;
    loneSurrogates.append(QChar(0xd800)).append(u'b').append(QChar(0xdc00)).append(QChar(0xdbff));
    QTest::newRow("lone surrogates") << QJsonValue(loneSurrogates) << true;
    QTest::newRow("U+2028 and U+2029") << QJsonValue(u"a\u2028b\u2029c"_s) << true;
    QTest::newRow("mixed") << QJsonValue(u"\"caf\u00e9\"\t\\\U0001F600\n\u0001end"_s) << true;
    QTest::newRow("long ASCII") << QJsonValue(QString(100000, u'x')) << true;
    QTest::newRow("true") << QJsonValue(true) << true;
    QTest::newRow("false") << QJsonValue(false) << true;
    QTest::newRow("null") << QJsonValue(QJsonValue::Null) << true;
    QTest::newRow("zero") << QJsonValue(0) << true;
    QTest::newRow("negative integer") << QJsonValue(-42) << true;
    QTest::newRow("integer 2^31") << QJsonValue(qint64(2147483648)) << true;
    QTest::newRow("largest safe integer") << QJsonValue(qint64(9007199254740991)) << true;
    QTest::newRow("integer beyond 2^53") << QJsonValue(qint64(9007199254740993)) << true;
    QTest::newRow("largest qint64") << QJsonValue(std::numeric_limits<qint64>::max()) << true;
    QTest::newRow("smallest qint64") << QJsonValue(std::numeric_limits<qint64>::min()) << true;
    QTest::newRow("integral double") << QJsonValue(3.0) << true;
    QTest::newRow("double") << QJsonValue(1.5) << true;
    QTest::newRow("negative double") << QJsonValue(-0.1) << true;
    QTest::newRow("small double") << QJsonValue(1e-300) << true;
    QTest::newRow("double beyond qint64") << QJsonValue(1e300) << true;
    QTest::newRow("shortest round-trip digits") << QJsonValue(0.1 + 0.2) << true;
    QTest::newRow("pi") << QJsonValue(3.141592653589793) << true;
    // Qt's parser turns the integral double it reads back into an integer, which compares unequal.
    QTest::newRow("integral double 2^60") << QJsonValue(1152921504606846976.0) << false;
    QTest::newRow("empty object") << QJsonValue(QJsonObject()) << true;
    QTest::newRow("empty array") << QJsonValue(QJsonArray()) << true;
    QTest::newRow("nested arrays and objects") << QJsonValue(QJsonObject {
        { u"a"_s, QJsonArray { 1, 2.5, u"three"_s, QJsonArray { QJsonArray {}, QJsonObject {} }, QJsonValue::Null } },
        { u"b \"quoted\" key\n"_s, QJsonObject { { u"c"_s, QJsonObject { { u"d"_s, true } } } } },
        { u"\u00e9\U0001F600"_s, QJsonArray { QJsonObject { { u"x"_s, -1 } }, false } } })
                                               << true;
    QTest::newRow("array of mixed values") << QJsonValue(QJsonArray {
        u"\\"_s, 0, -0.5, true, QJsonValue::Null, qint64(-9007199254740993), QJsonObject { { u"k"_s, u"\u001f"_s } } })
                                           << true;
}

void TestJsonRpcCodec::encodedValuesRoundTrip()
{
    QFETCH(QJsonValue, value);
    QFETCH(bool, exact);

    const QJsonObject params { { u"v"_s, value }, { u"text \"key\"\t\u00e9"_s, value } };
    const QList<JsonRpcMessage> messages { JsonRpcMessage::request(1, u"tools/call"_s, params),
        JsonRpcMessage::request(u"id \"\\\n\u00e9"_s, u"m\u00e9thod\n\"x\""_s, params),
        JsonRpcMessage::notification(u"notifications/message"_s, params), JsonRpcMessage::response(2, value),
        JsonRpcMessage::response(3, params),
        JsonRpcMessage::errorResponse(4, JsonRpcError { -32000, u"bad \"\n"_s, value }) };
    for (const JsonRpcMessage& message : messages) {
        const QByteArray bytes = JsonRpcCodec::encode(message);
        QVERIFY2(!bytes.contains('\n') && !bytes.contains('\r'), bytes.left(200).constData());
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
        QVERIFY2(error.error == QJsonParseError::NoError,
            qPrintable(error.errorString() + u": "_s + QString::fromUtf8(bytes.left(200))));
        const QJsonObject viaQt
            = QJsonDocument::fromJson(QJsonDocument(message.toJson()).toJson(QJsonDocument::Compact)).object();
        QCOMPARE(document.object(), viaQt);
        if (exact)
            QCOMPARE(document.object(), message.toJson());

        const DecodeResult decoded = JsonRpcCodec::decode(bytes);
        QVERIFY2(decoded.ok, qPrintable(decoded.error));
        QCOMPARE(decoded.message.type, message.type);
        QCOMPARE(decoded.message.id, message.id);
        QCOMPARE(decoded.message.method, message.method);
        QCOMPARE(decoded.message.error.code, message.error.code);
        QCOMPARE(decoded.message.error.message, message.error.message);
        if (exact) {
            QCOMPARE(decoded.message.params, message.params);
            QCOMPARE(decoded.message.result, message.result);
            QCOMPARE(decoded.message.error.data, message.error.data);
            QCOMPARE(JsonRpcCodec::encode(decoded.message), bytes);
        }
    }

    // Byte for byte what QJsonDocument writes for the same value.
    const QByteArray notification = JsonRpcCodec::encode(JsonRpcMessage::notification(u"m"_s, params));
    QCOMPARE(notification,
        R"({"jsonrpc":"2.0","method":"m","params":)"_ba + QJsonDocument(params).toJson(QJsonDocument::Compact) + '}');
}

// JsonRpcMessage::rawMeta: encoded _meta members (the attempt's identity) written into params' _meta,
// beside the caller's own, or as the _meta; toJson() holds the same members.
void TestJsonRpcCodec::rawMetaJoinsTheParamsMeta_data()
{
    QTest::addColumn<QByteArray>("params");
    QTest::addColumn<QByteArray>("expected");

    const QByteArray raw = R"("io.github.mcpscope/attempt":{"attempt":0,"callId":"c-1"})";
    QTest::newRow("no params") << QByteArray() << R"({"_meta":{)" + raw + "}}";
    QTest::newRow("params without _meta") << R"({"arguments":{"m":"x"},"name":"echo"})"_ba
                                          << R"({"_meta":{)" + raw + R"(},"arguments":{"m":"x"},"name":"echo"})";
    QTest::newRow("the caller's _meta") << R"({"_meta":{"progressToken":3},"name":"echo"})"_ba
                                        << R"({"_meta":{"progressToken":3,)" + raw + R"(},"name":"echo"})";
    QTest::newRow("an empty _meta") << R"({"_meta":{},"name":"echo"})"_ba
                                    << R"({"_meta":{)" + raw + R"(},"name":"echo"})";
    QTest::newRow("a _meta that is not an object") << R"({"_meta":"odd","name":"echo","Z":1})"_ba
                                                   << R"({"_meta":{)" + raw + R"(},"Z":1,"name":"echo"})";
}

void TestJsonRpcCodec::rawMetaJoinsTheParamsMeta()
{
    QFETCH(QByteArray, params);
    QFETCH(QByteArray, expected);

    JsonRpcMessage message = JsonRpcMessage::request(7, u"tools/call"_s, object(params));
    message.rawMeta = R"("io.github.mcpscope/attempt":{"attempt":0,"callId":"c-1"})";
    const QByteArray encoded = JsonRpcCodec::encode(message);
    QCOMPARE(encoded, R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":)" + expected + '}');

    const DecodeResult decoded = JsonRpcCodec::decode(encoded);
    QVERIFY2(decoded, qPrintable(decoded.error));
    QCOMPARE(decoded.message.params, object(expected));
    QCOMPARE(message.toJson().value("params"_L1).toObject(), object(expected));
}

void TestJsonRpcCodec::idKeyKeepsNumbersAndStringsApart()
{
    using mcpscope::idKey;

    QVERIFY(idKey(QJsonValue(1)) != idKey(QJsonValue(u"1"_s)));
    QVERIFY(idKey(QJsonValue(0)) != idKey(QJsonValue(u"0"_s)));
    QVERIFY(idKey(QJsonValue(-1)) != idKey(QJsonValue(u"-1"_s)));
    QCOMPARE(idKey(QJsonValue(1)), idKey(QJsonValue(1.0)));
    QCOMPARE(idKey(QJsonValue(u"a"_s)), idKey(QJsonValue(u"a"_s)));
    QVERIFY(idKey(QJsonValue(1)) != idKey(QJsonValue(2)));
    QVERIFY(!idKey(QJsonValue(1)).isEmpty());
    QVERIFY(!idKey(QJsonValue(QString())).isEmpty());
    for (const qint64 n : { qint64(0), qint64(7), qint64(-1), qint64(-42), qint64(9007199254740991),
             qint64(-9007199254740991), std::numeric_limits<qint64>::max(), std::numeric_limits<qint64>::min() })
        QCOMPARE(idKey(QJsonValue(n)).toString(), u"n"_s + QString::number(n));
    QCOMPARE(idKey(QJsonValue(QString())).toString(), u"s"_s);
    QCOMPARE(idKey(QJsonValue(u"caf\u00e9 \U0001F600"_s)).toString(), u"scaf\u00e9 \U0001F600"_s);
    QCOMPARE(idKey(QJsonValue(u"caf\u00e9"_s)).display(), u"caf\u00e9"_s);
    QCOMPARE(idKey(QJsonValue(-42)).display(), u"-42"_s);
    QVERIFY(idKey(QJsonValue(QJsonValue::Null)).isEmpty());
    QCOMPARE(idKey(QJsonValue(QJsonValue::Null)).toString(), QString());
    QVERIFY(idKey(QJsonValue(true)).isEmpty());
    // The number's key is not the string's, even where their hashes could meet.
    QVERIFY(idKey(QJsonValue(0)) != idKey(QJsonValue(QString())));
    QVERIFY(idKey(QJsonValue(0)) != mcpscope::IdKey());

    // An id decoded from the wire finds the entry stored under the id that was sent.
    QHash<mcpscope::IdKey, QString> pending;
    pending.insert(idKey(QJsonValue(1)), u"integer one"_s);
    pending.insert(idKey(QJsonValue(u"1"_s)), u"string one"_s);
    QCOMPARE(pending.size(), 2);
    const DecodeResult integerReply = JsonRpcCodec::decode(R"({"jsonrpc":"2.0","id":1,"result":{}})"_ba);
    const DecodeResult stringReply = JsonRpcCodec::decode(R"({"jsonrpc":"2.0","id":"1","result":{}})"_ba);
    QVERIFY(integerReply.ok && stringReply.ok);
    QCOMPARE(pending.value(idKey(integerReply.message.id)), u"integer one"_s);
    QCOMPARE(pending.value(idKey(stringReply.message.id)), u"string one"_s);
}

QTEST_GUILESS_MAIN(TestJsonRpcCodec)

#include "tst_jsonrpccodec.moc"
