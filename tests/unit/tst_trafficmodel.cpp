// TrafficModel: 10,000 messages through the coalesced insert path, the ring limit with its dropped
// counter, and the cheap method extraction.

#include "engine/engine.h"
#include "models/trafficfilter.h"
#include "models/trafficmodel.h"

#include <QAbstractItemModelTester>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;

namespace {

using Tester = QAbstractItemModelTester;

QByteArray request(int id, const char* method)
{
    return QByteArray(R"({"jsonrpc":"2.0","id":)") + QByteArray::number(id) + R"(,"method":")" + method
        + R"(","params":{}})";
}

QByteArray response(int id)
{
    return QByteArray(R"({"result":{"content":[]},"jsonrpc":"2.0","id":)") + QByteArray::number(id) + "}";
}

/// Every insert must start at the old row count and end at the new one minus one; every removal of
/// dropped rows must start at row 0.
class RangeChecker
{
public:
    explicit RangeChecker(QAbstractItemModel* model)
    {
        QObject::connect(model, &QAbstractItemModel::rowsAboutToBeInserted, model,
            [this, model](const QModelIndex&, int first, int last) {
                ++inserts;
                expectedCount = model->rowCount() + (last - first + 1);
                if (first != model->rowCount())
                    errors.append(QStringLiteral("insert starts at %1 with %2 rows").arg(first).arg(model->rowCount()));
            });
        QObject::connect(
            model, &QAbstractItemModel::rowsInserted, model, [this, model](const QModelIndex&, int, int last) {
                if (last != model->rowCount() - 1 || model->rowCount() != expectedCount)
                    errors.append(QStringLiteral("insert ends at %1 with %2 rows").arg(last).arg(model->rowCount()));
            });
        QObject::connect(
            model, &QAbstractItemModel::rowsAboutToBeRemoved, model, [this](const QModelIndex&, int first, int last) {
                ++removals;
                removed += last - first + 1;
                if (first != 0)
                    errors.append(QStringLiteral("removal starts at %1, not at the oldest row").arg(first));
            });
    }

    QStringList errors;
    int inserts = 0;
    int removals = 0;
    int removed = 0;
    int expectedCount = 0;
};

} // namespace

class TestTrafficModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void streamsBurstsWithOneInsertPerFlush();
    void ringLimitDropsTheOldest();
    void rowsOfABatchOverTheLimitAreCountedNotInserted();
    void byteLimitDropsTheOldest();
    void loweringTheLimitAppliesAtOnce();
    void extractsTheMethod_data();
    void extractsTheMethod();
    void responseNamesTheRequestItAnswers();
    void logActionAndStderrRows();
    void followsEveryConnectionOfTheEngine();
    void logNotificationIsOneRowWithLevelAndText();
    void filtersByTextServerAndLevel();
    void clearResets();
};

void TestTrafficModel::streamsBurstsWithOneInsertPerFlush()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    RangeChecker ranges(&model);
    constexpr int Bursts = 10;
    constexpr int PerBurst = 1000;
    int sent = 0;
    for (int burst = 0; burst < Bursts; ++burst) {
        for (int i = 0; i < PerBurst / 2; ++i, sent += 2) {
            model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(sent, "tools/call"));
            model.addMessage(QStringLiteral("s"), WireDirection::Incoming, response(sent));
        }
        QCOMPARE(model.rowCount(), burst * PerBurst);
        QTRY_COMPARE(model.rowCount(), (burst + 1) * PerBurst);
        QCOMPARE(ranges.inserts, burst + 1);
    }
    QCOMPARE(ranges.errors, QStringList());
    QCOMPARE(ranges.removals, 0);
    QCOMPARE(model.droppedRows(), 0);
    QCOMPARE(model.index(9998, 0).data(TrafficModelRole::RpcIdRole).toLongLong(), 9998);
    QCOMPARE(model.index(9999, 0).data(TrafficModelRole::KindRole).toInt(), int(TrafficMessageKind::Response));
    qDebug("TrafficModel: sizeof(Row) = %d bytes plus the payload", int(sizeof(TrafficModel::Row)));
}

void TestTrafficModel::ringLimitDropsTheOldest()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    RangeChecker ranges(&model);
    QSignalSpy dropped(&model, &TrafficModel::rowsDropped);
    model.setRowLimit(100);
    for (int burst = 0; burst < 5; ++burst) {
        for (int i = 0; i < 60; ++i) {
            const int id = burst * 60 + i;
            model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(id, "ping"));
        }
        QTRY_COMPARE(model.index(model.rowCount() - 1, 0).data(TrafficModelRole::RpcIdRole).toInt(), burst * 60 + 59);
        QCOMPARE(model.rowCount(), std::min(100, (burst + 1) * 60));
    }
    // 300 sent, 100 kept: the newest, in order.
    QCOMPARE(model.droppedRows(), 200);
    QCOMPARE(model.index(0, 0).data(TrafficModelRole::RpcIdRole).toInt(), 200);
    QCOMPARE(model.index(99, 0).data(TrafficModelRole::RpcIdRole).toInt(), 299);
    QCOMPARE(ranges.errors, QStringList());
    QCOMPARE(ranges.removed, 200);
    // One removal per flush that went over (bursts 2..5), announced with the running total.
    QCOMPARE(dropped.size(), 4);
    QCOMPARE(dropped.at(0).at(0).toLongLong(), 20);
    QCOMPARE(dropped.last().at(1).toLongLong(), 200);
}

void TestTrafficModel::rowsOfABatchOverTheLimitAreCountedNotInserted()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    RangeChecker ranges(&model);
    model.setRowLimit(10);
    for (int i = 0; i < 5; ++i)
        model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(i, "ping"));
    model.flush();
    for (int i = 5; i < 40; ++i)
        model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(i, "ping"));
    model.flush();
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(model.droppedRows(), 30);
    // The 5 shown rows were removed; 25 of the batch never became rows.
    QCOMPARE(ranges.removed, 5);
    QCOMPARE(model.index(0, 0).data(TrafficModelRole::RpcIdRole).toInt(), 30);
    QCOMPARE(ranges.errors, QStringList());
}

void TestTrafficModel::byteLimitDropsTheOldest()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const QByteArray big = QByteArray(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"x":")")
        + QByteArray(1000, 'x') + "\"}}";
    const qint64 rowCost = qint64(sizeof(TrafficModel::Row)) + big.size();
    model.setByteLimit(rowCost * 5 + rowCost / 2);
    for (int i = 0; i < 12; ++i)
        model.addMessage(QStringLiteral("s"), WireDirection::Incoming, big);
    QTRY_COMPARE(model.rowCount(), 5);
    QCOMPARE(model.droppedRows(), 7);
    QVERIFY(model.retainedBytes() <= model.byteLimit());
    // A single row larger than the limit is still shown: the newest row is always kept.
    model.setByteLimit(10);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.droppedRows(), 11);
}

void TestTrafficModel::loweringTheLimitAppliesAtOnce()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    for (int i = 0; i < 50; ++i)
        model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(i, "ping"));
    model.flush();
    model.setRowLimit(20);
    QCOMPARE(model.rowCount(), 20);
    QCOMPARE(model.droppedRows(), 30);
    QCOMPARE(model.index(0, 0).data(TrafficModelRole::RpcIdRole).toInt(), 30);
}

void TestTrafficModel::extractsTheMethod_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QVariant>("id");

    QTest::newRow("request") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})")
                             << int(TrafficMessageKind::Request) << QStringLiteral("tools/list") << QVariant(qint64(3));
    QTest::newRow("request with a string id")
        << QByteArray(R"({"jsonrpc":"2.0","id":"a-1","method":"ping"})") << int(TrafficMessageKind::Request)
        << QStringLiteral("ping") << QVariant(QStringLiteral("a-1"));
    QTest::newRow("notification") << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
                                  << int(TrafficMessageKind::Notification)
                                  << QStringLiteral("notifications/initialized") << QVariant();
    QTest::newRow("response, result before id")
        << QByteArray(R"({"result":{"method":"not/this","id":99,"nested":[{"a":"}"}]},"jsonrpc":"2.0","id":7})")
        << int(TrafficMessageKind::Response) << QString() << QVariant(qint64(7));
    QTest::newRow("error response") << QByteArray(
        R"({"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found"}})")
                                    << int(TrafficMessageKind::ErrorResponse) << QString() << QVariant(qint64(8));
    QTest::newRow("whitespace and escapes")
        << QByteArray(" {\n \"params\" : {\"s\":\"a \\\" } b\"} ,\n \"method\" : \"x\\/y\", \"id\" : -4 }\n")
        << int(TrafficMessageKind::Request) << QStringLiteral("x/y") << QVariant(qint64(-4));
    // A quote after an even run of backslashes ends the string; after an odd run it is part of it.
    QTest::newRow("escaped backslash before the closing quote")
        << QByteArray(R"({"params":{"p":"C:\\","q":"\\\"}\\"},"method":"a\\","id":5})")
        << int(TrafficMessageKind::Request) << QStringLiteral("a\\") << QVariant(qint64(5));
    QTest::newRow("a string that never ends")
        << QByteArray(R"({"jsonrpc":"2.0","method":"tools/ca\"})") << int(TrafficMessageKind::Other)
        << QString() << QVariant();
    QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")
                           << int(TrafficMessageKind::Batch) << QString() << QVariant();
    QTest::newRow("not json") << QByteArray("Server started on stdio") << int(TrafficMessageKind::Other) << QString()
                              << QVariant();
    QTest::newRow("truncated") << QByteArray(R"({"jsonrpc":"2.0","method":"tools/ca)") << int(TrafficMessageKind::Other)
                               << QString() << QVariant();
    QTest::newRow("empty") << QByteArray() << int(TrafficMessageKind::Other) << QString() << QVariant();
}

void TestTrafficModel::extractsTheMethod()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, kind);
    QFETCH(QString, method);
    QFETCH(QVariant, id);
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.addMessage(QStringLiteral("s"), WireDirection::Incoming, bytes);
    model.flush();
    QCOMPARE(model.rowCount(), 1);
    const QModelIndex row = model.index(0, 0);
    QCOMPARE(row.data(TrafficModelRole::KindRole).toInt(), kind);
    QCOMPARE(model.index(0, TrafficModelColumn::Method).data().toString(), method);
    QCOMPARE(row.data(TrafficModelRole::RpcIdRole), id);
    QCOMPARE(model.index(0, TrafficModelColumn::Size).data().toLongLong(), bytes.size());
    QCOMPARE(row.data(TrafficModelRole::PayloadRole).toByteArray(), bytes);
    QCOMPARE(model.index(0, TrafficModelColumn::Direction).data().toInt(), int(TrafficDirection::Incoming));
    QCOMPARE(row.data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::NoLevel));
}

void TestTrafficModel::responseNamesTheRequestItAnswers()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.addMessage(QStringLiteral("a"), WireDirection::Outgoing, request(1, "tools/call"));
    model.addMessage(QStringLiteral("b"), WireDirection::Outgoing, request(1, "resources/read"));
    // The server's own request (sampling) and the client's answer travel the other way.
    model.addMessage(QStringLiteral("a"), WireDirection::Incoming, request(1, "sampling/createMessage"));
    model.addMessage(QStringLiteral("a"), WireDirection::Outgoing, response(1));
    model.addMessage(QStringLiteral("b"), WireDirection::Incoming, response(1));
    model.addMessage(QStringLiteral("a"), WireDirection::Incoming, response(1));
    // Answered already: a second response to the same id names nothing.
    model.addMessage(QStringLiteral("a"), WireDirection::Incoming, response(1));
    model.flush();
    const auto method = [&model](int row) { return model.index(row, TrafficModelColumn::Method).data().toString(); };
    QCOMPARE(method(3), QStringLiteral("sampling/createMessage"));
    QCOMPARE(method(4), QStringLiteral("resources/read"));
    QCOMPARE(method(5), QStringLiteral("tools/call"));
    QCOMPARE(method(6), QString());
    QCOMPARE(model.index(6, 0).data(TrafficModelRole::KindRole).toInt(), int(TrafficMessageKind::Response));
}

void TestTrafficModel::logActionAndStderrRows()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.addLogMessage(
        QStringLiteral("s"), QStringLiteral("warning"), QStringLiteral("db"), QJsonValue(QStringLiteral("slow")));
    model.addLogMessage(
        QStringLiteral("s"), QStringLiteral("verbose"), QString(), QJsonObject { { QStringLiteral("n"), 1 } });
    model.addServerLog(QStringLiteral("s"), QStringLiteral("listening on stdio"));
    model.addAction(QStringLiteral("s"), QStringLiteral("action"), QStringLiteral("breaker opened by hand"));
    model.flush();
    QCOMPARE(model.rowCount(), 4);

    const QModelIndex log = model.index(0, 0);
    QCOMPARE(log.data(TrafficModelRole::DirectionRole).toInt(), int(TrafficDirection::Log));
    QCOMPARE(log.data(TrafficModelRole::KindRole).toInt(), int(TrafficMessageKind::Log));
    QCOMPARE(log.data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::Warning));
    QCOMPARE(log.data(TrafficModelRole::MethodRole).toString(), QStringLiteral("db"));
    QCOMPARE(log.data(TrafficModelRole::PayloadRole).toByteArray(),
        QByteArray(R"({"data":"slow","level":"warning","logger":"db"})"));
    QCOMPARE(model.index(1, 0).data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::NoLevel));

    const QModelIndex stderrRow = model.index(2, 0);
    QCOMPARE(stderrRow.data(TrafficModelRole::DirectionRole).toInt(), int(TrafficDirection::Stderr));
    QCOMPARE(stderrRow.data(TrafficModelRole::PayloadRole).toByteArray(), QByteArray("listening on stdio"));
    QCOMPARE(stderrRow.data(TrafficModelRole::MethodRole).toString(), QString());

    const QModelIndex action = model.index(3, 0);
    QCOMPARE(action.data(TrafficModelRole::DirectionRole).toInt(), int(TrafficDirection::Action));
    QCOMPARE(action.data(TrafficModelRole::MethodRole).toString(), QStringLiteral("action"));
    QCOMPARE(action.data(TrafficModelRole::PayloadRole).toByteArray(), QByteArray("breaker opened by hand"));

    QCOMPARE(TrafficModel::logLevelFromName(u"emergency"), TrafficLogLevel::Emergency);
    QCOMPARE(TrafficModel::logLevelFromName(u"DEBUG"), TrafficLogLevel::Debug);
}

void TestTrafficModel::followsEveryConnectionOfTheEngine()
{
    Engine engine;
    ServerConfig config;
    config.transport = TransportKind::Stdio;
    config.command = QStringLiteral("/bin/false");
    config.name = QStringLiteral("before");
    ServerConnection* before = engine.addServer(config);
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.setEngine(&engine);
    config.name = QStringLiteral("after");
    ServerConnection* after = engine.addServer(config);

    Q_EMIT before->traffic(WireDirection::Outgoing, request(1, "ping"));
    Q_EMIT after->serverLog(QStringLiteral("hello"));
    // A log notification arrives as the wire message and, decoded, as logMessage: one row.
    Q_EMIT after->traffic(WireDirection::Incoming,
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"x","data":1}})");
    Q_EMIT after->logMessage(QStringLiteral("error"), QStringLiteral("x"), QJsonValue(1));
    // A manual action both notes itself and emits actionLogged.
    after->openBreaker();
    Q_EMIT after->notice(QStringLiteral("Server 'after' asks for authorization (HTTP 401); authorizing."));
    QTRY_COMPARE(model.rowCount(), 5);
    QCOMPARE(model.index(0, TrafficModelColumn::Server).data().toString(), QStringLiteral("before"));
    QCOMPARE(model.index(1, TrafficModelColumn::Server).data().toString(), QStringLiteral("after"));
    QCOMPARE(model.index(1, TrafficModelColumn::Direction).data().toInt(), int(TrafficDirection::Stderr));
    QCOMPARE(model.index(2, 0).data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::Error));
    QCOMPARE(model.index(2, TrafficModelColumn::Text).data().toString(), QStringLiteral("1"));
    QCOMPARE(model.index(3, TrafficModelColumn::Direction).data().toInt(), int(TrafficDirection::Action));
    // McpScope's own word is not the server's stderr.
    QCOMPARE(model.index(4, TrafficModelColumn::Direction).data().toInt(), int(TrafficDirection::Notice));
    QCOMPARE(model.index(4, TrafficModelColumn::Text).data().toString(),
        QStringLiteral("Server 'after' asks for authorization (HTTP 401); authorizing."));

    model.setEngine(nullptr);
    Q_EMIT before->traffic(WireDirection::Outgoing, request(2, "ping"));
    model.flush();
    QCOMPARE(model.rowCount(), 5);
}

void TestTrafficModel::clearResets()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.setRowLimit(3);
    for (int i = 0; i < 5; ++i)
        model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(i, "ping"));
    model.flush();
    QCOMPARE(model.droppedRows(), 2);
    model.addMessage(QStringLiteral("s"), WireDirection::Outgoing, request(9, "ping"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.droppedRows(), 0);
    QCOMPARE(model.retainedBytes(), 0);
    model.addMessage(QStringLiteral("t"), WireDirection::Incoming, response(0));
    QTRY_COMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, TrafficModelColumn::Server).data().toString(), QStringLiteral("t"));
}

void TestTrafficModel::logNotificationIsOneRowWithLevelAndText()
{
    TrafficModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const QByteArray wire = R"({"jsonrpc":"2.0","method":"notifications/message",)"
                            R"("params":{"level":"warning","logger":"db","data":"slow query\ntook 3 s"}})";
    model.addMessage(QStringLiteral("s"), WireDirection::Incoming, wire);
    model.addMessage(QStringLiteral("s"), WireDirection::Incoming,
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"n":1}}})");
    model.addMessage(QStringLiteral("s"), WireDirection::Incoming, request(1, "ping"));
    model.flush();
    QCOMPARE(model.rowCount(), 3);
    const QModelIndex log = model.index(0, 0);
    QCOMPARE(log.data(TrafficModelRole::DirectionRole).toInt(), int(TrafficDirection::Log));
    QCOMPARE(log.data(TrafficModelRole::KindRole).toInt(), int(TrafficMessageKind::Log));
    QCOMPARE(log.data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::Warning));
    QCOMPARE(log.data(TrafficModelRole::MethodRole).toString(), QStringLiteral("db"));
    // The wire bytes stay the payload; the row shows the data in one line.
    QCOMPARE(log.data(TrafficModelRole::PayloadRole).toByteArray(), wire);
    QCOMPARE(model.index(0, TrafficModelColumn::Text).data().toString(), QStringLiteral("slow query took 3 s"));
    QCOMPARE(model.index(1, TrafficModelColumn::Text).data().toString(), QStringLiteral(R"({"n":1})"));
    QCOMPARE(model.index(1, 0).data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::Info));
    // Other messages show their start.
    QVERIFY(model.index(2, TrafficModelColumn::Text).data().toString().startsWith(QStringLiteral(R"({"jsonrpc")")));
    // An outgoing notifications/message (nothing sends one, but it is no log entry of the server) stays raw.
    model.addMessage(QStringLiteral("s"), WireDirection::Outgoing,
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}})");
    model.flush();
    QCOMPARE(model.index(3, 0).data(TrafficModelRole::DirectionRole).toInt(), int(TrafficDirection::Outgoing));
}

void TestTrafficModel::filtersByTextServerAndLevel()
{
    TrafficModel model;
    TrafficFilter filter;
    filter.setSourceModel(&model);
    Tester tester(&filter, Tester::FailureReportingMode::QtTest);
    model.addMessage(QStringLiteral("alpha"), WireDirection::Outgoing, request(1, "tools/list"));
    model.addMessage(QStringLiteral("beta"), WireDirection::Outgoing, request(1, "resources/read"));
    model.addMessage(QStringLiteral("beta"), WireDirection::Incoming,
        R"({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"Cache MISS"}})");
    model.addServerLog(QStringLiteral("alpha"), QStringLiteral("Listening on STDIO"));
    model.addNotice(QStringLiteral("beta"), QStringLiteral("HTTP server 'beta' offers no server-to-client stream"));
    model.flush();
    QCOMPARE(filter.rowCount(), 5);

    filter.setServer(QStringLiteral("beta"));
    QCOMPARE(filter.rowCount(), 3);
    filter.setText(QStringLiteral("cache miss"));
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.index(0, 0).data(TrafficModelRole::LogLevelRole).toInt(), int(TrafficLogLevel::Debug));
    filter.setMinimumLevel(int(TrafficLogLevel::Info));
    QCOMPARE(filter.rowCount(), 0);
    filter.setMinimumLevel(int(TrafficLogLevel::Debug));

    filter.setServer(QString());
    filter.setText(QStringLiteral("stdio"));
    QCOMPARE(filter.rowCount(), 1);
    QCOMPARE(filter.index(0, 0).data(TrafficModelRole::ServerRole).toString(), QStringLiteral("alpha"));
    // The method and the server's name match too.
    filter.setText(QStringLiteral("TOOLS/"));
    QCOMPARE(filter.rowCount(), 1);
    filter.setText(QStringLiteral("beta"));
    QCOMPARE(filter.rowCount(), 3);
    // Rows arriving later are filtered as they come.
    model.addMessage(QStringLiteral("beta"), WireDirection::Incoming, response(1));
    model.addMessage(QStringLiteral("gamma"), WireDirection::Incoming, response(1));
    model.flush();
    QCOMPARE(filter.rowCount(), 4);
    filter.setText(QString());
    QCOMPARE(filter.rowCount(), 7);
}

QTEST_GUILESS_MAIN(TestTrafficModel)
#include "tst_trafficmodel.moc"
