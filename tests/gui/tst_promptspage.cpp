#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "models/promptsmodel.h"
#include "peerprocess.h"
#include "prompts/promptspage.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QJsonArray>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;

[[maybe_unused]] static const bool s_environment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return true;
}();

class TestPromptsPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void argsPromptAndCompletablePromptAgainstEverything();
};

void TestPromptsPage::argsPromptAndCompletablePromptAgainstEverything()
{
    Engine engine;
    ServerConfig config;
    config.name = QStringLiteral("everything");
    config.command = test::nodeBinary();
    config.args = QStringList { test::everythingScript(), QStringLiteral("stdio") };
    ServerConnection* c = engine.addServer(config);
    PromptsPage page(&engine, [c] { return c; });
    QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy listed(&page, &PromptsPage::promptsListed);
    // The page lists when it is on screen.
    page.show();
    page.showConnection(c);
    c->connectToServer();
    QVERIFY(listed.wait(30000));
    QVERIFY(page.model()->rowOf(QStringLiteral("args-prompt")) >= 0);

    QVERIFY(page.selectPrompt(QStringLiteral("args-prompt")));
    QVERIFY(page.argumentField(QStringLiteral("city")));
    page.argumentField(QStringLiteral("city"))->setText(QStringLiteral("Paris"));
    QSignalSpy rendered(&page, &PromptsPage::promptRendered);
    page.getPrompt();
    QVERIFY(rendered.wait(20000));
    QCOMPARE(page.renderedText(), QStringLiteral("user: What's weather in Paris?"));

    QVERIFY(page.selectPrompt(QStringLiteral("completable-prompt")));
    QSignalSpy completions(&page, &PromptsPage::completionsShown);
    page.argumentField(QStringLiteral("department"))->setText(QStringLiteral("E"));
    page.requestCompletion(QStringLiteral("department"));
    QVERIFY(completions.wait(20000));
    QCOMPARE(completions.last().at(1).toStringList(), QStringList { QStringLiteral("Engineering") });
    page.argumentField(QStringLiteral("department"))->setText(QStringLiteral("Engineering"));
    page.argumentField(QStringLiteral("name"))->setText(QString());
    page.requestCompletion(QStringLiteral("name"));
    QVERIFY(completions.wait(20000));
    QCOMPARE(completions.last().at(1).toStringList(),
        (QStringList { QStringLiteral("Alice"), QStringLiteral("Bob"), QStringLiteral("Charlie") }));
    page.argumentField(QStringLiteral("name"))->setText(QStringLiteral("Bob"));
    page.getPrompt();
    QVERIFY(rendered.wait(20000));
    QCOMPARE(page.renderedText(), QStringLiteral("user: Please promote Bob to the head of the Engineering team."));
}

QTEST_MAIN(TestPromptsPage)
#include "tst_promptspage.moc"
