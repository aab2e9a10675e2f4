// mcpscope-cli and 2025-11-25 tasks against the real server-everything over stdio: its
// simulate-research-query requires task augmentation, so call runs it as a task (with or without --task),
// waits for the result and prints each status change with --progress; an ambiguous query goes through
// input_required, whose elicitation is answered by --elicit; tasks get|cancel name the server's answer.

#include "clirun.h"

#include <QJsonArray>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

/// The statuses of --json --progress's stderr lines, in order, each once per change.
QStringList statusesIn(const QByteArray& err)
{
    QStringList statuses;
    for (const QByteArray& line : err.split('\n')) {
        const QJsonObject object = QJsonDocument::fromJson(line).object();
        const QString status = object.value(u"status"_s).toString();
        if (!status.isEmpty() && (statuses.isEmpty() || statuses.last() != status))
            statuses.append(status);
    }
    return statuses;
}

QString resultText(const QJsonObject& out)
{
    QStringList texts;
    for (const QJsonValue& block : out.value(u"result"_s)[u"content"_s].toArray())
        texts.append(block[u"text"_s].toString());
    return texts.join(u'\n');
}

} // namespace

class TestCliTasks : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requiredTaskToolRunsAsTaskToCompletion_data();
    void requiredTaskToolRunsAsTaskToCompletion();
    void inputRequiredIsAnsweredThroughTheElicitationResponder();
    void tasksGetOfAnUnknownTaskNamesTheServersError();
    void taskOptionIsOnlyForCall();
};

void TestCliTasks::requiredTaskToolRunsAsTaskToCompletion_data()
{
    QTest::addColumn<bool>("taskOption");
    QTest::newRow("with --task") << true;
    QTest::newRow("without --task: required support makes it a task") << false;
}

void TestCliTasks::requiredTaskToolRunsAsTaskToCompletion()
{
    QFETCH(bool, taskOption);
    QStringList args { u"--stdio"_s, everythingStdioCommand(), u"--json"_s, u"--progress"_s, u"call"_s,
        u"simulate-research-query"_s, uR"({"topic":"tide pools"})"_s };
    if (taskOption)
        args.append(u"--task"_s);
    const CliRun run = runCli(args);
    QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
    const QList<QJsonObject> objects = run.objects();
    QCOMPARE(objects.size(), 1);
    const QJsonObject out = objects.first();
    QCOMPARE(out.value(u"outcome"_s).toString(), u"success"_s);
    QCOMPARE(out.value(u"taskStatus"_s).toString(), u"completed"_s);
    QCOMPARE(out.value(u"attempts"_s).toInt(), 1);
    QVERIFY(!out.value(u"taskId"_s).toString().isEmpty());
    QVERIFY2(resultText(out).startsWith(u"# Research Report: tide pools"_s), run.report().constData());
    QCOMPARE(statusesIn(run.err), (QStringList { u"working"_s, u"completed"_s }));
    QVERIFY2(run.err.contains(R"("statusMessage":"Gathering sources...")"), run.report().constData());
}

void TestCliTasks::inputRequiredIsAnsweredThroughTheElicitationResponder()
{
    const CliRun run = runCli({ u"--stdio"_s, everythingStdioCommand(), u"--json"_s, u"--progress"_s, u"--elicit"_s,
        u"accept"_s, u"--elicit-content"_s, uR"({"interpretation":"historical"})"_s, u"call"_s,
        u"simulate-research-query"_s, uR"({"topic":"tide pools","ambiguous":true})"_s, u"--task"_s });
    QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
    const QJsonObject out = run.objects().value(0);
    QCOMPARE(out.value(u"taskStatus"_s).toString(), u"completed"_s);
    QVERIFY2(resultText(out).contains(u"- **Clarification**: historical"_s), run.report().constData());
    QCOMPARE(statusesIn(run.err), (QStringList { u"working"_s, u"input_required"_s, u"working"_s, u"completed"_s }));
}

void TestCliTasks::tasksGetOfAnUnknownTaskNamesTheServersError()
{
    for (const QString& sub : { u"get"_s, u"cancel"_s }) {
        const CliRun run = runCli({ u"--stdio"_s, everythingStdioCommand(), u"tasks"_s, sub, u"no-such-task"_s });
        QVERIFY2(run.finished && run.exitCode == 4, run.report().constData());
        QVERIFY2(run.err.contains(QByteArray("answered tasks/" + sub.toUtf8() + " with error -32602")),
            run.report().constData());
    }
}

void TestCliTasks::taskOptionIsOnlyForCall()
{
    const CliRun run = runCli({ u"--stdio"_s, everythingStdioCommand(), u"tasks"_s, u"list"_s, u"--task"_s });
    QVERIFY2(run.finished && run.exitCode == 2, run.report().constData());
    QVERIFY2(run.err.contains("--task is for the call command"), run.report().constData());
    const CliRun listed = runCli({ u"--stdio"_s, everythingStdioCommand(), u"--json"_s, u"tasks"_s, u"list"_s });
    QVERIFY2(listed.finished && listed.exitCode == 0, listed.report().constData());
    QCOMPARE(listed.objects().value(0).value(u"result"_s)[u"tasks"_s].toArray().size(), 0);
}

QTEST_GUILESS_MAIN(TestCliTasks)
#include "tst_clitasks.moc"
