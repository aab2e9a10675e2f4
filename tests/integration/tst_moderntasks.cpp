// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks, SEP-2663) against the SDK v2 modern
// ledger peer, over stdio and Streamable HTTP: the engine declares the extension on every request, the server
// decides to hand back a task, and TaskTracker follows it with tasks/get (result inline, no tasks/result),
// answers its inputRequests once through the responder and sends them with tasks/update, and cancels with
// tasks/cancel. The ledger counts what the SERVER ran.

#include "engine/engine.h"
#include "engine/tasktracker.h"
#include "ledger.h"
#include "peerprocess.h"
#include "session/scriptedresponder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace mcpscope;
using namespace mcpscope::test;
using namespace Qt::StringLiterals;

namespace {

constexpr int WaitMs = 40000;
const QString Server = u"modern-ledger"_s;

/// A person at the panel: answers as the script says, but only after a while, so several polls see the
/// same outstanding inputRequests before the answer goes out (the case deduplication is for).
class SlowResponder final : public ClientResponder
{
public:
    ScriptedResponder script;
    int asked = 0;
    QJsonObject capabilities() const override { return script.capabilities(); }
    void respond(const JsonRpcMessage& request, Reply reply) override
    {
        ++asked;
        QTimer::singleShot(
            600, [this, request, reply = std::move(reply)]() mutable { script.respond(request, std::move(reply)); });
    }
};

struct Rig
{
    QTemporaryDir dir;
    Ledger ledger;
    PeerProcess peer;
    SlowResponder responder;
    Engine engine;
    ServerConnection* connection = nullptr;
    QStringList sent; ///< every request method that went over the wire

    bool start(const QString& transport)
    {
        ledger.path = dir.filePath(u"ledger.jsonl"_s);
        ServerConfig config;
        config.name = Server;
        config.era = ProtocolEra::Auto;
        config.requestTimeoutMs = 20000;
        const QString script = peersDir() + u"/modern-ledger-peer.mjs"_s;
        if (transport == QLatin1String("http")) {
            const quint16 port = freePort();
            if (!peer.start(script, { u"http"_s, QString::number(port), ledger.path }, u"listening"_s))
                return false;
            config.transport = TransportKind::StreamableHttp;
            config.url = QUrl(u"http://127.0.0.1:%1/mcp"_s.arg(port));
        } else {
            config.transport = TransportKind::Stdio;
            config.command = nodeBinary();
            config.args = { script, u"stdio"_s, ledger.path };
            config.cwd = peersDir();
        }
        engine.setResponder(&responder);
        connection = engine.addServer(config);
        QObject::connect(&engine, &Engine::traffic, [this](const QString&, WireDirection d, const QByteArray& bytes) {
            const QString method = QJsonDocument::fromJson(bytes).object().value(u"method"_s).toString();
            if (d == WireDirection::Outgoing && !method.isEmpty())
                sent.append(method);
        });
        QSignalSpy ready(connection, &ServerConnection::ready);
        connection->connectToServer();
        return ready.wait(WaitMs) && connection->session()->isModern();
    }

    /// Calls tool as the app does and waits for the task it created to end; the creating call's final record.
    std::optional<CallRecord> runTask(const QString& tool, const QJsonObject& arguments, TaskInfo* ended = nullptr,
        const std::function<void(const QString& taskId)>& whileRunning = {})
    {
        std::optional<CallRecord> final;
        QObject::connect(engine.tasks(), &TaskTracker::taskEnded, engine.tasks(),
            [&final, ended](const TaskInfo& task, const CallRecord& record) {
                final = record;
                if (ended)
                    *ended = task;
            });
        std::optional<CallRecord> created;
        engine.call(Server, u"tools/call"_s, TaskTracker::toolCallParams(tool, arguments, false), {},
            [&created](const CallRecord& record) { created = record; });
        if (!QTest::qWaitFor([&created] { return created.has_value(); }, WaitMs))
            return std::nullopt;
        if (whileRunning) {
            const QString taskId = created->result.toObject().value(u"taskId"_s).toString();
            whileRunning(taskId);
        }
        (void)QTest::qWaitFor([&final] { return final.has_value(); }, WaitMs);
        return final;
    }
};

QString textOf(const QJsonValue& result)
{
    QStringList texts;
    for (const QJsonValue& block : result[u"content"_s].toArray())
        texts.append(block[u"text"_s].toString());
    return texts.join(u'\n');
}

} // namespace

class TestModernTasks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(nodeBinary()), "the pinned Node 22 is missing: npm ci in tests/peers");
    }

    void transports_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::newRow("stdio") << u"stdio"_s;
        QTest::newRow("http") << u"http"_s;
    }

    // A write the server chose to run as a task: one tools/call, then polls until the result comes inline.
    void taskHandleIsFollowedToItsResult_data() { transports_data(); }
    void taskHandleIsFollowedToItsResult()
    {
        QFETCH(QString, transport);
        Rig rig;
        QVERIFY2(rig.start(transport), rig.peer.output().constData());
        TaskInfo task;
        const std::optional<CallRecord> record = rig.runTask(u"task-write"_s, { { u"note"_s, u"t"_s } }, &task);
        QVERIFY(record);
        QCOMPARE(outcomeName(record->outcome), u"success"_s);
        QCOMPARE(textOf(record->result), u"1"_s);
        QVERIFY(task.modern);
        QCOMPARE(task.status, TaskInfo::Status::Completed);
        QCOMPARE(task.pollIntervalMs, 100);
        QCOMPARE(task.ttlMs, 60000);
        QCOMPARE(rig.ledger.runsOf(u"task-write"_s), 1);
        QCOMPARE(rig.sent.count(u"tools/call"_s), 1);
        QVERIFY(rig.sent.count(u"tasks/get"_s) >= 1);
        // The extension has neither tasks/result nor tasks/list.
        QCOMPARE(rig.sent.count(u"tasks/result"_s), 0);
        QCOMPARE(rig.sent.count(u"tasks/list"_s), 0);
        QCOMPARE(record->attempts.size(), 1);
    }

    // input_required: the task's inputRequests go to the responder once, however many polls repeat them, and
    // the answer goes back with one tasks/update; the write runs once, only when confirmed.
    void inputRequestsAreAnsweredOnceWithTasksUpdate_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<QString>("action");
        QTest::addColumn<bool>("confirm");
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("runs");
        QTest::newRow("stdio, confirmed") << u"stdio"_s << u"accept"_s << true << u"1"_s << 1;
        QTest::newRow("http, confirmed") << u"http"_s << u"accept"_s << true << u"1"_s << 1;
        QTest::newRow("http, declined") << u"http"_s << u"decline"_s << false << u"not confirmed"_s << 0;
    }
    void inputRequestsAreAnsweredOnceWithTasksUpdate()
    {
        QFETCH(QString, transport);
        QFETCH(QString, action);
        QFETCH(bool, confirm);
        QFETCH(QString, text);
        QFETCH(int, runs);
        Rig rig;
        QJsonObject elicitation { { u"action"_s, action } };
        if (action == QLatin1String("accept"))
            elicitation.insert(u"content"_s, QJsonObject { { u"confirm"_s, confirm } });
        rig.responder.script.setScript({ { u"elicitation"_s, elicitation } });
        QVERIFY2(rig.start(transport), rig.peer.output().constData());
        TaskInfo task;
        const std::optional<CallRecord> record = rig.runTask(u"task-confirm"_s, { { u"note"_s, u"c"_s } }, &task);
        QVERIFY(record);
        QCOMPARE(outcomeName(record->outcome), u"success"_s);
        QCOMPARE(textOf(record->result), text);
        QVERIFY(task.history.contains(TaskInfo::Status::InputRequired));
        // Polled every 100 ms while the answer took 600 ms: asked once all the same.
        QVERIFY(rig.sent.count(u"tasks/get"_s) >= 3);
        QCOMPARE(rig.responder.asked, 1);
        QCOMPARE(rig.responder.script.requestsAnswered(), 1);
        const QList<QJsonObject> updates = rig.ledger.events(u"task-update"_s);
        QCOMPARE(updates.size(), 1);
        QCOMPARE(updates.first().value(u"keys"_s).toArray(), QJsonArray { u"confirm"_s });
        QCOMPARE(rig.ledger.runsOf(u"task-confirm"_s), runs);
        // The request and the answer are on the call's timeline.
        QStringList taskEvents;
        for (const CallEvent& event : record->events)
            if (event.kind == QLatin1String("task"))
                taskEvents.append(event.text);
        QVERIFY2(taskEvents.join(u'|').contains(u"Task asks for input: confirm (elicitation/create)"_s),
            qPrintable(taskEvents.join(u'|')));
        QVERIFY2(taskEvents.join(u'|').contains(u"tasks/update sent the answer to confirm"_s),
            qPrintable(taskEvents.join(u'|')));
    }

    // A failed task carries its JSON-RPC error inline; the creating call ends with it.
    void failedTaskEndsWithItsError()
    {
        Rig rig;
        QVERIFY2(rig.start(u"http"_s), rig.peer.output().constData());
        TaskInfo task;
        const std::optional<CallRecord> record = rig.runTask(u"task-fail"_s, {}, &task);
        QVERIFY(record);
        QCOMPARE(task.status, TaskInfo::Status::Failed);
        QCOMPARE(outcomeName(record->outcome), u"protocol_error"_s);
        QCOMPARE(record->error.value(u"code"_s).toInt(), -32603);
        QCOMPARE(record->error.value(u"message"_s).toString(), u"the job crashed"_s);
    }

    // tasks/cancel ends a slow task cancelled; it never ran to its write.
    void cancelledTaskNeverRan()
    {
        Rig rig;
        QVERIFY2(rig.start(u"stdio"_s), rig.peer.output().constData());
        TaskInfo task;
        const std::optional<CallRecord> record
            = rig.runTask(u"task-slow"_s, { { u"ms"_s, 60000 } }, &task, [&rig](const QString& taskId) {
                  QVERIFY(!taskId.isEmpty());
                  rig.engine.tasks()->cancel(Server, taskId);
              });
        QVERIFY(record);
        QCOMPARE(task.status, TaskInfo::Status::Cancelled);
        QCOMPARE(outcomeName(record->outcome), u"cancelled"_s);
        QCOMPARE(rig.ledger.events(u"task-cancel"_s).size(), 1);
        QCOMPARE(rig.ledger.runsOf(u"task-slow"_s), 0);
    }

    // There is no tasks/list in the extension: the tracker says so and sends nothing.
    void noListingInTheExtension()
    {
        Rig rig;
        QVERIFY2(rig.start(u"http"_s), rig.peer.output().constData());
        std::optional<CallRecord> listed;
        rig.engine.tasks()->list(Server, [&listed](const CallRecord& record) { listed = record; });
        QVERIFY(listed);
        QCOMPARE(listed->outcome, CallOutcome::NotDispatched);
        QVERIFY2(listed->error.value(u"message"_s).toString().contains(u"no tasks/list"_s),
            qPrintable(listed->error.value(u"message"_s).toString()));
        QCOMPARE(rig.sent.count(u"tasks/list"_s), 0);
    }
};

QTEST_GUILESS_MAIN(TestModernTasks)
#include "tst_moderntasks.moc"
