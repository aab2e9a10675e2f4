// TaskTracker against the real @modelcontextprotocol/server-everything over stdio: its
// simulate-research-query tool requires task augmentation (2025-11-25 tasks, experimental).

#include "engine/engine.h"
#include "engine/tasktracker.h"
#include "peerprocess.h"
#include "session/scriptedresponder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace mcpscope;
using namespace mcpscope::test;
using namespace Qt::StringLiterals;

namespace {

// Generous: the server starts on a shared, busy machine. Nothing here waits this long when it works.
constexpr int WaitMs = 60000;
const QString Server = u"everything"_s;
const QString Tool = u"simulate-research-query"_s;

/// An engine on server-everything that counts what went over the wire and what the calls log saw.
struct Rig
{
    Rig()
    {
        engine.setResponder(&responder);
        connection = engine.addServer(test::everythingStdioConfig(Server));
        QObject::connect(&engine, &Engine::traffic, [this](const QString&, WireDirection d, const QByteArray& bytes) {
            if (d != WireDirection::Outgoing)
                return;
            const QString method = QJsonDocument::fromJson(bytes).object().value(u"method"_s).toString();
            if (!method.isEmpty())
                sent.append(method);
        });
        QObject::connect(&engine, &Engine::callUpdated, [this](const CallRecord& r) {
            if (!loggedCalls.contains(r.callId))
                loggedCalls.append(r.callId);
            records.insert(r.callId, r);
        });
    }

    bool connect()
    {
        QSignalSpy ready(connection, &ServerConnection::ready);
        connection->connectToServer();
        return ready.wait(WaitMs);
    }

    /// Calls the tool the way the app does: required task support makes it a task whatever was asked.
    QString callTool(const QJsonObject& arguments)
    {
        const ToolInfo* tool = connection->session()->tool(Tool);
        const bool asTask = tool && tool->callsAsTask(false);
        return engine.call(Server, u"tools/call"_s, TaskTracker::toolCallParams(Tool, arguments, asTask), {}, {});
    }

    int count(const QString& method) const { return int(sent.count(method)); }

    ScriptedResponder responder;
    Engine engine;
    ServerConnection* connection = nullptr;
    QStringList sent;
    QStringList loggedCalls;
    QHash<QString, CallRecord> records;
};

QString textOf(const QJsonValue& result)
{
    QStringList texts;
    for (const QJsonValue& block : result[u"content"_s].toArray())
        texts.append(block[u"text"_s].toString());
    return texts.join(u'\n');
}

QStringList statusNames(const QList<TaskInfo::Status>& history)
{
    QStringList names;
    for (TaskInfo::Status s : history)
        names.append(TaskInfo::statusName(s));
    return names;
}

} // namespace

class TestTaskTracker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void toolInfoReadsTaskSupport_data();
    void toolInfoReadsTaskSupport();
    void researchQueryRunsAsTaskToCompletion();
    void researchQueryTaskIsCancelled();
    void taskLostWithItsServerIsNotCalledAgain();
};

void TestTaskTracker::initTestCase()
{
    if (!QFile::exists(everythingScript()))
        QSKIP("server-everything is not installed (make deps)");
}

void TestTaskTracker::toolInfoReadsTaskSupport_data()
{
    QTest::addColumn<QJsonValue>("execution");
    QTest::addColumn<int>("support");
    QTest::addColumn<bool>("taskWhenAsked");
    QTest::addColumn<bool>("taskWhenNotAsked");
    const auto e = [](const QJsonValue& v) { return QJsonValue(QJsonObject { { u"taskSupport"_s, v } }); };
    QTest::newRow("no execution: forbidden") << QJsonValue() << int(ToolInfo::TaskSupport::Forbidden) << false << false;
    QTest::newRow("forbidden") << e(u"forbidden"_s) << int(ToolInfo::TaskSupport::Forbidden) << false << false;
    QTest::newRow("optional: only when asked")
        << e(u"optional"_s) << int(ToolInfo::TaskSupport::Optional) << true << false;
    QTest::newRow("required: always") << e(u"required"_s) << int(ToolInfo::TaskSupport::Required) << true << true;
    QTest::newRow("unknown value: forbidden")
        << e(u"always"_s) << int(ToolInfo::TaskSupport::Forbidden) << false << false;
}

void TestTaskTracker::toolInfoReadsTaskSupport()
{
    QFETCH(QJsonValue, execution);
    QFETCH(int, support);
    QFETCH(bool, taskWhenAsked);
    QFETCH(bool, taskWhenNotAsked);
    QJsonObject raw { { u"name"_s, u"t"_s } };
    if (!execution.isUndefined() && !execution.isNull())
        raw.insert(u"execution"_s, execution);
    const ToolInfo tool = ToolInfo::fromJson(raw);
    QCOMPARE(int(tool.taskSupport), support);
    QCOMPARE(tool.callsAsTask(true), taskWhenAsked);
    QCOMPARE(tool.callsAsTask(false), taskWhenNotAsked);
}

void TestTaskTracker::researchQueryRunsAsTaskToCompletion()
{
    Rig rig;
    QVERIFY(rig.connect());
    const ToolInfo* tool = rig.connection->session()->tool(Tool);
    QVERIFY(tool);
    QCOMPARE(tool->taskSupport, ToolInfo::TaskSupport::Required);

    QSignalSpy ended(rig.engine.tasks(), &TaskTracker::taskEnded);
    const QString callId = rig.callTool({ { u"topic"_s, u"tide pools"_s } });
    QVERIFY2(ended.wait(WaitMs), qPrintable(rig.sent.join(u", "_s)));

    const auto info = ended.first().at(0).value<TaskInfo>();
    const auto record = ended.first().at(1).value<CallRecord>();
    QCOMPARE(info.status, TaskInfo::Status::Completed);
    QCOMPARE(info.tool, Tool);
    QCOMPARE(info.callId, callId);
    QCOMPARE(info.pollIntervalMs, 1000);
    QCOMPARE(info.ttlMs, 300000);
    QVERIFY(info.createdAt > 0);
    QCOMPARE(statusNames(info.history), (QStringList { u"working"_s, u"completed"_s }));
    QVERIFY2(textOf(info.result).contains(u"# Research Report: tide pools"_s), qPrintable(textOf(info.result)));

    // One call in the log, sent once; its polls are neither calls nor attempts.
    QCOMPARE(rig.count(u"tools/call"_s), 1);
    QVERIFY(rig.count(u"tasks/get"_s) >= 1);
    QCOMPARE(rig.count(u"tasks/result"_s), 1);
    QCOMPARE(record.callId, callId);
    QCOMPARE(record.outcome, CallOutcome::Success);
    QCOMPARE(record.attempts.size(), 1);
    QVERIFY(textOf(record.result).contains(u"Research Report"_s));
    QStringList events;
    for (const CallEvent& e : record.events)
        events.append(e.text);
    QVERIFY2(events.filter(u"Task completed"_s).size() == 1, qPrintable(events.join(u" | "_s)));
    QVERIFY2(events.filter(u"Task working: Gathering sources..."_s).size() == 1, qPrintable(events.join(u" | "_s)));
    QTRY_COMPARE(rig.loggedCalls, QStringList { callId });
    QTRY_COMPARE(rig.records.value(callId).result, record.result);
    QCOMPARE(rig.records.value(callId).outcome, CallOutcome::Success);
}

void TestTaskTracker::researchQueryTaskIsCancelled()
{
    Rig rig;
    QVERIFY(rig.connect());
    TaskTracker* tasks = rig.engine.tasks();
    QSignalSpy changed(tasks, &TaskTracker::taskChanged);
    QSignalSpy ended(tasks, &TaskTracker::taskEnded);
    const QString callId = rig.callTool({ { u"topic"_s, u"tide pools"_s } });
    QVERIFY(changed.wait(WaitMs));
    const auto created = changed.first().at(0).value<TaskInfo>();
    QCOMPARE(created.status, TaskInfo::Status::Working);

    tasks->cancel(Server, created.taskId);
    QVERIFY(ended.wait(WaitMs));
    const auto info = ended.first().at(0).value<TaskInfo>();
    const auto record = ended.first().at(1).value<CallRecord>();
    QCOMPARE(info.status, TaskInfo::Status::Cancelled);
    QCOMPARE(info.history.last(), TaskInfo::Status::Cancelled);
    QVERIFY(!info.history.contains(TaskInfo::Status::Completed));
    QVERIFY(info.result.isUndefined());
    QCOMPARE(record.outcome, CallOutcome::Cancelled);
    QCOMPARE(rig.count(u"tools/call"_s), 1);
    QCOMPARE(rig.count(u"tasks/cancel"_s), 1);
    QCOMPARE(rig.count(u"tasks/result"_s), 0);
    QTRY_COMPARE(rig.loggedCalls, QStringList { callId });

    // The server agrees: tasks/list shows it cancelled, and nothing more is polled once it ended.
    bool listDone = false;
    tasks->list(Server, [&listDone](const CallRecord& r) {
        QCOMPARE(r.outcome, CallOutcome::Success);
        listDone = true;
    });
    QTRY_VERIFY(listDone);
    const auto listedTask = tasks->task(Server, created.taskId);
    QVERIFY(listedTask);
    QCOMPARE(listedTask->status, TaskInfo::Status::Cancelled);
    QCOMPARE(tasks->tasks(Server).size(), 1);
}

void TestTaskTracker::taskLostWithItsServerIsNotCalledAgain()
{
    Rig rig;
    QVERIFY(rig.connect());
    TaskTracker* tasks = rig.engine.tasks();
    QSignalSpy changed(tasks, &TaskTracker::taskChanged);
    QSignalSpy ended(tasks, &TaskTracker::taskEnded);
    const QString callId = rig.callTool({ { u"topic"_s, u"tide pools"_s } });
    QVERIFY(changed.wait(WaitMs));
    const QString taskId = changed.first().at(0).value<TaskInfo>().taskId;

    // The stdio child dies after the task was created: the new one knows nothing of it.
    rig.connection->killTransport();
    QVERIFY(ended.wait(WaitMs));
    const auto info = ended.first().at(0).value<TaskInfo>();
    const auto record = ended.first().at(1).value<CallRecord>();
    QVERIFY(!info.isTerminal());
    QVERIFY2(info.error.contains(taskId) && info.error.contains(u"tasks/get"_s), qPrintable(info.error));
    QCOMPARE(record.error.value(u"task"_s).toString(), info.error);
    // The creating call stands as it ended (the task was created), and it was never sent again.
    QCOMPARE(record.callId, callId);
    QCOMPARE(record.outcome, CallOutcome::Success);
    QCOMPARE(record.attempts.size(), 1);
    QCOMPARE(rig.count(u"tools/call"_s), 1);
    QTRY_COMPARE(rig.loggedCalls, QStringList { callId });
}

QTEST_GUILESS_MAIN(TestTaskTracker)
#include "tst_tasktracker.moc"
