#include "composer/callcomposer.h"
#include "composer/schemaform.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStyle>
#include <QStyleOptionButton>
#include <QTabWidget>
#include <QTest>

using mcpscope::CallComposer;
using mcpscope::SchemaForm;

// QTEST_MAIN builds the QApplication; this initializer runs before it, so that running the binary
// by hand stays headless like CTest (which sets QT_QPA_PLATFORM=offscreen itself).
[[maybe_unused]] static const bool s_offscreenByDefault = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return true;
}();

namespace {

QJsonObject obj(const char* json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(json), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad JSON in the test table: %s", qPrintable(error.errorString()));
    return doc.object();
}

QString compact(const QJsonObject& object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

// inputSchemas copied from `mcpscope-cli --stdio <server-everything> --json tools`.
// JSON literals are one raw string per line: Qt 6.4's moc mis-reads a raw string that spans lines
// after a "//" (as in "http://"), and then finds no test class at all.
const char* const EchoSchema = R"({"$schema":"http://json-schema.org/draft-07/schema#",)"
                               R"("properties":{"message":{"description":"Message to echo","type":"string"}},)"
                               R"("required":["message"],"type":"object"})";
const char* const AnnotatedMessageSchema
    = R"({"$schema":"http://json-schema.org/draft-07/schema#",)"
      R"("properties":{"includeImage":{"default":false,"description":"Whether to include an example image","type":"boolean"},)"
      R"("messageType":{"description":"Type of message to demonstrate different annotation patterns",)"
      R"("enum":["error","success","debug"],"type":"string"}},"required":["messageType"],"type":"object"})";
const char* const ResourceLinksSchema
    = R"({"$schema":"http://json-schema.org/draft-07/schema#",)"
      R"J("properties":{"count":{"default":3,"description":"Number of resource links to return (1-10)","maximum":10,)J"
      R"("minimum":1,"type":"number"}},"type":"object"})";
const char* const SumSchema
    = R"({"$schema":"http://json-schema.org/draft-07/schema#",)"
      R"("properties":{"a":{"description":"First number","type":"number"},"b":{"description":"Second number","type":"number"}},)"
      R"("required":["a","b"],"type":"object"})";
const char* const GzipSchema
    = R"({"$schema":"http://json-schema.org/draft-07/schema#",)"
      R"("properties":{"data":{"default":"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",)"
      R"("description":"URL or data URI of the file content to compress","format":"uri","type":"string"},)"
      R"("name":{"default":"README.md.gz","description":"Name of the output file","type":"string"},)"
      R"("outputType":{"default":"resourceLink","description":"How the resulting gzipped file should be returned. 'resourceLink' returns a link to a resource that can be read later, 'resource' returns a full resource object.",)"
      R"("enum":["resourceLink","resource"],"type":"string"}},"type":"object"})";
const char* const UrlElicitationSchema
    = R"({"$schema":"http://json-schema.org/draft-07/schema#",)"
      R"("properties":{"elicitationId":{"description":"Optional explicit elicitation ID. Defaults to a random UUID.","type":"string"},)"
      R"("errorPath":{"default":false,"description":"Controls which elicitation mechanism is used.","type":"boolean"},)"
      R"("message":{"default":"Please open the link to complete this action.","description":"Message shown to the user before opening the URL","type":"string"},)"
      R"("url":{"description":"The URL the user should open","format":"uri","type":"string"}},)"
      R"("required":["url"],"type":"object"})";

/// One user interaction with a field widget, found by its object name (the field's JSON path).
struct Step
{
    enum Action { Type, Retype, Click, SetIndex, CheckItem };
    Action action;
    QString target;
    QString text;
    int index = 0;
};

Step type(const char* target, const char* text)
{
    return { Step::Type, QString::fromUtf8(target), QString::fromUtf8(text) };
}
Step retype(const char* target, const char* text)
{
    return { Step::Retype, QString::fromUtf8(target), QString::fromUtf8(text) };
}
Step click(const char* target)
{
    return { Step::Click, QString::fromUtf8(target), {} };
}
Step setIndex(const char* target, int index)
{
    return { Step::SetIndex, QString::fromUtf8(target), {}, index };
}
Step checkItem(const char* target, int row)
{
    return { Step::CheckItem, QString::fromUtf8(target), {}, row };
}

using Steps = QList<Step>;

/// Clicks a check box on its indicator: the field grows wider than its text, so the centre can miss.
void clickCheckBox(QCheckBox* box)
{
    QStyleOptionButton option;
    option.initFrom(box);
    const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
    QTest::mouseClick(box, Qt::LeftButton, {}, indicator.center());
}

void run(QWidget* root, const Step& step)
{
    QWidget* widget = root->findChild<QWidget*>(step.target);
    QVERIFY2(widget, qPrintable(QStringLiteral("no widget named ") + step.target));
    // Rows added by an earlier step are shown by a queued call.
    QTRY_VERIFY(widget->isVisible());
    switch (step.action) {
    case Step::Retype:
        widget->setFocus();
        QTest::keyClick(widget, Qt::Key_A, Qt::ControlModifier);
        if (step.text.isEmpty())
            QTest::keyClick(widget, Qt::Key_Delete);
        else
            QTest::keyClicks(widget, step.text);
        break;
    case Step::Type:
        widget->setFocus();
        // Like clicking behind the text: a filled line edit shows, and has its cursor at, the start.
        QTest::keyClick(
            widget, Qt::Key_End, qobject_cast<QPlainTextEdit*>(widget) ? Qt::ControlModifier : Qt::NoModifier);
        QTest::keyClicks(widget, step.text);
        break;
    case Step::Click:
        if (auto* box = qobject_cast<QCheckBox*>(widget))
            clickCheckBox(box);
        else
            QTest::mouseClick(widget, Qt::LeftButton);
        break;
    case Step::SetIndex: {
        auto* combo = qobject_cast<QComboBox*>(widget);
        QVERIFY2(combo, qPrintable(step.target + QStringLiteral(" is not a combo box")));
        QVERIFY(step.index < combo->count());
        combo->setCurrentIndex(step.index);
        break;
    }
    case Step::CheckItem: {
        auto* list = qobject_cast<QListWidget*>(widget);
        QVERIFY2(list, qPrintable(step.target + QStringLiteral(" is not a list")));
        QListWidgetItem* item = list->item(step.index);
        QVERIFY(item);
        item->setCheckState(item->checkState() == Qt::Checked ? Qt::Unchecked : Qt::Checked);
        break;
    }
    }
}

void runAll(QWidget* root, const Steps& steps)
{
    for (const Step& step : steps) {
        run(root, step);
        if (QTest::currentTestFailed())
            return;
    }
}

template <typename T> T* child(QWidget* root, const char* name)
{
    return root->findChild<T*>(QString::fromUtf8(name));
}

} // namespace

Q_DECLARE_METATYPE(Steps)

class TestSchemaForm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void producesValue_data();
    void producesValue();
    void requiredFieldIsMarkedAndReported();
    void integerRejectsFraction();
    void integerKeepsSixtyFourBits();
    void enumShowsTitles();
    void setValueRoundTripsExactly();
    void valueChangedOnlyOnEdits();
    void removedArrayRowRenumbers();
    void unsupportedSchemasFallBack_data();
    void unsupportedSchemasFallBack();

    void composerShowsTool();
    void composerFormToJson();
    void composerJsonToForm();
    void composerInvalidJsonKeepsForm();
    void composerCtrlReturnCalls();
    void composerCallsWithJsonTabText();
    void composerRunningTogglesButtons();
    void composerProgress();
    void composerScreenshot();
};

void TestSchemaForm::producesValue_data()
{
    QTest::addColumn<QJsonObject>("schema");
    QTest::addColumn<Steps>("steps");
    QTest::addColumn<QJsonObject>("expected");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("problem");

    const QString none;

    // server-everything's own schemas
    QTest::newRow("echo: typed required message")
        << obj(EchoSchema) << Steps { type("args.message", "hello") } << obj(R"({"message":"hello"})") << true << none;
    QTest::newRow("echo: untouched required message is missing")
        << obj(EchoSchema) << Steps {} << QJsonObject() << false << QStringLiteral("args.message: required");
    QTest::newRow("annotated message: required enum chosen, untouched boolean default sent")
        << obj(AnnotatedMessageSchema) << Steps { setIndex("args.messageType", 1) }
        << obj(R"({"messageType":"success","includeImage":false})") << true << none;
    // Qt's tri-state cycle is unset → true → false → unset, so from its default false it goes through unset.
    QTest::newRow("annotated message: boolean default false clicked twice is true")
        << obj(AnnotatedMessageSchema)
        << Steps { setIndex("args.messageType", 0), click("args.includeImage"), click("args.includeImage") }
        << obj(R"({"messageType":"error","includeImage":true})") << true << none;
    QTest::newRow("resource links: untouched number default")
        << obj(ResourceLinksSchema) << Steps {} << obj(R"({"count":3})") << true << none;
    QTest::newRow("resource links: 11 is above maximum 10")
        << obj(ResourceLinksSchema) << Steps { retype("args.count", "11") } << obj(R"({"count":11})") << false
        << QStringLiteral("args.count: must be ≤ 10");
    QTest::newRow("resource links: 0 is below minimum 1")
        << obj(ResourceLinksSchema) << Steps { retype("args.count", "0") } << obj(R"({"count":0})") << false
        << QStringLiteral("args.count: must be ≥ 1");
    QTest::newRow("resource links: cleared optional number is absent")
        << obj(ResourceLinksSchema) << Steps { retype("args.count", "") } << QJsonObject() << true << none;
    QTest::newRow("sum: fractional and negative numbers")
        << obj(SumSchema) << Steps { type("args.a", "2.5"), type("args.b", "-4") } << obj(R"({"a":2.5,"b":-4})") << true
        << none;
    QTest::newRow("sum: letters are not accepted by a number field")
        << obj(SumSchema) << Steps { type("args.a", "x1e3"), type("args.b", "0") } << obj(R"({"a":1000,"b":0})") << true
        << none;
    QTest::newRow("gzip: three untouched defaults")
        << obj(GzipSchema) << Steps {}
        << obj(R"({"data":"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",)"
               R"("name":"README.md.gz","outputType":"resourceLink"})")
        << true << none;
    QTest::newRow("gzip: optional enum set back to not set")
        << obj(GzipSchema) << Steps { setIndex("args.outputType", 0) }
        << obj(R"({"data":"https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",)"
               R"("name":"README.md.gz"})")
        << true << none;
    QTest::newRow("url elicitation: uri format accepted")
        << obj(UrlElicitationSchema) << Steps { type("args.url", "https://example.com/auth") }
        << obj(R"({"url":"https://example.com/auth","errorPath":false,)"
               R"("message":"Please open the link to complete this action."})")
        << true << none;
    QTest::newRow("url elicitation: uri format rejected")
        << obj(UrlElicitationSchema) << Steps { type("args.url", "not a url") }
        << obj(R"({"url":"not a url","errorPath":false,"message":"Please open the link to complete this action."})")
        << false << QStringLiteral("args.url: not a valid uri");

    // strings
    const QJsonObject optionalNote = obj(R"({"type":"object","properties":{"note":{"type":"string"}}})");
    QTest::newRow("string: untouched optional without default is absent")
        << optionalNote << Steps {} << QJsonObject() << true << none;
    QTest::newRow("string: typed then cleared is absent again")
        << optionalNote << Steps { type("args.note", "x"), retype("args.note", "") } << QJsonObject() << true << none;
    QTest::newRow("string: long maxLength gets a multi-line editor")
        << obj(R"({"type":"object","properties":{"body":{"type":"string","maxLength":5000}}})")
        << Steps { type("args.body", "line one") } << obj(R"({"body":"line one"})") << true << none;
    QTest::newRow("string: pattern mismatch")
        << obj(R"({"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}}})")
        << Steps { type("args.code", "ab") } << obj(R"({"code":"ab"})") << false
        << QStringLiteral("args.code: does not match");
    QTest::newRow("string: pydantic Optional[str] (anyOf with null)")
        << obj(R"({"type":"object","properties":{"q":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}}})")
        << Steps { type("args.q", "find") } << obj(R"({"q":"find"})") << true << none;

    // integers
    const QJsonObject limit = obj(R"({"type":"object","properties":{"limit":{"type":"integer","minimum":1}}})");
    QTest::newRow("integer: typed digits")
        << limit << Steps { type("args.limit", "42") } << obj(R"({"limit":42})") << true << none;
    QTest::newRow("integer: the dot of 1.5 is refused while typing")
        << limit << Steps { type("args.limit", "1.5") } << obj(R"({"limit":15})") << true << none;
    QTest::newRow("integer: below minimum") << limit << Steps { type("args.limit", "-3") } << obj(R"({"limit":-3})")
                                            << false << QStringLiteral("args.limit: must be ≥ 1");

    // booleans
    const QJsonObject flag = obj(R"({"type":"object","properties":{"dryRun":{"type":"boolean"}}})");
    QTest::newRow("boolean: optional untouched is absent") << flag << Steps {} << QJsonObject() << true << none;
    QTest::newRow("boolean: one click is true")
        << flag << Steps { click("args.dryRun") } << obj(R"({"dryRun":true})") << true << none;
    QTest::newRow("boolean: two clicks are false")
        << flag << Steps { click("args.dryRun"), click("args.dryRun") } << obj(R"({"dryRun":false})") << true << none;
    QTest::newRow("boolean: three clicks are unset again")
        << flag << Steps { click("args.dryRun"), click("args.dryRun"), click("args.dryRun") } << QJsonObject() << true
        << none;
    QTest::newRow("boolean: required starts false")
        << obj(R"({"type":"object","properties":{"force":{"type":"boolean"}},"required":["force"]})") << Steps {}
        << obj(R"({"force":false})") << true << none;

    // enums
    QTest::newRow("enum: numbers, optional")
        << obj(R"({"type":"object","properties":{"level":{"type":"integer","enum":[1,2,3]}}})")
        << Steps { setIndex("args.level", 2) } << obj(R"({"level":2})") << true << none;
    QTest::newRow("enum: oneOf const with titles (elicitation)")
        << obj(R"({"type":"object","required":["priority"],"properties":{"priority":{"type":"string",)"
               R"("oneOf":[{"const":"p1","title":"High"},{"const":"p2","title":"Low"}]}}})")
        << Steps { setIndex("args.priority", 1) } << obj(R"({"priority":"p2"})") << true << none;
    QTest::newRow("enum: legacy enumNames")
        << obj(R"({"type":"object","properties":{"size":{"type":"string","enum":["s","l"],)"
               R"("enumNames":["Small","Large"]}}})")
        << Steps { setIndex("args.size", 2) } << obj(R"({"size":"l"})") << true << none;
    QTest::newRow("enum: required and not chosen")
        << obj(AnnotatedMessageSchema) << Steps {} << obj(R"({"includeImage":false})") << false
        << QStringLiteral("args.messageType: required");

    // nested objects
    const QJsonObject address
        = obj(R"({"type":"object","properties":{"address":{"type":"object",)"
              R"("description":"Where to ship","properties":{"city":{"type":"string"},"zip":{"type":"string"}},)"
              R"("required":["city"]}}})");
    QTest::newRow("object: nested field") << address << Steps { type("args.address.city", "Oslo") }
                                          << obj(R"({"address":{"city":"Oslo"}})") << true << none;
    QTest::newRow("object: untouched optional object is absent, its required member not asked")
        << address << Steps {} << QJsonObject() << true << none;
    QTest::newRow("object: partly filled object misses its required member")
        << address << Steps { type("args.address.zip", "0150") } << obj(R"({"address":{"zip":"0150"}})") << false
        << QStringLiteral("args.address.city: required");

    // arrays
    const QJsonObject tags = obj(R"({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},)"
                                 R"("maxItems":3}}})");
    QTest::newRow("array: untouched optional is absent") << tags << Steps {} << QJsonObject() << true << none;
    QTest::newRow("array: two strings added") << tags
                                              << Steps { click("args.tags:add"), click("args.tags:add"),
                                                     type("args.tags[0]", "a"), type("args.tags[1]", "b") }
                                              << obj(R"({"tags":["a","b"]})") << true << none;
    QTest::newRow("array: two objects added")
        << obj(R"({"type":"object","required":["items"],"properties":{"items":{"type":"array","minItems":1,)"
               R"("items":{"type":"object","properties":{"name":{"type":"string"},"qty":{"type":"integer"}},)"
               R"("required":["name"]}}}})")
        << Steps { click("args.items:add"), click("args.items:add"), type("args.items[0].name", "bolt"),
               type("args.items[1].name", "nut"), type("args.items[1].qty", "12") }
        << obj(R"({"items":[{"name":"bolt"},{"name":"nut","qty":12}]})") << true << none;
    QTest::newRow("array: required empty array is below minItems")
        << obj(R"({"type":"object","required":["ids"],"properties":{"ids":{"type":"array","minItems":1,)"
               R"("items":{"type":"integer"}}}})")
        << Steps {} << obj(R"({"ids":[]})") << false << QStringLiteral("args.ids: needs at least 1");
    QTest::newRow("array: empty number item is required")
        << obj(R"({"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}})")
        << Steps { click("args.ids:add") } << obj(R"({"ids":[null]})") << false
        << QStringLiteral("args.ids[0]: required");
    QTest::newRow("array: enum items are a checkable list")
        << obj(R"({"type":"object","properties":{"colors":{"type":"array",)"
               R"("items":{"type":"string","enum":["red","green","blue"]}}}})")
        << Steps { checkItem("args.colors", 2), checkItem("args.colors", 0) } << obj(R"({"colors":["red","blue"]})")
        << true << none;
    QTest::newRow("array: titled multi-select (anyOf const)")
        << obj(R"({"type":"object","properties":{"days":{"type":"array","maxItems":1,)"
               R"("items":{"anyOf":[{"const":"mon","title":"Monday"},{"const":"tue","title":"Tuesday"}]}}}})")
        << Steps { checkItem("args.days", 0), checkItem("args.days", 1) } << obj(R"({"days":["mon","tue"]})") << false
        << QStringLiteral("args.days: choose at most 1");

    // raw JSON fallbacks
    QTest::newRow("raw: additionalProperties map")
        << obj(R"({"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}})")
        << Steps { type("args.env", R"({"HOME": "/root"})") } << obj(R"({"env":{"HOME":"/root"}})") << true << none;
    QTest::newRow("raw: $ref") << obj(
        R"({"type":"object","$defs":{"P":{"type":"array"}},"properties":{"p":{"$ref":"#/$defs/P"}}})")
                               << Steps { type("args.p", "[1, 2]") } << obj(R"({"p":[1,2]})") << true << none;
    QTest::newRow("raw: oneOf of objects")
        << obj(R"({"type":"object","properties":{"shape":{"oneOf":[)"
               R"({"type":"object","required":["r"],"properties":{"r":{"type":"number"}}},)"
               R"({"type":"object","required":["w"],"properties":{"w":{"type":"number"}}}]}}})")
        << Steps { type("args.shape", R"({"r": 2})") } << obj(R"({"shape":{"r":2}})") << true << none;
    QTest::newRow("raw: oneOf value that both branches allow")
        << obj(R"({"type":"object","properties":{"shape":{"oneOf":[)"
               R"({"type":"object","properties":{"r":{"type":"number"}}},)"
               R"({"type":"object","properties":{"w":{"type":"number"}}}]}}})")
        << Steps { type("args.shape", R"({"r": 2})") } << obj(R"({"shape":{"r":2}})") << false
        << QStringLiteral("args.shape: matches more than one of the schemas its oneOf allows");
    QTest::newRow("raw: invalid JSON is reported with its position")
        << obj(R"({"type":"object","properties":{"env":{"type":"object","additionalProperties":true}}})")
        << Steps { type("args.env", "{oops") } << QJsonObject() << false << QStringLiteral("line 1, column 2");
    QTest::newRow("raw: wrong JSON type for the schema")
        << obj(R"({"type":"object","properties":{"env":{"type":"object","additionalProperties":true}}})")
        << Steps { type("args.env", "[1]") } << obj(R"({"env":[1]})") << false
        << QStringLiteral("args.env: expected an object, got [1]");
}

void TestSchemaForm::producesValue()
{
    QFETCH(QJsonObject, schema);
    QFETCH(Steps, steps);
    QFETCH(QJsonObject, expected);
    QFETCH(bool, valid);
    QFETCH(QString, problem);

    SchemaForm form;
    form.setSchema(schema);
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    runAll(&form, steps);
    if (QTest::currentTestFailed())
        return;

    QCOMPARE(compact(form.value()), compact(expected));
    QStringList problems;
    QCOMPARE(form.isValid(&problems), valid);
    QCOMPARE(problems.isEmpty(), valid);
    if (!problem.isEmpty()) {
        const QString all = problems.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(problem), qPrintable(all));
    }
}

void TestSchemaForm::requiredFieldIsMarkedAndReported()
{
    SchemaForm form;
    form.setSchema(obj(EchoSchema));

    auto* label = child<QLabel>(&form, "args.message:label");
    QVERIFY(label);
    QVERIFY2(label->text().contains(QLatin1Char('*')), qPrintable(label->text()));
    QVERIFY(label->toolTip().contains(QStringLiteral("Message to echo")));
    auto* edit = child<QLineEdit>(&form, "args.message");
    QVERIFY(edit);
    QCOMPARE(label->buddy(), edit);
    QCOMPARE(edit->placeholderText(), QStringLiteral("Message to echo"));

    QStringList problems;
    QVERIFY(!form.isValid(&problems));
    QCOMPARE(problems, QStringList { QStringLiteral("args.message: required") });

    form.setSchema(obj(AnnotatedMessageSchema));
    auto* optionalLabel = child<QLabel>(&form, "args.includeImage:label");
    QVERIFY(optionalLabel);
    QVERIFY(!optionalLabel->text().contains(QLatin1Char('*')));
    QVERIFY(optionalLabel->toolTip().contains(QStringLiteral("default: false")));
}

void TestSchemaForm::integerRejectsFraction()
{
    SchemaForm form;
    form.setSchema(obj(R"({"type":"object","properties":{"n":{"type":"integer"}}})"));
    form.setValue(obj(R"({"n":1.5})"));

    // The form does not round it away: the call would send 1.5, and the problem says so.
    QCOMPARE(child<QLineEdit>(&form, "args.n")->text(), QStringLiteral("1.5"));
    QCOMPARE(compact(form.value()), QStringLiteral(R"({"n":1.5})"));
    QStringList problems;
    QVERIFY(!form.isValid(&problems));
    QCOMPARE(problems, QStringList { QStringLiteral("args.n: must be an integer, not 1.5") });

    form.setValue(obj(R"({"n":2.0})"));
    QCOMPARE(child<QLineEdit>(&form, "args.n")->text(), QStringLiteral("2"));
    QVERIFY(form.isValid());
}

void TestSchemaForm::integerKeepsSixtyFourBits()
{
    SchemaForm form;
    form.setSchema(obj(R"({"type":"object","properties":{"id":{"type":"integer"}}})"));
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    runAll(&form, { type("args.id", "9007199254740993") });
    QCOMPARE(compact(form.value()), QStringLiteral(R"({"id":9007199254740993})"));
    QCOMPARE(form.value().value(QStringLiteral("id")).toInteger(), Q_INT64_C(9007199254740993));
    QVERIFY(form.isValid());

    runAll(&form, { retype("args.id", "99999999999999999999") });
    QStringList problems;
    QVERIFY(!form.isValid(&problems));
    QCOMPARE(problems, QStringList { QStringLiteral("args.id: outside the 64-bit integer range") });
}

void TestSchemaForm::enumShowsTitles()
{
    SchemaForm form;
    form.setSchema(
        obj(R"({"type":"object","required":["priority"],"properties":{)"
            R"("priority":{"type":"string","oneOf":[{"const":"p1","title":"High","description":"Page someone"},)"
            R"({"const":"p2","title":"Low"}]},)"
            R"("size":{"type":"number","enum":[0.5,1]}}})"));
    auto* priority = child<QComboBox>(&form, "args.priority");
    QVERIFY(priority);
    QCOMPARE(priority->count(), 2);
    QCOMPARE(priority->currentIndex(), -1);
    QCOMPARE(priority->placeholderText(), QStringLiteral("Choose…"));
    QCOMPARE(priority->itemText(0), QStringLiteral("High"));
    QCOMPARE(priority->itemText(1), QStringLiteral("Low"));
    QVERIFY(priority->itemData(0, Qt::ToolTipRole).toString().contains(QStringLiteral("Page someone")));

    auto* size = child<QComboBox>(&form, "args.size");
    QVERIFY(size);
    QCOMPARE(size->itemText(0), QStringLiteral("(not set)"));
    QCOMPARE(size->itemText(1), QStringLiteral("0.5"));

    // A value outside the enum is kept and reported, not dropped.
    form.setValue(obj(R"({"priority":"p9"})"));
    QCOMPARE(compact(form.value()), QStringLiteral(R"({"priority":"p9"})"));
    QStringList problems;
    QVERIFY(!form.isValid(&problems));
    QCOMPARE(problems, QStringList { QStringLiteral(R"(args.priority: expected one of "p1", "p2", got "p9")") });
}

void TestSchemaForm::setValueRoundTripsExactly()
{
    SchemaForm form;
    form.setSchema(
        obj(R"({"type":"object","properties":{)"
            R"("s":{"type":"string"}, "empty":{"type":"string"}, "n":{"type":"number"}, "i":{"type":"integer"},)"
            R"("b":{"type":"boolean"}, "e":{"enum":["x","y"]},)"
            R"("o":{"type":"object","properties":{"deep":{"type":"array","items":{"type":"object",)"
            R"("properties":{"k":{"type":"string"}}}}}},)"
            R"("set":{"type":"array","items":{"enum":[1,2,3]}},)"
            R"("map":{"type":"object","additionalProperties":{"type":"number"}},)"
            R"("wrongType":{"type":"number"}}})"));
    const QJsonObject value = obj(R"({"s":"text","empty":"","n":0.25,"i":-7,"b":false,"e":"y",)"
                                  R"("o":{"deep":[{"k":"v"},{"k":"w","extra":true}]},"set":[3,1],"map":{"a":1},)"
                                  R"("wrongType":"not a number","unknown":{"kept":[1]}})");
    form.setValue(value);
    // Everything but the enum set's order comes back; that list is always in schema order.
    QJsonObject expected = value;
    expected.insert(QStringLiteral("set"), QJsonArray { 1, 3 });
    QCOMPARE(compact(form.value()), compact(expected));

    QStringList problems;
    QVERIFY(!form.isValid(&problems));
    QCOMPARE(problems, QStringList { QStringLiteral(R"(args.wrongType: expected a number, got "not a number")") });
    QVERIFY(child<QWidget>(&form, "args.o.deep[1].k"));

    form.setValue(QJsonObject());
    QCOMPARE(compact(form.value()), QStringLiteral("{}"));
}

void TestSchemaForm::valueChangedOnlyOnEdits()
{
    SchemaForm form;
    QSignalSpy changed(&form, &SchemaForm::valueChanged);
    form.setSchema(obj(GzipSchema));
    form.setValue(obj(R"({"name":"x.gz"})"));
    QCOMPARE(changed.count(), 0);

    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    runAll(&form, { type("args.name", "z") });
    QCOMPARE(changed.count(), 1);
    runAll(&form, { setIndex("args.outputType", 2) });
    QCOMPARE(changed.count(), 2);
    QCOMPARE(compact(form.value()), QStringLiteral(R"({"name":"x.gzz","outputType":"resource"})"));
}

void TestSchemaForm::removedArrayRowRenumbers()
{
    SchemaForm form;
    form.setSchema(obj(R"({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}})"));
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    runAll(&form,
        { click("args.tags:add"), click("args.tags:add"), click("args.tags:add"), type("args.tags[0]", "a"),
            type("args.tags[1]", "b"), type("args.tags[2]", "c"), click("args.tags[1]:remove") });
    QCOMPARE(compact(form.value()), QStringLiteral(R"({"tags":["a","c"]})"));
    // The former third row answers to [1] now, and nothing answers to [2].
    runAll(&form, { type("args.tags[1]", "!") });
    QCOMPARE(compact(form.value()), QStringLiteral(R"({"tags":["a","c!"]})"));
    QTRY_VERIFY(!child<QWidget>(&form, "args.tags[2]"));

    runAll(&form, { click("args.tags[1]:remove"), click("args.tags[0]:remove") });
    QCOMPARE(compact(form.value()), QStringLiteral("{}"));
}

void TestSchemaForm::unsupportedSchemasFallBack_data()
{
    QTest::addColumn<QJsonObject>("schema");
    QTest::addColumn<QJsonObject>("value");

    QTest::newRow("empty schema") << QJsonObject() << QJsonObject();
    QTest::newRow("object without properties") << obj(R"({"type":"object"})") << obj(R"({"anything":[1,{"a":null}]})");
    QTest::newRow("root $ref") << obj(R"({"$ref":"#/$defs/Args","$defs":{"Args":{"type":"object"}}})")
                               << obj(R"({"x":1})");
    QTest::newRow("root map") << obj(R"({"type":"object","additionalProperties":{"type":"integer"}})")
                              << obj(R"({"x":1,"y":2})");
    QTest::newRow("properties is not an object") << obj(R"({"type":"object","properties":5})") << QJsonObject();
    QTest::newRow("odd property schemas")
        << obj(R"({"type":"object","required":["missing"],"properties":{)"
               R"("noType":{}, "notAnObject":3, "typeList":{"type":["string","integer"]}, "nullType":{"type":"null"},)"
               R"("tuple":{"type":"array","items":[{"type":"string"},{"type":"number"}]},)"
               R"("emptyEnum":{"type":"string","enum":[]}, "constOnly":{"const":"fixed"},)"
               R"("itemsMissing":{"type":"array"}, "allOf":{"allOf":[{"type":"string"},{"minLength":2}]},)"
               R"("mixedEnum":{"enum":["a",1,null,{"o":1}]}, "badPattern":{"type":"string","pattern":"("}}})")
        << obj(R"({"noType":{"free":true},"typeList":"s","nullType":null,"tuple":["a",1],"constOnly":"fixed",)"
               R"("itemsMissing":[true,"x"],"mixedEnum":{"o":1},"badPattern":"x"})");
}

void TestSchemaForm::unsupportedSchemasFallBack()
{
    QFETCH(QJsonObject, schema);
    QFETCH(QJsonObject, value);

    SchemaForm form;
    form.setSchema(schema);
    form.show();
    QVERIFY(QTest::qWaitForWindowExposed(&form));
    form.isValid();
    form.setValue(value);
    QCOMPARE(compact(form.value()), compact(value));
    form.grab();
}

void TestSchemaForm::composerShowsTool()
{
    CallComposer composer;
    composer.setTool(QJsonObject { { QStringLiteral("name"), QStringLiteral("echo") },
        { QStringLiteral("title"), QStringLiteral("Echo Tool") },
        { QStringLiteral("description"), QStringLiteral("Echoes back the input string") },
        { QStringLiteral("inputSchema"), obj(EchoSchema) } });
    QCOMPARE(child<QLabel>(&composer, "composer.title")->text(), QStringLiteral("Echo Tool"));
    QCOMPARE(child<QLabel>(&composer, "composer.name")->text(), QStringLiteral("echo"));
    QCOMPARE(child<QLabel>(&composer, "composer.description")->text(), QStringLiteral("Echoes back the input string"));
    QVERIFY(child<QLineEdit>(&composer, "args.message"));
    QVERIFY(child<QLabel>(&composer, "composer.problems")->text().contains(QStringLiteral("args.message: required")));
}

void TestSchemaForm::composerFormToJson()
{
    CallComposer composer;
    composer.setTool(QJsonObject { { QStringLiteral("name"), QStringLiteral("gzip-file-as-resource") },
        { QStringLiteral("inputSchema"), obj(GzipSchema) } });
    auto* json = child<QPlainTextEdit>(&composer, "composer.json");
    QVERIFY(json);
    QCOMPARE(SchemaForm::parseJson(json->toPlainText())->toObject(), composer.form()->value());

    composer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&composer));
    runAll(&composer, { retype("args.name", "out.gz"), setIndex("args.outputType", 2) });
    const QJsonObject shown = SchemaForm::parseJson(json->toPlainText())->toObject();
    QCOMPARE(shown.value(QStringLiteral("name")).toString(), QStringLiteral("out.gz"));
    QCOMPARE(shown.value(QStringLiteral("outputType")).toString(), QStringLiteral("resource"));
    QCOMPARE(shown, composer.form()->value());
}

void TestSchemaForm::composerJsonToForm()
{
    CallComposer composer;
    composer.setTool(QJsonObject { { QStringLiteral("name"), QStringLiteral("get-annotated-message") },
        { QStringLiteral("inputSchema"), obj(AnnotatedMessageSchema) } });
    composer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&composer));
    auto* tabs = child<QTabWidget>(&composer, "composer.mode");
    tabs->setCurrentIndex(1);
    // Typed key by key: every prefix is invalid JSON until the last brace, and none may clobber the form.
    runAll(&composer, { retype("composer.json", R"({"messageType": "debug", "includeImage": true})") });
    QCOMPARE(child<QComboBox>(&composer, "args.messageType")->currentText(), QStringLiteral("debug"));
    QCOMPARE(child<QCheckBox>(&composer, "args.includeImage")->checkState(), Qt::Checked);
    QVERIFY(!child<QLabel>(&composer, "composer.jsonError")->isVisible());
    QVERIFY(!child<QLabel>(&composer, "composer.problems")->isVisible());

    // Leaving a key out unsets the field rather than restoring its default.
    runAll(&composer, { retype("composer.json", R"({"messageType": "error"})") });
    QCOMPARE(child<QCheckBox>(&composer, "args.includeImage")->checkState(), Qt::PartiallyChecked);
    QCOMPARE(compact(composer.form()->value()), QStringLiteral(R"({"messageType":"error"})"));
}

void TestSchemaForm::composerInvalidJsonKeepsForm()
{
    CallComposer composer;
    composer.setTool(QJsonObject {
        { QStringLiteral("name"), QStringLiteral("echo") }, { QStringLiteral("inputSchema"), obj(EchoSchema) } });
    composer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&composer));
    runAll(&composer, { type("args.message", "hello") });
    auto* tabs = child<QTabWidget>(&composer, "composer.mode");
    tabs->setCurrentIndex(1);
    auto* json = child<QPlainTextEdit>(&composer, "composer.json");
    json->setPlainText(QStringLiteral("{\n  \"message\": \"bye\",\n  oops\n}"));

    auto* error = child<QLabel>(&composer, "composer.jsonError");
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains(QStringLiteral("line 3, column 3")), qPrintable(error->text()));
    QCOMPARE(tabs->tabText(1), QStringLiteral("JSON (invalid)"));
    QCOMPARE(child<QLineEdit>(&composer, "args.message")->text(), QStringLiteral("hello"));
    QCOMPARE(json->toPlainText(), QStringLiteral("{\n  \"message\": \"bye\",\n  oops\n}"));

    // Call from the broken JSON tab sends nothing.
    QSignalSpy calls(&composer, &CallComposer::callRequested);
    QTest::mouseClick(child<QPushButton>(&composer, "composer.call"), Qt::LeftButton);
    QCOMPARE(calls.count(), 0);

    json->setPlainText(QStringLiteral("[1]"));
    QVERIFY(error->text().contains(QStringLiteral("must be a JSON object")));
    QCOMPARE(child<QLineEdit>(&composer, "args.message")->text(), QStringLiteral("hello"));

    json->setPlainText(QStringLiteral(R"({"message": "fixed"})"));
    QVERIFY(!error->isVisible());
    QCOMPARE(tabs->tabText(1), QStringLiteral("JSON"));
    QCOMPARE(child<QLineEdit>(&composer, "args.message")->text(), QStringLiteral("fixed"));
}

void TestSchemaForm::composerCtrlReturnCalls()
{
    CallComposer composer;
    composer.setTool(QJsonObject {
        { QStringLiteral("name"), QStringLiteral("get-sum") }, { QStringLiteral("inputSchema"), obj(SumSchema) } });
    composer.show();
    composer.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&composer));
    QSignalSpy calls(&composer, &CallComposer::callRequested);
    runAll(&composer, { type("args.a", "1"), type("args.b", "2") });
    QTest::keyClick(child<QLineEdit>(&composer, "args.b"), Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(calls.count(), 1);
    QCOMPARE(calls.at(0).at(0).toJsonObject(), obj(R"({"a":1,"b":2})"));

    // Also from the JSON editor, whose own keys must not swallow the shortcut.
    child<QTabWidget>(&composer, "composer.mode")->setCurrentIndex(1);
    auto* json = child<QPlainTextEdit>(&composer, "composer.json");
    json->setFocus();
    QTest::keyClick(json, Qt::Key_Enter, Qt::ControlModifier | Qt::KeypadModifier);
    QCOMPARE(calls.count(), 2);
    QCOMPARE(calls.at(1).at(0).toJsonObject(), obj(R"({"a":1,"b":2})"));
}

void TestSchemaForm::composerCallsWithJsonTabText()
{
    CallComposer composer;
    composer.setTool(QJsonObject {
        { QStringLiteral("name"), QStringLiteral("get-sum") }, { QStringLiteral("inputSchema"), obj(SumSchema) } });
    composer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&composer));
    child<QTabWidget>(&composer, "composer.mode")->setCurrentIndex(1);
    // Deliberately wrong for the schema: an inspector must be able to send it.
    child<QPlainTextEdit>(&composer, "composer.json")->setPlainText(QStringLiteral(R"({"a":"one","z":[]})"));
    QSignalSpy calls(&composer, &CallComposer::callRequested);
    QTest::mouseClick(child<QPushButton>(&composer, "composer.call"), Qt::LeftButton);
    QCOMPARE(calls.count(), 1);
    QCOMPARE(calls.at(0).at(0).toJsonObject(), obj(R"({"a":"one","z":[]})"));
    const QString problems = child<QLabel>(&composer, "composer.problems")->text();
    QVERIFY2(problems.contains(QStringLiteral("args.b: required")), qPrintable(problems));
    QVERIFY2(problems.contains(QStringLiteral(R"(args.a: expected a number, got "one")")), qPrintable(problems));
    // Back in the form, the values it cannot show still go out unchanged.
    child<QTabWidget>(&composer, "composer.mode")->setCurrentIndex(0);
    QVERIFY(composer.arguments());
    QCOMPARE(compact(*composer.arguments()), QStringLiteral(R"({"a":"one","z":[]})"));
}

void TestSchemaForm::composerRunningTogglesButtons()
{
    CallComposer composer;
    composer.setTool(QJsonObject {
        { QStringLiteral("name"), QStringLiteral("echo") }, { QStringLiteral("inputSchema"), obj(EchoSchema) } });
    composer.show();
    composer.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&composer));
    auto* call = child<QPushButton>(&composer, "composer.call");
    auto* cancel = child<QPushButton>(&composer, "composer.cancel");
    auto* edit = child<QLineEdit>(&composer, "args.message");
    QSignalSpy calls(&composer, &CallComposer::callRequested);
    QSignalSpy cancels(&composer, &CallComposer::cancelRequested);
    QVERIFY(call->isEnabled());
    QVERIFY(!cancel->isEnabled());
    QTest::keyClick(edit, Qt::Key_Escape);
    QCOMPARE(cancels.count(), 0);

    composer.setRunning(true);
    QVERIFY(!call->isEnabled());
    QVERIFY(cancel->isEnabled());
    // The bar waits ProgressDelayMs, so that a fast call does not flash it.
    QVERIFY(!child<QProgressBar>(&composer, "composer.progress")->isVisible());
    QTRY_VERIFY(child<QProgressBar>(&composer, "composer.progress")->isVisible());
    QTest::keyClick(edit, Qt::Key_Return, Qt::ControlModifier);
    QCOMPARE(calls.count(), 0);
    QTest::keyClick(edit, Qt::Key_Escape);
    QCOMPARE(cancels.count(), 1);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QCOMPARE(cancels.count(), 2);

    composer.setRunning(false);
    QVERIFY(call->isEnabled());
    QVERIFY(!cancel->isEnabled());
    QVERIFY(!child<QProgressBar>(&composer, "composer.progress")->isVisible());
    QTest::mouseClick(call, Qt::LeftButton);
    QCOMPARE(calls.count(), 1);
}

void TestSchemaForm::composerProgress()
{
    CallComposer composer;
    composer.show();
    composer.setRunning(true);
    auto* bar = child<QProgressBar>(&composer, "composer.progress");
    auto* text = child<QLabel>(&composer, "composer.progressText");
    QCOMPARE(bar->maximum(), 0);
    QVERIFY(!bar->isVisible());

    // Progress shows the bar at once, without waiting for the delay.
    composer.setProgress(3, 10.0, QStringLiteral("Step 3"));
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->maximum(), 1000);
    QCOMPARE(bar->value(), 300);
    QCOMPARE(text->text(), QStringLiteral("3 of 10 — Step 3"));

    composer.setProgress(0.25, 1.0, QString());
    QCOMPARE(bar->value(), 250);

    composer.setProgress(7, std::nullopt, QStringLiteral("still going"));
    QCOMPARE(bar->minimum(), 0);
    QCOMPARE(bar->maximum(), 0);
    QCOMPARE(text->text(), QStringLiteral("progress 7 — still going"));
}

void TestSchemaForm::composerScreenshot()
{
    // MCPSCOPE_SCREENSHOT_DIR=dir ./tst_schemaform composerScreenshot writes PNGs to look at.
    const QString dir = qEnvironmentVariable("MCPSCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty())
        QSKIP("set MCPSCOPE_SCREENSHOT_DIR to write the composer's screenshots");
    QVERIFY(QDir().mkpath(dir));
    const struct
    {
        const char* file;
        const char* name;
        const char* title;
        const char* description;
        const char* schema;
    } tools[] = {
        { "composer-url-elicitation.png", "trigger-url-elicitation", "Trigger URL Elicitation Tool",
            "Trigger a URL elicitation so the client can direct the user to a browser flow.", UrlElicitationSchema },
        { "composer-gzip.png", "gzip-file-as-resource", "GZip File as Resource Tool",
            "Compresses a single file using gzip compression. Depending upon the selected output type, returns either "
            "the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a "
            "subsequent request during the current session.",
            GzipSchema },
        { "composer-everything-else.png", "kitchen-sink", "", "Every field kind at once.",
            R"({"type":"object","required":["query","items"],"properties":{)"
            R"("query":{"type":"string","description":"What to look for"},)"
            R"("limit":{"type":"integer","minimum":1,"maximum":100,"description":"Page size"},)"
            R"("verbose":{"type":"boolean","description":"Explain each step"},)"
            R"("priority":{"type":"string","oneOf":[{"const":"p1","title":"High"},{"const":"p2","title":"Low"}]},)"
            R"("colors":{"type":"array","items":{"type":"string","enum":["red","green","blue"]}},)"
            R"("items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},)"
            R"("qty":{"type":"integer"}},"required":["name"]}},)"
            R"("address":{"type":"object","description":"Where to ship","properties":{"city":{"type":"string"},)"
            R"("zip":{"type":"string"}},"required":["city"]},)"
            R"("env":{"type":"object","additionalProperties":{"type":"string"}}}})" },
    };
    for (const auto& tool : tools) {
        CallComposer composer;
        composer.resize(560, 640);
        composer.setTool(QJsonObject { { QStringLiteral("name"), QString::fromUtf8(tool.name) },
            { QStringLiteral("title"), QString::fromUtf8(tool.title) },
            { QStringLiteral("description"), QString::fromUtf8(tool.description) },
            { QStringLiteral("inputSchema"), obj(tool.schema) } });
        composer.show();
        QVERIFY(QTest::qWaitForWindowExposed(&composer));
        if (QString::fromUtf8(tool.name) == QLatin1String("kitchen-sink")) {
            runAll(&composer,
                { type("args.query", "bolts"), click("args.items:add"), type("args.items[0].name", "M6"),
                    type("args.env", "{\"A\": 1"), checkItem("args.colors", 1) });
            composer.setRunning(true);
            composer.setProgress(2, 5.0, QStringLiteral("Downloading"));
        }
        // grab() paints what is laid out; the layouts of rows shown just now are still queued.
        QCoreApplication::sendPostedEvents();
        const QString file = dir + QLatin1Char('/') + QString::fromUtf8(tool.file);
        QVERIFY(composer.grab().save(file));
        auto* tabs = child<QTabWidget>(&composer, "composer.mode");
        tabs->setCurrentIndex(1);
        QCoreApplication::sendPostedEvents();
        QVERIFY(composer.grab().save(QString(file).replace(QStringLiteral(".png"), QStringLiteral("-json.png"))));
    }
}

QTEST_MAIN(TestSchemaForm)
#include "tst_schemaform.moc"
