// ServerListModel over a real ServerConnection to @modelcontextprotocol/server-everything on stdio:
// the row follows the connection's state, session and breaker, with dataChanged on that row only.

#include "engine/engine.h"
#include "models/serverlistmodel.h"
#include "peerprocess.h"
#include "recovery/circuitbreaker.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <optional>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {

using Tester = QAbstractItemModelTester;
using Column = ServerListModelColumn::Column;

// Generous: the server starts on a shared, busy machine. Nothing here waits this long when it works.
constexpr int WaitMs = 30000;

ServerConfig everythingConfig(const QString& name)
{
    ServerConfig config;
    config.name = name;
    config.transport = TransportKind::Stdio;
    config.command = nodeBinary();
    config.args = { everythingScript(), QStringLiteral("stdio") };
    config.cwd = peersDir();
    config.requestTimeoutMs = 20000;
    return config;
}

ServerConfig idleConfig(const QString& name)
{
    ServerConfig config;
    config.name = name;
    config.transport = TransportKind::StreamableHttp;
    config.url = QUrl(QStringLiteral("http://127.0.0.1:9/mcp"));
    return config;
}

/// Every dataChanged of the model: its rows and columns, and the State column's value after it.
struct ChangeLog
{
    explicit ChangeLog(QAbstractItemModel* model)
    {
        QObject::connect(model, &QAbstractItemModel::dataChanged, model,
            [this, model](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
                for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                    rows.append(row);
                columns.append({ topLeft.column(), bottomRight.column() });
                if (topLeft.column() <= ServerListModelColumn::State
                    && bottomRight.column() >= ServerListModelColumn::State) {
                    const int state = model->index(topLeft.row(), ServerListModelColumn::State).data().toInt();
                    if (states.isEmpty() || states.last() != state)
                        states.append(state);
                }
            });
    }

    bool covered(int column) const
    {
        return std::any_of(columns.cbegin(), columns.cend(),
            [column](const QPair<int, int>& range) { return range.first <= column && column <= range.second; });
    }

    void clear()
    {
        rows.clear();
        columns.clear();
        states.clear();
    }

    QList<int> rows;
    QList<QPair<int, int>> columns;
    QList<int> states;
};

CallRecord finishedCall(const QString& server, CallOutcome outcome, int attempts)
{
    static int next = 0;
    CallRecord record;
    record.callId = QStringLiteral("call-%1").arg(++next);
    record.server = server;
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("echo");
    record.startedAt = 1;
    record.endedAt = 2;
    record.outcome = outcome;
    for (int i = 0; i < attempts; ++i)
        record.attempts.append(CallAttempt {});
    return record;
}

} // namespace

class TestServerModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void rowFollowsARealConnection();
    void countersAccumulateFinishedCalls();
    void rowsFollowTheEngine();
    void connectAllStartsEachServerOnce();
};

void TestServerModel::initTestCase()
{
    QVERIFY2(QFile::exists(nodeBinary()), qPrintable(nodeBinary()));
    QVERIFY2(QFile::exists(everythingScript()), qPrintable(everythingScript()));
}

void TestServerModel::rowFollowsARealConnection()
{
    Engine engine;
    ServerListModel model(&engine);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    ChangeLog changes(&model);

    engine.addServer(idleConfig(QStringLiteral("idle")));
    ServerConnection* connection = engine.addServer(everythingConfig(QStringLiteral("everything")));
    QCOMPARE(model.rowCount(), 2);
    constexpr int Row = 1;
    const auto cell = [&model](Column column) { return model.index(Row, column).data(); };
    QCOMPARE(cell(ServerListModelColumn::Name).toString(), QStringLiteral("everything"));
    QCOMPARE(cell(ServerListModelColumn::Transport).toInt(), int(TransportKind::Stdio));
    QCOMPARE(cell(ServerListModelColumn::State).toInt(), int(ServerConnection::State::Disconnected));
    QCOMPARE(cell(ServerListModelColumn::SessionId).toString(), QString());
    QCOMPARE(cell(ServerListModelColumn::ProtocolVersion).toString(), QString());
    QCOMPARE(model.index(Row, 0).data(ServerListModelRole::ConnectionRole).value<ServerConnection*>(), connection);
    QCOMPARE(model.connectionAt(Row), connection);
    QCOMPARE(model.index(0, ServerListModelColumn::Transport).data().toInt(), int(TransportKind::StreamableHttp));

    QSignalSpy ready(connection, &ServerConnection::ready);
    connection->connectToServer();
    QVERIFY(ready.wait(WaitMs));

    // Still disconnected when the session is created, then connecting, initializing, ready; nothing
    // ever changed the idle row.
    using State = ServerConnection::State;
    QCOMPARE(changes.states,
        (QList<int> { int(State::Disconnected), int(State::Connecting), int(State::Initializing), int(State::Ready) }));
    QVERIFY(!changes.rows.contains(0));
    QCOMPARE(cell(ServerListModelColumn::State).toInt(), int(ServerConnection::State::Ready));
    QVERIFY(!cell(ServerListModelColumn::SessionId).toString().isEmpty());
    QCOMPARE(cell(ServerListModelColumn::SessionId).toString(), connection->sessionId());
    QVERIFY(
        ClientSession::supportedProtocolVersions().contains(cell(ServerListModelColumn::ProtocolVersion).toString()));
    const QModelIndex index = model.index(Row, 0);
    QVERIFY(!index.data(ServerListModelRole::ServerInfoRole)
                 .toJsonObject()
                 .value(QLatin1String("name"))
                 .toString()
                 .isEmpty());
    QVERIFY(index.data(ServerListModelRole::CapabilitiesRole).toJsonObject().contains(QLatin1String("tools")));
    QCOMPARE(cell(ServerListModelColumn::BreakerState).toInt(), int(CircuitBreaker::State::Closed));
    QCOMPARE(cell(ServerListModelColumn::BreakerCooldownEnd).toLongLong(), 0);

    // A real call finishes: the counters move.
    std::optional<CallRecord> done;
    connection->callTool(QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("hi") } }, {},
        [&done](const CallRecord& record) { done = record; });
    QTRY_VERIFY_WITH_TIMEOUT(done.has_value(), WaitMs);
    QCOMPARE(done->outcome, CallOutcome::Success);
    QCOMPARE(cell(ServerListModelColumn::Calls).toLongLong(), 1);
    QCOMPARE(cell(ServerListModelColumn::Failures).toLongLong(), 0);
    QCOMPARE(cell(ServerListModelColumn::InFlight).toInt(), 0);

    // Opening the breaker by hand changes that row's breaker columns.
    changes.clear();
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    connection->breaker()->forceOpen();
    const qint64 after = QDateTime::currentMSecsSinceEpoch();
    QVERIFY(!changes.rows.isEmpty());
    QVERIFY(!changes.rows.contains(0));
    QVERIFY(changes.covered(ServerListModelColumn::BreakerState));
    QVERIFY(changes.covered(ServerListModelColumn::BreakerCooldownEnd));
    QCOMPARE(cell(ServerListModelColumn::BreakerState).toInt(), int(CircuitBreaker::State::Open));
    QCOMPARE(index.data(ServerListModelRole::BreakerStateRole).toInt(), int(CircuitBreaker::State::Open));
    const qint64 cooldownEnd = cell(ServerListModelColumn::BreakerCooldownEnd).toLongLong();
    const qint64 cooldown = qint64(connection->config().breakerCooldownSec) * 1000;
    QVERIFY2(cooldownEnd >= before + cooldown - 1000 && cooldownEnd <= after + cooldown,
        qPrintable(QStringLiteral("%1 not near %2").arg(cooldownEnd).arg(before + cooldown)));
    // The end is a fixed instant: reading it again gives the same value (a view counts down from it).
    QCOMPARE(cell(ServerListModelColumn::BreakerCooldownEnd).toLongLong(), cooldownEnd);

    // A call now fails fast, and counts as a failure.
    done.reset();
    connection->callTool(QStringLiteral("echo"), { { QStringLiteral("message"), QStringLiteral("hi") } }, {},
        [&done](const CallRecord& record) { done = record; });
    QTRY_VERIFY_WITH_TIMEOUT(done.has_value(), WaitMs);
    QCOMPARE(done->outcome, CallOutcome::BreakerOpen);
    QCOMPARE(cell(ServerListModelColumn::Calls).toLongLong(), 2);
    QCOMPARE(cell(ServerListModelColumn::Failures).toLongLong(), 1);

    changes.clear();
    connection->resetBreaker();
    QVERIFY(changes.covered(ServerListModelColumn::BreakerState));
    QCOMPARE(cell(ServerListModelColumn::BreakerState).toInt(), int(CircuitBreaker::State::Closed));
    QCOMPARE(cell(ServerListModelColumn::BreakerCooldownEnd).toLongLong(), 0);
    QVERIFY(!changes.rows.contains(0));

    QSignalSpy closed(connection, &ServerConnection::closed);
    connection->disconnectFromServer();
    QVERIFY(!closed.isEmpty() || closed.wait(WaitMs));
}

void TestServerModel::countersAccumulateFinishedCalls()
{
    Engine engine;
    ServerListModel model(&engine);
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    ServerConnection* connection = engine.addServer(idleConfig(QStringLiteral("a")));
    engine.addServer(idleConfig(QStringLiteral("b")));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

    CallRecord pending = finishedCall(QStringLiteral("a"), CallOutcome::Pending, 1);
    pending.endedAt = 0;
    Q_EMIT connection->callUpdated(pending);
    // Nothing finished and nothing in flight changed (the engine was not involved): no signal.
    QCOMPARE(changed.size(), 0);
    Q_EMIT connection->callUpdated(finishedCall(QStringLiteral("a"), CallOutcome::Success, 1));
    Q_EMIT connection->callUpdated(finishedCall(QStringLiteral("a"), CallOutcome::Success, 2));
    Q_EMIT connection->callUpdated(finishedCall(QStringLiteral("a"), CallOutcome::OutcomeUncertain, 1));
    Q_EMIT connection->callUpdated(finishedCall(QStringLiteral("a"), CallOutcome::TransportError, 2));
    Q_EMIT connection->callUpdated(finishedCall(QStringLiteral("a"), CallOutcome::Cancelled, 1));
    QCOMPARE(changed.size(), 5);
    for (const QList<QVariant>& arguments : changed) {
        QCOMPARE(arguments.at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(arguments.at(0).value<QModelIndex>().column(), int(ServerListModelColumn::Calls));
        QCOMPARE(arguments.at(1).value<QModelIndex>().column(), int(ServerListModelColumn::InFlight));
    }
    const auto cell = [&model](int row, Column column) { return model.index(row, column).data().toLongLong(); };
    QCOMPARE(cell(0, ServerListModelColumn::Calls), 5);
    QCOMPARE(cell(0, ServerListModelColumn::Failures), 2);
    QCOMPARE(cell(0, ServerListModelColumn::Retries), 2);
    QCOMPARE(cell(0, ServerListModelColumn::Uncertain), 1);
    QCOMPARE(cell(1, ServerListModelColumn::Calls), 0);

    // A strike changes the failure count on that row only.
    changed.clear();
    connection->breaker()->recordFailure(false);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), 0);
    QCOMPARE(cell(0, ServerListModelColumn::ConsecutiveFailures), 1);
}

void TestServerModel::rowsFollowTheEngine()
{
    auto engine = std::make_unique<Engine>();
    engine->addServer(idleConfig(QStringLiteral("first")));
    ServerListModel model(engine.get());
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 1);
    engine->addServer(idleConfig(QStringLiteral("second")));
    engine->addServer(idleConfig(QStringLiteral("third")));
    QCOMPARE(model.rowCount(), 3);

    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    engine->removeServer(QStringLiteral("second"));
    QCOMPARE(removed.size(), 1);
    QCOMPARE(removed.first().at(1).toInt(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, ServerListModelColumn::Name).data().toString(), QStringLiteral("third"));

    // Deleting the engine deletes its connections; their rows go with them.
    engine.reset();
    QCOMPARE(model.rowCount(), 0);
}

void TestServerModel::connectAllStartsEachServerOnce()
{
    // connectAll starts stdio servers a few per event-loop pass. Each server here is a shell that notes
    // its name in a file and then waits (it never answers initialize), so the file says exactly which
    // servers started and how often: every one once, in order, though Connect All came twice while passes
    // were still to run, and one server was removed before its turn may have come.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString started = dir.filePath(QStringLiteral("started"));
    constexpr int Count = 30;
    Engine engine;
    ServerListModel model(&engine);
    for (int i = 0; i < Count; ++i) {
        ServerConfig config;
        config.name = QStringLiteral("s-%1").arg(i, 2, 10, QLatin1Char('0'));
        config.transport = TransportKind::Stdio;
        config.command = QStringLiteral("/bin/sh");
        config.args
            = { QStringLiteral("-c"), QStringLiteral("echo \"$0\" >> \"$1\"; exec sleep 60"), config.name, started };
        config.requestTimeoutMs = 60000;
        engine.addServer(config);
    }
    engine.connectAll();
    engine.connectAll();
    engine.removeServer(QStringLiteral("s-%1").arg(Count - 1));
    const auto lines = [&started] {
        QFile file(started);
        return file.open(QIODevice::ReadOnly)
            ? QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)
            : QStringList();
    };
    QTRY_VERIFY_WITH_TIMEOUT(lines().size() >= Count - 1, WaitMs);
    for (int i = 0; i < Count - 1; ++i) {
        const QString name = QStringLiteral("s-%1").arg(i, 2, 10, QLatin1Char('0'));
        QCOMPARE(lines().count(name), 1);
        const ServerConnection::State state = engine.connection(name)->state();
        QVERIFY2(state == ServerConnection::State::Connecting || state == ServerConnection::State::Initializing,
            qPrintable(name + QLatin1Char(' ') + ServerConnection::stateName(state)));
    }
    QVERIFY(lines().count(QStringLiteral("s-%1").arg(Count - 1)) <= 1);
    QCOMPARE(model.rowCount(), Count - 1);
}

QTEST_GUILESS_MAIN(TestServerModel)
#include "tst_servermodel.moc"
