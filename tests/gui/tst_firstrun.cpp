#include "config/workspace.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "guienvironment.h"
#include "mainwindow/emptystate.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/theme.h"
#include "mainwindow/workspacesession.h"
#include "modalanswer.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <functional>
#include <memory>

using mcpscope::EmptyState;
using mcpscope::MainWindow;
using mcpscope::ServerConfig;
using mcpscope::test::answerNextModal;
using mcpscope::test::pressOnNextMessageBox;

namespace {

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

[[maybe_unused]] static const bool s_environment = mcpscope::test::useScratchGuiEnvironment();

// What a new user meets: the empty state, the prompt before quitting with unsaved servers, a save
// that keeps ${workspaceFolder}, and docks that come back from the View menu.
class TestFirstRun : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void emptyStateUntilAServerExists();
    void emptyStateImportsAndAddsServers();
    void quittingWithUnsavedChangesAsks();
    void saveKeepsWorkspaceFolder();
    void closedDocksComeBackFromViewMenu();
    void darkThemeDimsDisabledWidgets();

private:
    /// A copy of the demo workspace in the scratch folder's resources/; its path.
    QString copyDemo() const;

    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    std::unique_ptr<QTemporaryDir> m_scratch;
};

void TestFirstRun::initTestCase()
{
    QVERIFY(mcpscope::test::scratchConfigDir().isValid());
    mcpscope::test::useScratchSettings(QStringLiteral("tst_firstrun"));
}

void TestFirstRun::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    m_window = std::make_unique<MainWindow>();
    auto* servers = m_window->findChild<QTreeView*>(QStringLiteral("serversView"));
    QVERIFY(servers);
    m_tester = std::make_unique<QAbstractItemModelTester>(
        servers->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestFirstRun::cleanup()
{
    m_tester.reset();
    m_window.reset();
    m_scratch.reset();
}

QString TestFirstRun::copyDemo() const
{
    QDir(m_scratch->path()).mkpath(QStringLiteral("resources"));
    const QString path = m_scratch->filePath(QStringLiteral("resources/demo-workspace.json"));
    if (!QFile::copy(QStringLiteral(MCPSCOPE_SOURCE_DIR "/resources/demo-workspace.json"), path))
        return {};
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    return path;
}

void TestFirstRun::emptyStateUntilAServerExists()
{
    EmptyState* empty = m_window->emptyState();
    QVERIFY(empty);
    QVERIFY(empty->isShowingEmptyPage());
    QVERIFY(empty->addServerButton()->isVisible());
    QVERIFY(empty->importButton()->isVisible());
    QVERIFY(empty->demoButton()->isVisible());
    QCOMPARE(empty->addServerButton()->text(), QStringLiteral("Add server…"));
    QVERIFY(!m_window->centreTabs()->isVisible());

    // The demo workspace is found from the build directory, and opens from the button.
    const QString demo = EmptyState::demoWorkspacePath();
    QVERIFY2(!demo.isEmpty(), "the demo workspace is not found");
    QCOMPARE(QFileInfo(demo).fileName(), QStringLiteral("demo-workspace.json"));
    QVERIFY(empty->demoButton()->isEnabled());
    QTest::mouseClick(empty->demoButton(), Qt::LeftButton);
    QVERIFY(m_window->engine()->connection(QStringLiteral("everything-stdio")));
    QVERIFY(m_window->engine()->connection(QStringLiteral("everything-http")));
    QVERIFY(!empty->isShowingEmptyPage());
    QVERIFY(m_window->centreTabs()->isVisible());
    QCOMPARE(m_window->session()->workspace().filePath, demo);
    QVERIFY(!m_window->session()->isModified());

    // Removing the last server brings the page back.
    m_window->session()->removeServer(QStringLiteral("everything-stdio"));
    QVERIFY(!empty->isShowingEmptyPage());
    m_window->session()->removeServer(QStringLiteral("everything-http"));
    QVERIFY(empty->isShowingEmptyPage());
}

void TestFirstRun::emptyStateImportsAndAddsServers()
{
    EmptyState* empty = m_window->emptyState();
    // Add server… opens the New Server dialog.
    bool dialogShown = false;
    QString dialogTitle;
    answerNextModal(
        [&dialogTitle](QWidget* modal) {
            dialogTitle = modal->windowTitle();
            if (auto* dialog = qobject_cast<QDialog*>(modal))
                dialog->reject();
        },
        &dialogShown);
    QTest::mouseClick(empty->addServerButton(), Qt::LeftButton);
    QVERIFY(dialogShown);
    QVERIFY2(dialogTitle.contains(QStringLiteral("Server")), qPrintable(dialogTitle));
    QVERIFY(empty->isShowingEmptyPage());

    // Import… takes the file the user picks, here a registry server.json.
    const QString file = QStringLiteral(MCPSCOPE_SOURCE_DIR "/tests/unit/data/config/registry-api-response.json");
    empty->setFileChooser([file](QWidget*) { return file; });
    QTest::mouseClick(empty->importButton(), Qt::LeftButton);
    QVERIFY(m_window->engine()->connection(QStringLiteral("notes")));
    QVERIFY(!empty->isShowingEmptyPage());
    QVERIFY(m_window->session()->isModified());
    QVERIFY(m_window->isWindowModified());
    // The prompt would come on close; the test does not close this window.
}

void TestFirstRun::quittingWithUnsavedChangesAsks()
{
    const QString path = copyDemo();
    QVERIFY(!path.isEmpty());
    QVERIFY(m_window->openWorkspace(path));
    QVERIFY(!m_window->session()->isModified());
    QVERIFY(!m_window->isWindowModified());

    // The server dialog's OK without an edit changes nothing.
    const ServerConfig same = m_window->engine()->connection(QStringLiteral("everything-http"))->config();
    m_window->session()->changeServer(same.name, same);
    QVERIFY(!m_window->session()->isModified());

    ServerConfig extra;
    extra.name = QStringLiteral("added");
    extra.command = QStringLiteral("node");
    m_window->session()->addServer(extra);
    QVERIFY(m_window->session()->isModified());
    QVERIFY(m_window->isWindowModified());

    // Cancel keeps the window open and the change.
    bool asked = false;
    QString question;
    pressOnNextMessageBox(QMessageBox::Cancel, &asked, &question);
    QVERIFY(!m_window->close());
    QVERIFY(asked);
    QVERIFY2(question.contains(QStringLiteral("demo-workspace.json")), qPrintable(question));
    QVERIFY(m_window->isVisible());
    QVERIFY(m_window->session()->isModified());
    QVERIFY(!readAll(path).contains("\"added\""));

    // Save writes the workspace file, then the window closes.
    pressOnNextMessageBox(QMessageBox::Save, &asked);
    QVERIFY(m_window->close());
    QVERIFY(asked);
    QVERIFY(!m_window->isVisible());
    QVERIFY(!m_window->session()->isModified());
    QVERIFY2(readAll(path).contains("\"added\""), readAll(path).constData());

    // Closing without changes asks nothing (a message box would stay unanswered: no timer is set).
    m_window->show();
    QVERIFY(m_window->close());

    // Discard closes without writing.
    m_window->show();
    m_window->session()->removeServer(QStringLiteral("added"));
    QVERIFY(m_window->session()->isModified());
    pressOnNextMessageBox(QMessageBox::Discard, &asked);
    QVERIFY(m_window->close());
    QVERIFY(asked);
    QVERIFY(readAll(path).contains("\"added\""));
}

void TestFirstRun::saveKeepsWorkspaceFolder()
{
    const QString path = copyDemo();
    QVERIFY(!path.isEmpty());
    const QByteArray original = readAll(path);
    QVERIFY(original.contains("${workspaceFolder}"));
    QVERIFY(m_window->openWorkspace(path));
    const QString folder = QFileInfo(path).absolutePath();
    mcpscope::ServerConnection* c = m_window->engine()->connection(QStringLiteral("everything-stdio"));
    QVERIFY(c);
    QVERIFY2(c->config().command.startsWith(folder), qPrintable(c->config().command));
    const QList<ServerConfig> loaded = m_window->session()->workspace().servers;

    // Edited (renamed, a policy changed) as the server dialog does, then saved.
    ServerConfig edited = c->config();
    edited.name = QStringLiteral("everything-renamed");
    edited.requestTimeoutMs = 7000;
    m_window->session()->changeServer(QStringLiteral("everything-stdio"), edited);
    QVERIFY(m_window->session()->isModified());
    QVERIFY(m_window->saveWorkspace());
    QVERIFY(!m_window->session()->isModified());

    const QByteArray saved = readAll(path);
    QVERIFY2(saved.contains("\"${workspaceFolder}/../tests/peers/node_modules/node/bin/node\""), saved.constData());
    QVERIFY2(
        saved.contains("${workspaceFolder}/../tests/peers/node_modules/@modelcontextprotocol/"), saved.constData());
    QVERIFY2(!saved.contains(folder.toUtf8()), saved.constData());
    QVERIFY(saved.contains("\"everything-renamed\""));

    // Round trip: loading the saved file gives the servers the window had.
    mcpscope::ConfigError error;
    const std::optional<mcpscope::Workspace> again = mcpscope::Workspace::load(path, &error);
    QVERIFY2(again, qPrintable(error.toString()));
    QCOMPARE(again->servers.size(), loaded.size());
    const ServerConfig* renamed = again->find(u"everything-renamed");
    QVERIFY(renamed);
    QVERIFY(*renamed == edited);
    const ServerConfig* http = again->find(u"everything-http");
    QVERIFY(http);
    QVERIFY(*http == m_window->engine()->connection(QStringLiteral("everything-http"))->config());

    // Renamed back and saved again: the servers are as the original file wrote them (an explicit
    // default "transport": "stdio" aside: saving leaves defaults out).
    for (const ServerConfig& server : loaded) {
        if (server.name == QLatin1String("everything-stdio"))
            m_window->session()->changeServer(QStringLiteral("everything-renamed"), server);
    }
    QVERIFY(m_window->saveWorkspace());
    const auto serversOf = [](const QByteArray& json) {
        return QJsonDocument::fromJson(json).object().value(QLatin1String("servers")).toObject();
    };
    QJsonObject expected = serversOf(original);
    QJsonObject stdioServer = expected.value(QLatin1String("everything-stdio")).toObject();
    QCOMPARE(stdioServer.take(QLatin1String("transport")).toString(), QStringLiteral("stdio"));
    expected.insert(QLatin1String("everything-stdio"), stdioServer);
    QCOMPARE(serversOf(readAll(path)), expected);
}

void TestFirstRun::closedDocksComeBackFromViewMenu()
{
    QMenu* docks = m_window->menuBar()->findChild<QMenu*>(QStringLiteral("docksMenu"));
    QVERIFY(docks);
    const QList<QDockWidget*> all = m_window->findChildren<QDockWidget*>();
    QVERIFY(all.size() >= 3);
    for (QDockWidget* dock : all) {
        dock->close();
        QVERIFY(!dock->isVisible());
        Q_EMIT docks->aboutToShow();
        QAction* toggle = nullptr;
        for (QAction* action : docks->actions()) {
            if (action == dock->toggleViewAction())
                toggle = action;
        }
        QVERIFY2(toggle, qPrintable(dock->windowTitle()));
        QVERIFY(!toggle->isChecked());
        toggle->trigger();
        QTRY_VERIFY2(dock->isVisible(), qPrintable(dock->windowTitle()));
    }
    QMenu* toolbars = m_window->menuBar()->findChild<QMenu*>(QStringLiteral("toolbarsMenu"));
    QVERIFY(toolbars);
    Q_EMIT toolbars->aboutToShow();
    QVERIFY(!toolbars->actions().isEmpty());
}

void TestFirstRun::darkThemeDimsDisabledWidgets()
{
    mcpscope::applyTheme(mcpscope::Theme::Dark);
    const QPalette dark = QApplication::palette();
    mcpscope::applyTheme(mcpscope::Theme::System);
    // A disabled button's text and face differ from an enabled one's, and its text is dimmer.
    for (const QPalette::ColorRole role : { QPalette::ButtonText, QPalette::WindowText, QPalette::Text }) {
        const QColor active = dark.color(QPalette::Active, role);
        const QColor disabled = dark.color(QPalette::Disabled, role);
        QVERIFY2(disabled.lightness() < active.lightness() - 60,
            qPrintable(QStringLiteral("role %1: %2 vs %3").arg(int(role)).arg(disabled.name(), active.name())));
    }
    QVERIFY(dark.color(QPalette::Disabled, QPalette::Button) != dark.color(QPalette::Active, QPalette::Button));
}

QTEST_MAIN(TestFirstRun)
#include "tst_firstrun.moc"
