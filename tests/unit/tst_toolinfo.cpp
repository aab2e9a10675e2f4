#include "session/toolinfo.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using mcpscope::ToolInfo;
using mcpscope::ToolListing;

namespace {

QJsonArray toolsOf(const char* json)
{
    return QJsonDocument::fromJson(json).array();
}

} // namespace

/// A tool name listed more than once has no entry that is the truth (RECOVERY.md §2): the first
/// entry must not win, whoever looks the name up.
class TestToolInfo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listingOfAName_data();
    void listingOfAName();
    void everyEntryOfARepeatedNameIsMarked();
    void handBuiltListsAreCountedToo();
};

void TestToolInfo::listingOfAName_data()
{
    QTest::addColumn<QByteArray>("tools");
    QTest::addColumn<bool>("listed");
    QTest::addColumn<bool>("listedMoreThanOnce");
    QTest::addColumn<QJsonValue>("readOnlyHint"); ///< of the entry the listing reports

    QTest::newRow("listed once") << QByteArray(R"([{"name":"t","annotations":{"readOnlyHint":true}}])") << true << false
                                 << QJsonValue(true);
    QTest::newRow("listed twice, first true then false")
        << QByteArray(R"([{"name":"t","annotations":{"readOnlyHint":true}},
                          {"name":"t","annotations":{"readOnlyHint":false}}])")
        << true << true << QJsonValue(true);
    QTest::newRow("listed twice with other tools between")
        << QByteArray(R"([{"name":"t"},{"name":"u"},{"name":"v"},{"name":"t","annotations":{"readOnlyHint":true}}])")
        << true << true << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("listed three times") << QByteArray(R"([{"name":"t"},{"name":"t"},{"name":"t"}])") << true << true
                                        << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("not listed, other names repeated")
        << QByteArray(R"([{"name":"u"},{"name":"u"}])") << false << false << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("names differ only in case: two tools")
        << QByteArray(R"([{"name":"t"},{"name":"T"}])") << true << false << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("empty listing") << QByteArray("[]") << false << false << QJsonValue(QJsonValue::Undefined);
}

void TestToolInfo::listingOfAName()
{
    QFETCH(QByteArray, tools);
    QFETCH(bool, listed);
    QFETCH(bool, listedMoreThanOnce);
    QFETCH(QJsonValue, readOnlyHint);
    const QList<ToolInfo> list = ToolInfo::listFromJson(toolsOf(tools.constData()));
    const ToolListing listing = ToolListing::of(list, QStringLiteral("t"));
    QCOMPARE(listing.listed, listed);
    QCOMPARE(listing.listedMoreThanOnce, listedMoreThanOnce);
    QCOMPARE(listing.annotations.value(QLatin1String("readOnlyHint")), readOnlyHint);
    for (const ToolInfo& tool : list) {
        if (tool.name == QLatin1String("t"))
            QCOMPARE(ToolListing::ofEntry(tool).listedMoreThanOnce, listedMoreThanOnce);
    }
}

void TestToolInfo::everyEntryOfARepeatedNameIsMarked()
{
    const QList<ToolInfo> list
        = ToolInfo::listFromJson(toolsOf(R"([{"name":"a"},{"name":"b"},{"name":"a"},{"name":"c"}])"));
    QCOMPARE(list.size(), 4);
    QCOMPARE(list.at(0).listedMoreThanOnce, true);
    QCOMPARE(list.at(1).listedMoreThanOnce, false);
    QCOMPARE(list.at(2).listedMoreThanOnce, true);
    QCOMPARE(list.at(3).listedMoreThanOnce, false);
}

void TestToolInfo::handBuiltListsAreCountedToo()
{
    // A list never passed through listFromJson (an offline snapshot, a test) has no flags set; the
    // listing still counts the name itself, and markRepeatedNames sets them afterwards.
    QList<ToolInfo> list { ToolInfo::fromJson({ { QStringLiteral("name"), QStringLiteral("t") } }),
        ToolInfo::fromJson({ { QStringLiteral("name"), QStringLiteral("t") } }) };
    QVERIFY(!list.first().listedMoreThanOnce);
    QVERIFY(ToolListing::of(list, QStringLiteral("t")).listedMoreThanOnce);
    ToolInfo::markRepeatedNames(list);
    QVERIFY(list.first().listedMoreThanOnce);
    QVERIFY(list.last().listedMoreThanOnce);
    list.removeLast();
    ToolInfo::markRepeatedNames(list);
    QVERIFY(!list.first().listedMoreThanOnce);
}

QTEST_GUILESS_MAIN(TestToolInfo)
#include "tst_toolinfo.moc"
