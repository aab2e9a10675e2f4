// The Tasks tab and the task parts of the Tools tab against the real server-everything: the tools table
// shows execution.taskSupport before a call, the composer's "Run as task" box is locked on for a tool that
// requires it, a call of simulate-research-query becomes a row that the polls take to completed with the
// report in the result views, and the Cancel button ends a second run as cancelled.

#include "composer/callcomposer.h"
#include "composer/schemaform.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/tasktracker.h"
#include "guienvironment.h"
#include "mainwindow/toolspage.h"
#include "models/tasksmodel.h"
#include "models/tasksmodeldefs.h"
#include "models/toolsmodel.h"
#include "models/toolsmodeldefs.h"
#include "peerprocess.h"
#include "presentation/presentation.h"
#include "result/resultview.h"
#include "tasks/taskspage.h"
#include "tasks/taskspresentation.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace mcpscope;

namespace {

constexpr int WaitMs = 30000;
const QString Tool = QStringLiteral("simulate-research-query");

/// The Tools tab and the Tasks tab on one engine, the models under the tester before any data arrives.
struct Rig
{
    Rig()
    {
        connection = engine.addServer(test::everythingStdioConfig());
        ServerConnection* c = connection;
        toolsModel.setConnection(c);
        toolsPresentation.setSourceModel(&toolsModel);
        tools = std::make_unique<ToolsPage>(&engine, &toolsPresentation, [c] { return c; });
        tasks = std::make_unique<TasksPage>(&engine);
        tasksTester = std::make_unique<QAbstractItemModelTester>(
            tasks->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        tasksPresentationTester = std::make_unique<QAbstractItemModelTester>(
            tasks->tasksView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QObject::connect(&engine, &Engine::traffic, [this](const QString&, WireDirection d, const QByteArray& bytes) {
            if (d == WireDirection::Outgoing)
                sent.append(QJsonDocument::fromJson(bytes).object().value(QStringLiteral("method")).toString());
        });
        tasks->resize(1000, 600);
        tasks->show();
    }

    bool connect()
    {
        QSignalSpy ready(connection, &ServerConnection::ready);
        connection->connectToServer();
        tasks->showConnection(connection);
        return ready.wait(WaitMs) && QTest::qWaitFor([this] { return toolsModel.rowOf(Tool) >= 0; }, WaitMs);
    }

    QVariant taskCell(int row, int column, int role = Qt::DisplayRole) const
    {
        return tasks->tasksView()->model()->index(row, column).data(role);
    }

    TaskInfo::Status status(int row) const { return TaskInfo::Status(tasks->model()->task(row).status); }

    static QString rawText(ResultView* view)
    {
        QStringList texts;
        for (const QPlainTextEdit* edit : view->findChildren<QPlainTextEdit*>())
            texts.append(edit->toPlainText());
        return texts.join(QLatin1Char('\n'));
    }

    Engine engine;
    ServerConnection* connection = nullptr;
    ToolsModel toolsModel;
    ToolsPresentation toolsPresentation;
    std::unique_ptr<ToolsPage> tools;
    std::unique_ptr<TasksPage> tasks;
    std::unique_ptr<QAbstractItemModelTester> tasksTester;
    std::unique_ptr<QAbstractItemModelTester> tasksPresentationTester;
    QStringList sent;
};

} // namespace

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestTasksPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void toolsTableAndComposerShowTaskSupport();
    void taskRunsToCompletionAndIsCancelled();
};

void TestTasksPage::initTestCase()
{
    if (!QFile::exists(test::everythingScript()))
        QSKIP("server-everything is not installed (make deps)");
}

void TestTasksPage::toolsTableAndComposerShowTaskSupport()
{
    Rig rig;
    QVERIFY(rig.connect());
    const auto cell = [&rig](const QString& tool) {
        return rig.toolsPresentation.index(rig.toolsModel.rowOf(tool), ToolsModelColumn::TaskSupport).data();
    };
    QCOMPARE(rig.toolsPresentation.headerData(ToolsModelColumn::TaskSupport, Qt::Horizontal).toString(),
        QStringLiteral("Task"));
    QCOMPARE(cell(Tool).toString(), QStringLiteral("required"));
    QCOMPARE(cell(QStringLiteral("echo")).toString(), QStringLiteral("—"));

    QCheckBox* box = rig.tools->composer()->runAsTaskBox();
    QVERIFY(rig.tools->selectTool(Tool));
    QVERIFY(box->isChecked());
    QVERIFY(!box->isEnabled());
    QVERIFY(rig.tools->selectTool(QStringLiteral("echo")));
    QVERIFY(!box->isChecked());
    QVERIFY(!box->isEnabled());
}

void TestTasksPage::taskRunsToCompletionAndIsCancelled()
{
    Rig rig;
    QVERIFY(rig.connect());
    QCOMPARE(rig.tasks->model()->rowCount(), 0);
    QVERIFY(!rig.tasks->cancelButton()->isEnabled());

    // First run: through the composer, as a user would; the required task support makes it a task.
    QVERIFY(rig.tools->selectTool(Tool));
    rig.tools->composer()->form()->setValue({ { QStringLiteral("topic"), QStringLiteral("tide pools") } });
    rig.tools->callSelectedTool();
    QTRY_COMPARE_WITH_TIMEOUT(rig.tasks->model()->rowCount(), 1, WaitMs);
    QCOMPARE(rig.taskCell(0, TasksModelColumn::Tool).toString(), Tool);
    QCOMPARE(rig.taskCell(0, TasksModelColumn::Ttl).toString(), QStringLiteral("5 min"));
    QCOMPARE(rig.taskCell(0, TasksModelColumn::PollInterval).toString(), QStringLiteral("1 s"));
    QCOMPARE(rig.tasks->tasksView()->currentIndex().row(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(rig.status(0), TaskInfo::Status::Completed, WaitMs);
    QCOMPARE(rig.taskCell(0, TasksModelColumn::Status).toString(), QStringLiteral("completed"));
    QTRY_VERIFY_WITH_TIMEOUT(!rig.tasks->model()->task(0).result.isUndefined(), WaitMs);
    QVERIFY(!rig.tasks->cancelButton()->isEnabled());
    // Both result views end on the report: the Tasks tab's and the Tools tab's (the record published again).
    QTRY_VERIFY_WITH_TIMEOUT(Rig::rawText(rig.tasks->resultView()).contains(QStringLiteral("Research Report")), WaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(Rig::rawText(rig.tools->resultView()).contains(QStringLiteral("Research Report")), WaitMs);
    QCOMPARE(rig.sent.count(QStringLiteral("tools/call")), 1);
    QCOMPARE(rig.sent.count(QStringLiteral("tasks/result")), 1);
    QVERIFY(Rig::rawText(rig.tools->resultView()).contains(QStringLiteral("# Research Report: tide pools")));

    // Second run: cancelled from the Tasks tab while it works.
    rig.tools->callSelectedTool();
    QTRY_COMPARE_WITH_TIMEOUT(rig.tasks->model()->rowCount(), 2, WaitMs);
    QCOMPARE(rig.tasks->tasksView()->currentIndex().row(), 1);
    QCOMPARE(rig.status(1), TaskInfo::Status::Working);
    QVERIFY(rig.tasks->cancelButton()->isEnabled());
    QTest::mouseClick(rig.tasks->cancelButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(rig.status(1), TaskInfo::Status::Cancelled, WaitMs);
    QCOMPARE(rig.taskCell(1, TasksModelColumn::Status).toString(), QStringLiteral("cancelled"));
    QVERIFY(!rig.tasks->cancelButton()->isEnabled());
    QCOMPARE(rig.sent.count(QStringLiteral("tools/call")), 2);
    QCOMPARE(rig.sent.count(QStringLiteral("tasks/cancel")), 1);
    QCOMPARE(rig.sent.count(QStringLiteral("tasks/result")), 1);
    // The first task is untouched by the second's cancel.
    QCOMPARE(rig.status(0), TaskInfo::Status::Completed);
}

QTEST_MAIN(TestTasksPage)
#include "tst_taskspage.moc"
