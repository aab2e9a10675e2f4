#include "session/inputschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using mcpscope::InputSchema;
using mcpscope::InputJson::compact;
using Kind = mcpscope::InputSchema::Kind;

namespace {

QJsonObject obj(const char* json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad JSON in the test table: %s", qPrintable(error.errorString()));
    return doc.object();
}

QJsonValue val(const char* json)
{
    return QJsonDocument::fromJson(QByteArray("[") + json + "]").array().first();
}

/// "key*:Kind" per property, required ones marked, in the order the form shows them.
QString describe(const InputSchema& field)
{
    QStringList parts;
    for (const InputSchema::Property& property : field.properties)
        parts << property.key + (property.required ? QStringLiteral("*") : QString()) + QLatin1Char(':')
                + QString::number(int(property.field.kind));
    return parts.join(QLatin1Char(' '));
}

QString labels(const InputSchema& field)
{
    QStringList parts;
    for (const auto& option : field.options)
        parts << option.label + QLatin1Char('=') + compact(option.value);
    return parts.join(QLatin1Char(' '));
}

// An elicitation requestedSchema in the shape the MCP spec allows: a flat object of primitives.
const char* const ElicitationSchema
    = R"({"type":"object","required":["name","plan"],"properties":{)"
      R"("name":{"type":"string","title":"Your name","description":"As on the card","minLength":2,"maxLength":40},)"
      R"("email":{"type":"string","title":"E-mail","format":"email"},)"
      R"("age":{"type":"integer","title":"Age","minimum":18,"maximum":130,"default":30},)"
      R"("score":{"type":"number","minimum":0,"maximum":1},)"
      R"("subscribe":{"type":"boolean","title":"Subscribe","default":true},)"
      R"("plan":{"type":"string","title":"Plan","oneOf":[{"const":"free","title":"Free"},{"const":"pro","title":"Pro"}]},)"
      R"("size":{"type":"string","enum":["s","l"],"enumNames":["Small","Large"],"default":"l"},)"
      R"("colors":{"type":"array","title":"Colours","minItems":1,"maxItems":2,"items":{"type":"string","enum":["red","green"]}},)"
      R"("days":{"type":"array","items":{"anyOf":[{"const":"mon","title":"Monday"},{"const":"tue","title":"Tuesday"}]}},)"
      R"("born":{"type":"string","format":"date"}}})";

} // namespace

class TestInputSchema : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kind_data();
    void kind();
    void elicitationSchema();
    void argumentsRoot_data();
    void argumentsRoot();
    void findsNestedFields();
    void problems_data();
    void problems();
    void parseJsonSaysWhere();
};

void TestInputSchema::kind_data()
{
    QTest::addColumn<QJsonObject>("schema");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("type");

    QTest::newRow("string") << obj(R"({"type":"string"})") << int(Kind::String) << QStringLiteral("string");
    QTest::newRow("number") << obj(R"({"type":"number"})") << int(Kind::Number) << QStringLiteral("number");
    QTest::newRow("integer") << obj(R"({"type":"integer"})") << int(Kind::Integer) << QStringLiteral("integer");
    QTest::newRow("boolean") << obj(R"({"type":"boolean"})") << int(Kind::Boolean) << QStringLiteral("boolean");
    QTest::newRow("enum") << obj(R"({"type":"string","enum":["a"]})") << int(Kind::Enum) << QStringLiteral("string");
    QTest::newRow("empty enum is a plain string")
        << obj(R"({"type":"string","enum":[]})") << int(Kind::String) << QStringLiteral("string");
    QTest::newRow("const only is a one-value enum") << obj(R"({"const":"fixed"})") << int(Kind::Enum) << QString();
    QTest::newRow("oneOf const is a titled enum")
        << obj(R"({"oneOf":[{"const":1,"title":"One"}]})") << int(Kind::Enum) << QString();
    QTest::newRow("array of enum values is a set")
        << obj(R"({"type":"array","items":{"enum":[1,2]}})") << int(Kind::EnumSet) << QStringLiteral("array");
    QTest::newRow("array of strings") << obj(R"({"type":"array","items":{"type":"string"}})") << int(Kind::Array)
                                      << QStringLiteral("array");
    QTest::newRow("object with properties")
        << obj(R"({"type":"object","properties":{}})") << int(Kind::Object) << QStringLiteral("object");
    QTest::newRow("pydantic Optional[str] folds to string")
        << obj(R"({"anyOf":[{"type":"string"},{"type":"null"}],"default":null})") << int(Kind::String)
        << QStringLiteral("string");
    QTest::newRow("type list with null folds")
        << obj(R"({"type":["integer","null"]})") << int(Kind::Integer) << QStringLiteral("integer");
    QTest::newRow("one-element allOf folds")
        << obj(R"({"allOf":[{"type":"boolean"}]})") << int(Kind::Boolean) << QStringLiteral("boolean");
    QTest::newRow("$ref is raw") << obj(R"({"$ref":"#/$defs/X"})") << int(Kind::Raw) << QString();
    QTest::newRow("map is raw") << obj(R"({"type":"object","additionalProperties":{"type":"string"}})")
                                << int(Kind::Raw) << QStringLiteral("object");
    QTest::newRow("tuple is raw") << obj(R"({"type":"array","items":[{"type":"string"}]})") << int(Kind::Raw)
                                  << QStringLiteral("array");
    QTest::newRow("oneOf of objects is raw")
        << obj(R"({"oneOf":[{"type":"object"},{"type":"string"}]})") << int(Kind::Raw) << QString();
    QTest::newRow("type union is raw") << obj(R"({"type":["string","integer"]})") << int(Kind::Raw) << QString();
    QTest::newRow("untyped is raw") << obj(R"({})") << int(Kind::Raw) << QString();
}

void TestInputSchema::kind()
{
    QFETCH(QJsonObject, schema);
    QFETCH(int, kind);
    QFETCH(QString, type);
    const InputSchema field = InputSchema::fromSchema(schema);
    QCOMPARE(int(field.kind), kind);
    QCOMPARE(field.type, type);
    QCOMPARE(field.source, schema);
}

void TestInputSchema::elicitationSchema()
{
    const InputSchema form = InputSchema::forArguments(obj(ElicitationSchema));
    QCOMPARE(form.kind, Kind::Object);
    QCOMPARE(describe(form),
        QStringLiteral("name*:0 plan*:4 age:2 born:0 colors:5 days:5 email:0 score:1 size:4 subscribe:3"));

    const InputSchema* name = form.find({ QStringLiteral("name") });
    QVERIFY(name);
    QCOMPARE(name->title, QStringLiteral("Your name"));
    QCOMPARE(name->description, QStringLiteral("As on the card"));
    QCOMPARE(name->minLength, 2);
    QCOMPARE(name->maxLength, 40);
    QCOMPARE(form.find({ QStringLiteral("email") })->format, QStringLiteral("email"));
    QCOMPARE(form.find({ QStringLiteral("born") })->format, QStringLiteral("date"));

    const InputSchema* age = form.find({ QStringLiteral("age") });
    QCOMPARE(age->minimum, 18.0);
    QCOMPARE(age->maximum, 130.0);
    QVERIFY(!age->exclusiveMinimum);
    QCOMPARE(age->defaultValue, QJsonValue(30));
    QCOMPARE(form.find({ QStringLiteral("subscribe") })->defaultValue, QJsonValue(true));

    QCOMPARE(labels(*form.find({ QStringLiteral("plan") })), QStringLiteral(R"(Free="free" Pro="pro")"));
    QCOMPARE(form.find({ QStringLiteral("plan") })->title, QStringLiteral("Plan"));
    const InputSchema* size = form.find({ QStringLiteral("size") });
    QCOMPARE(labels(*size), QStringLiteral(R"(Small="s" Large="l")"));
    QCOMPARE(size->defaultValue, QJsonValue(QStringLiteral("l")));

    const InputSchema* colors = form.find({ QStringLiteral("colors") });
    QCOMPARE(labels(*colors), QStringLiteral(R"(red="red" green="green")"));
    QCOMPARE(colors->minItems, 1);
    QCOMPARE(colors->maxItems, 2);
    QCOMPARE(labels(*form.find({ QStringLiteral("days") })), QStringLiteral(R"(Monday="mon" Tuesday="tue")"));
}

void TestInputSchema::argumentsRoot_data()
{
    QTest::addColumn<QJsonObject>("schema");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("fields");

    QTest::newRow("empty schema has no fields") << QJsonObject() << int(Kind::Object) << QString();
    QTest::newRow("bare object has no fields") << obj(R"({"type":"object"})") << int(Kind::Object) << QString();
    QTest::newRow("required first, then by key")
        << obj(R"({"type":"object","required":["z"],"properties":{"a":{"type":"string"},"z":{"type":"number"}}})")
        << int(Kind::Object) << QStringLiteral("z*:1 a:0");
    QTest::newRow("root map stays raw") << obj(R"({"type":"object","additionalProperties":{"type":"integer"}})")
                                        << int(Kind::Raw) << QString();
    QTest::newRow("root $ref stays raw") << obj(R"({"$ref":"#/$defs/A","$defs":{"A":{"type":"object"}}})")
                                         << int(Kind::Raw) << QString();
}

void TestInputSchema::argumentsRoot()
{
    QFETCH(QJsonObject, schema);
    QFETCH(int, kind);
    QFETCH(QString, fields);
    const InputSchema root = InputSchema::forArguments(schema);
    QCOMPARE(int(root.kind), kind);
    QCOMPARE(describe(root), fields);
    QCOMPARE(root.source, schema);
}

void TestInputSchema::findsNestedFields()
{
    const InputSchema root = InputSchema::forArguments(
        obj(R"({"type":"object","properties":{"items":{"type":"array","items":{"type":"object",)"
            R"("properties":{"name":{"type":"string","pattern":"^x"}}}},"env":{"type":"object",)"
            R"("additionalProperties":true}}})"));
    const InputSchema* name = root.find({ QStringLiteral("items"), QStringLiteral("0"), QStringLiteral("name") });
    QVERIFY(name);
    QCOMPARE(name->pattern, QStringLiteral("^x"));
    QVERIFY(!root.find({ QStringLiteral("env"), QStringLiteral("HOME") }));
    QVERIFY(!root.find({ QStringLiteral("nope") }));
}

void TestInputSchema::problems_data()
{
    QTest::addColumn<QJsonObject>("schema");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QStringList>("expected");

    const QJsonObject form = obj(ElicitationSchema);
    QTest::newRow("elicitation: valid") << form << val(R"({"name":"Ada","plan":"pro","age":36,"colors":["red"]})")
                                        << QStringList();
    QTest::newRow("elicitation: missing required")
        << form << val(R"({"name":"Ada"})") << QStringList { QStringLiteral("args.plan: required") };
    QTest::newRow("elicitation: too short") << form << val(R"({"name":"A","plan":"free"})")
                                            << QStringList { QStringLiteral("args.name: shorter than 2 characters") };
    QTest::newRow("elicitation: below minimum") << form << val(R"({"name":"Ada","plan":"free","age":17})")
                                                << QStringList { QStringLiteral("args.age: must be ≥ 18") };
    QTest::newRow("elicitation: fraction in an integer")
        << form << val(R"({"name":"Ada","plan":"free","age":20.5})")
        << QStringList { QStringLiteral("args.age: must be an integer, not 20.5") };
    QTest::newRow("elicitation: not one of the titled values")
        << form << val(R"({"name":"Ada","plan":"gold"})")
        << QStringList { QStringLiteral(R"(args.plan: expected one of "free", "pro", got "gold")") };
    QTest::newRow("elicitation: too many choices")
        << form << val(R"({"name":"Ada","plan":"free","colors":["red","green","red"]})")
        << QStringList { QStringLiteral("args.colors: choose at most 2") };
    QTest::newRow("elicitation: bad email") << form << val(R"({"name":"Ada","plan":"free","email":"nobody"})")
                                            << QStringList { QStringLiteral("args.email: not a valid email") };
    QTest::newRow("elicitation: bad date") << form << val(R"({"name":"Ada","plan":"free","born":"yesterday"})")
                                           << QStringList { QStringLiteral("args.born: not a valid date") };
    QTest::newRow("elicitation: wrong type")
        << form << val(R"({"name":"Ada","plan":"free","subscribe":"yes"})")
        << QStringList { QStringLiteral(R"(args.subscribe: expected a boolean, got "yes")") };

    QTest::newRow("64-bit integer is an integer")
        << obj(R"({"type":"object","properties":{"id":{"type":"integer","maximum":9007199254740993}}})")
        << val(R"({"id":9007199254740993})") << QStringList();
    QTest::newRow("nested required member")
        << obj(R"({"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"}},)"
               R"("required":["city"]}}})")
        << val(R"({"address":{}})") << QStringList { QStringLiteral("args.address.city: required") };
    QTest::newRow("array item wrong type")
        << obj(R"({"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}})")
        << val(R"({"ids":[1,"two"]})")
        << QStringList { QStringLiteral(R"(args.ids[1]: expected an integer, got "two")") };
    QTest::newRow("Optional[int] below minimum names only the bound")
        << obj(R"({"type":"object","properties":{"n":{"anyOf":[{"type":"integer","minimum":1},{"type":"null"}]}}})")
        << val(R"({"n":0})") << QStringList { QStringLiteral("args.n: must be ≥ 1") };
    QTest::newRow("Optional[int] accepts null")
        << obj(R"({"type":"object","properties":{"n":{"anyOf":[{"type":"integer"},{"type":"null"}]}}})")
        << val(R"({"n":null})") << QStringList();
    QTest::newRow("exclusive maximum, draft-04 spelling")
        << obj(R"({"type":"object","properties":{"p":{"type":"number","maximum":1,"exclusiveMaximum":true}}})")
        << val(R"({"p":1})") << QStringList { QStringLiteral("args.p: must be < 1") };
    QTest::newRow("pattern names the pattern")
        << obj(R"({"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}}})")
        << val(R"({"code":"ab"})")
        << QStringList { QStringLiteral("args.code: does not match the pattern ^[A-Z]{3}$") };
    QTest::newRow("unreadable pattern is skipped")
        << obj(R"({"type":"object","properties":{"code":{"type":"string","pattern":"("}}})") << val(R"({"code":"ab"})")
        << QStringList();
    QTest::newRow("unexpected property") << obj(
        R"({"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}})")
                                         << val(R"({"a":"x","b":1})")
                                         << QStringList { QStringLiteral(R"(args: unexpected property "b")") };
    QTest::newRow("odd key path") << obj(R"({"type":"object","required":["a b"],"properties":{"a b":{}}})")
                                  << val(R"({})") << QStringList { QStringLiteral(R"(args["a b"]: required)") };
    QTest::newRow("uri format") << obj(R"({"type":"object","properties":{"url":{"type":"string","format":"uri"}}})")
                                << val(R"({"url":"not a url"})")
                                << QStringList { QStringLiteral("args.url: not a valid uri") };
}

void TestInputSchema::problems()
{
    QFETCH(QJsonObject, schema);
    QFETCH(QJsonValue, value);
    QFETCH(QStringList, expected);
    QStringList texts;
    for (const auto& problem : InputSchema::forArguments(schema).problems(value, QStringLiteral("args")))
        texts << problem.toString();
    QCOMPARE(texts, expected);
}

void TestInputSchema::parseJsonSaysWhere()
{
    QString error;
    QVERIFY(!mcpscope::InputJson::parse(QStringLiteral("{\n  oops\n}"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("line 2, column 3")), qPrintable(error));
    QCOMPARE(*mcpscope::InputJson::parse(QStringLiteral("12")), QJsonValue(12));
    QCOMPARE(mcpscope::InputJson::number(QJsonValue(qint64(9007199254740993))), QStringLiteral("9007199254740993"));
    QCOMPARE(mcpscope::InputJson::pretty(val("[1]")), QStringLiteral("[\n    1\n]"));
}

QTEST_GUILESS_MAIN(TestInputSchema)
#include "tst_inputschema.moc"
