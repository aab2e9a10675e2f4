// JsonTreeModel (the result view's structuredContent tree) under QAbstractItemModelTester, and the
// tree built off the GUI thread adopted on it.

#include "result/jsontree.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QThreadPool>

using namespace mcpscope;

class TestJsonTree : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shape_data();
    void shape();
    void builtOnAWorker();
};

void TestJsonTree::shape_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("topRows");
    QTest::addColumn<QString>("firstValue");
    QTest::newRow("flat object") << QByteArray(R"({"a":1,"b":"x"})") << 2 << QStringLiteral("1");
    QTest::newRow("nested object and array")
        << QByteArray(R"({"a":{"b":[1,2,{"c":null}]}})") << 1 << QStringLiteral("{1}");
    QTest::newRow("top-level array") << QByteArray(R"([true,false,"s"])") << 3 << QStringLiteral("true");
    QTest::newRow("empty object") << QByteArray("{}") << 0 << QString();
}

void TestJsonTree::shape()
{
    QFETCH(QByteArray, json);
    QFETCH(int, topRows);
    QFETCH(QString, firstValue);
    JsonTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    model.setRoot(buildJsonTree(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array())));
    QCOMPARE(model.rowCount(), topRows);
    if (topRows > 0)
        QCOMPARE(model.index(0, JsonTreeModel::ValueColumn).data().toString(), firstValue);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestJsonTree::builtOnAWorker()
{
    JsonTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QJsonArray big;
    for (int i = 0; i < 20000; ++i)
        big.append(QJsonObject { { QStringLiteral("i"), i }, { QStringLiteral("s"), QString::number(i) } });
    std::unique_ptr<JsonNode> built;
    QThreadPool::globalInstance()->start([&built, big] { built = buildJsonTree(big); });
    QThreadPool::globalInstance()->waitForDone();
    model.setRoot(std::move(built));
    QCOMPARE(model.rowCount(), 20000);
    const QModelIndex last = model.index(19999, 0);
    QCOMPARE(model.rowCount(last), 2);
    QCOMPARE(model.index(0, JsonTreeModel::ValueColumn, last).data().toString(), QStringLiteral("19999"));
    QCOMPARE(model.parent(model.index(0, 0, last)), last.siblingAtColumn(0));
}

QTEST_GUILESS_MAIN(TestJsonTree)
#include "tst_jsontree.moc"
