#include "session/mcpheaders.h"

#include <QJsonDocument>
#include <QTest>

namespace McpHeaders = mcpscope::McpHeaders;

namespace {

QJsonObject schemaOf(const char* json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

/// SEP-2243 (2026-07-28): which `x-mcp-header` annotations make a tool unusable, and how argument
/// values travel as Mcp-Param-* headers. The same cases the conformance scenarios
/// http-invalid-tool-headers and http-custom-headers send, checked here one by one.
class TestMcpHeaders : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void invalidAnnotations_data();
    void invalidAnnotations();
    void validAnnotationsAreCollected();
    void valuesAreEncoded_data();
    void valuesAreEncoded();
    void nullAndAbsentArgumentsAreLeftOut();
    void nameSourceFollowsTheMethod();
};

void TestMcpHeaders::invalidAnnotations_data()
{
    QTest::addColumn<QByteArray>("schema");
    QTest::addColumn<QString>("reasonPart");
    QTest::newRow("empty") << QByteArray(R"({"properties":{"a":{"type":"string","x-mcp-header":""}}})")
                           << QStringLiteral("non-empty");
    QTest::newRow("object") << QByteArray(R"({"properties":{"a":{"type":"object","x-mcp-header":"A"}}})")
                            << QStringLiteral("not 'object'");
    QTest::newRow("number") << QByteArray(R"({"properties":{"a":{"type":"number","x-mcp-header":"A"}}})")
                            << QStringLiteral("not 'number'");
    QTest::newRow("space in name") << QByteArray(R"({"properties":{"a":{"type":"string","x-mcp-header":"A B"}}})")
                                   << QStringLiteral("RFC 9110");
    QTest::newRow("colon in name") << QByteArray(R"({"properties":{"a":{"type":"string","x-mcp-header":"A:B"}}})")
                                   << QStringLiteral("RFC 9110");
    QTest::newRow("duplicate, other case")
        << QByteArray(R"({"properties":{"a":{"type":"string","x-mcp-header":"Region"},)"
                      R"("b":{"type":"string","x-mcp-header":"region"}}})")
        << QStringLiteral("declared twice");
    QTest::newRow("inside items") << QByteArray(R"({"properties":{"a":{"type":"array","items":)"
                                                R"({"type":"string","x-mcp-header":"A"}}}})")
                                  << QStringLiteral("only allowed on properties");
}

void TestMcpHeaders::invalidAnnotations()
{
    QFETCH(QByteArray, schema);
    QFETCH(QString, reasonPart);
    const McpHeaders::Scan scan = McpHeaders::scan(QJsonDocument::fromJson(schema).object());
    QVERIFY(!scan.valid());
    QVERIFY2(scan.invalidReason.contains(reasonPart), qPrintable(scan.invalidReason));
}

void TestMcpHeaders::validAnnotationsAreCollected()
{
    const McpHeaders::Scan scan = McpHeaders::scan(schemaOf(R"({"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},
        "priority":{"type":"integer","x-mcp-header":"Priority"},
        "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
        "score":{"type":"number"},
        "nested":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}})"));
    QVERIFY2(scan.valid(), qPrintable(scan.invalidReason));
    QStringList headers;
    for (const McpHeaders::ParamHeader& p : scan.params)
        headers.append(p.path.join(QLatin1Char('.')) + QLatin1Char('=') + p.header);
    headers.sort();
    QCOMPARE(headers,
        QStringList({ QStringLiteral("nested.zone=Zone"), QStringLiteral("priority=Priority"),
            QStringLiteral("region=Region"), QStringLiteral("verbose=Verbose") }));
}

void TestMcpHeaders::valuesAreEncoded_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QByteArray>("wire");
    QTest::newRow("plain") << QStringLiteral("us-west1") << QByteArray("us-west1");
    QTest::newRow("inner space") << QStringLiteral("us west 1") << QByteArray("us west 1");
    // "=?base64?" "?=" is split because "??=" would be a trigraph.
    QTest::newRow("empty") << QString()
                           << QByteArray("=?base64?"
                                         "?=");
    QTest::newRow("leading space") << QStringLiteral(" us-west1") << QByteArray("=?base64?IHVzLXdlc3Qx?=");
    QTest::newRow("newline") << QStringLiteral("line1\nline2") << QByteArray("=?base64?bGluZTEKbGluZTI=?=");
    QTest::newRow("non-ASCII") << QStringLiteral("Hello, 世界") << QByteArray("=?base64?SGVsbG8sIOS4lueVjA==?=");
    QTest::newRow("looks like the sentinel")
        << QStringLiteral("=?base64?x?=") << QByteArray("=?base64?PT9iYXNlNjQ/eD89?=");
}

void TestMcpHeaders::valuesAreEncoded()
{
    QFETCH(QString, value);
    QFETCH(QByteArray, wire);
    QCOMPARE(McpHeaders::encodeValue(value), wire);
}

void TestMcpHeaders::nullAndAbsentArgumentsAreLeftOut()
{
    const McpHeaders::Scan scan = McpHeaders::scan(schemaOf(R"({"properties":{
        "region":{"type":"string","x-mcp-header":"Region"},
        "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
        "priority":{"type":"integer","x-mcp-header":"Priority"}}})"));
    const mcpscope::HeaderList headers
        = McpHeaders::paramHeaders(scan.params, schemaOf(R"({"region":"us-east1","verbose":null,"priority":7})"));
    QStringList lines;
    for (const auto& [name, value] : headers)
        lines.append(QString::fromLatin1(name + ": " + value));
    lines.sort();
    QCOMPARE(
        lines, QStringList({ QStringLiteral("Mcp-Param-Priority: 7"), QStringLiteral("Mcp-Param-Region: us-east1") }));
}

void TestMcpHeaders::nameSourceFollowsTheMethod()
{
    QCOMPARE(McpHeaders::nameSource(QStringLiteral("tools/call")), QStringLiteral("name"));
    QCOMPARE(McpHeaders::nameSource(QStringLiteral("resources/read")), QStringLiteral("uri"));
    QCOMPARE(McpHeaders::nameSource(QStringLiteral("prompts/get")), QStringLiteral("name"));
    QCOMPARE(McpHeaders::nameSource(QStringLiteral("tools/list")), QString());
}

QTEST_GUILESS_MAIN(TestMcpHeaders)
#include "tst_mcpheaders.moc"
