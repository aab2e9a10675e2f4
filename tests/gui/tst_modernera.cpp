// The 2026-07-28 revision in the app (issue 16), against the real SDK v2 modern ledger peer over stdio
// (tests/peers/modern-ledger-peer.mjs) and server-everything: a server in `auto` era is probed to modern,
// the servers list and the Overview say so (sessionless, the server/discover result), ping and
// logging/setLevel are not offered, the tool with an invalid x-mcp-header annotation is shown excluded and
// cannot be called, and confirm-write's MRTR elicitation round is answered in the elicitation panel: the
// call completes, the server's own ledger has exactly one write, and the timeline lists the round. The era
// found is written into the workspace file (knownEra) without saving edits that were not saved. A legacy
// server in auto keeps its legacy view (initialize, ping). The server dialog's era combo round-trips.

#include "calllog/callrecord.h"
#include "calls/timelineview.h"
#include "composer/callcomposer.h"
#include "composer/schemaform.h"
#include "config/workspace.h"
#include "dialogs/serverdialog.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "guiconnect.h"
#include "guienvironment.h"
#include "ledger.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/serveractions.h"
#include "mainwindow/serveroverview.h"
#include "mainwindow/serversdock.h"
#include "mainwindow/trafficdock.h"
#include "mainwindow/workspacesession.h"
#include "models/callsmodel.h"
#include "models/serverlistmodeldefs.h"
#include "models/toolsmodeldefs.h"
#include "peerprocess.h"
#include "requests/elicitationeditor.h"
#include "requests/serverrequestsdock.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>
#include <optional>

using namespace mcpscope;

namespace {

const QString ModernServer = QStringLiteral("modern-ledger");
const QString Legacy = QStringLiteral("everything");

QJsonObject modernPeer(const QString& ledger)
{
    return { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("era"), QStringLiteral("auto") }, { QStringLiteral("command"), test::nodeBinary() },
        { QStringLiteral("args"),
            QJsonArray { QString(test::peersDir() + QStringLiteral("/modern-ledger-peer.mjs")), QStringLiteral("stdio"),
                ledger } } };
}

QJsonObject everythingPeer()
{
    return { { QStringLiteral("transport"), QStringLiteral("stdio") },
        { QStringLiteral("era"), QStringLiteral("auto") }, { QStringLiteral("command"), test::nodeBinary() },
        { QStringLiteral("args"), QJsonArray { test::everythingScript(), QStringLiteral("stdio") } } };
}

QJsonObject serverInFile(const QString& path, const QString& name)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QLatin1String("servers"))
        .toObject()
        .value(name)
        .toObject();
}

} // namespace

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestModernEra : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void autoConnectsModernAndAnswersMrtrInPanel();
    void detectedEraIsWrittenToTheWorkspace();
    void legacyServerInAutoKeepsItsSession();
    void serverDialogEraRoundTrips();

private:
    /// Opens a workspace of these servers, selects name and connects it; the connection once it listed its tools.
    ServerConnection* connectServer(const QString& name, const QJsonObject& servers);
    /// The servers list's cell of server name in column.
    QModelIndex serverCell(const QString& name, int column) const;
    int toolRow(const QString& name) const;

    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QTemporaryDir> m_scratch;
    QString m_workspacePath;
};

void TestModernEra::initTestCase()
{
    QVERIFY(test::scratchConfigDir().isValid());
    test::useScratchSettings(QStringLiteral("tst_modernera"));
    QVERIFY2(QFile::exists(test::peersDir() + QStringLiteral("/modern-ledger-peer.mjs")), qPrintable(test::peersDir()));
}

void TestModernEra::init()
{
    m_scratch = std::make_unique<QTemporaryDir>();
    QVERIFY(m_scratch->isValid());
    m_window = std::make_unique<MainWindow>();
    m_workspacePath = m_scratch->filePath(QStringLiteral("workspace.json"));
}

void TestModernEra::cleanup()
{
    m_window.reset();
    m_scratch.reset();
}

ServerConnection* TestModernEra::connectServer(const QString& name, const QJsonObject& servers)
{
    QFile file(m_workspacePath);
    if (!file.open(QIODevice::WriteOnly))
        return nullptr;
    file.write(QJsonDocument(
        QJsonObject { { QStringLiteral("mcpscopeWorkspace"), 1 }, { QStringLiteral("servers"), servers } })
                   .toJson());
    file.close();
    if (!m_window->openWorkspace(m_workspacePath))
        return nullptr;
    m_window->resize(1440, 900);
    m_window->show();
    ServerConnection* c = test::selectAndConnect(m_window.get(), name);
    QCoreApplication::processEvents();
    return c;
}

QModelIndex TestModernEra::serverCell(const QString& name, int column) const
{
    const QAbstractItemModel* model = m_window->findChild<ServersDock*>()->view()->model();
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, column);
        if (index.data(ServerListModelRole::NameRole).toString() == name)
            return index;
    }
    return {};
}

int TestModernEra::toolRow(const QString& name) const
{
    const QAbstractItemModel* tools = m_window->toolsView()->model();
    for (int row = 0; row < tools->rowCount(); ++row) {
        if (tools->index(row, 0).data(ToolsModelRole::ToolNameRole).toString() == name)
            return row;
    }
    return -1;
}

void TestModernEra::autoConnectsModernAndAnswersMrtrInPanel()
{
    const QString ledger = m_scratch->filePath(QStringLiteral("ledger.jsonl"));
    ServerConnection* c = connectServer(ModernServer, { { ModernServer, modernPeer(ledger) } });
    QVERIFY(c);
    QVERIFY(c->session()->isModern());
    // The servers list: the era in its own column and on the name's second line.
    QCOMPARE(
        serverCell(ModernServer, ServerListModelColumn::Era).data().toString(), QStringLiteral("modern · sessionless"));
    // The Overview: sessionless, and what server/discover said.
    const QString overview = m_window->overview()->text();
    for (const char* expected : { "sessionless", "2026-07-28", "modern-ledger-peer", "supported versions 2026-07-28",
             "ttlMs 0", "cacheScope private", "McpScope modern ledger peer", "tools (listChanged)" })
        QVERIFY2(overview.contains(QLatin1String(expected)),
            qPrintable(QString::fromLatin1(expected) + QStringLiteral(" in ") + overview));
    // No ping and no logging/setLevel for a modern server, and each says why.
    QAction* ping = m_window->serverActions()->pingServer();
    QVERIFY(!ping->isEnabled());
    QVERIFY2(ping->toolTip().contains(QLatin1String("has no ping")), qPrintable(ping->toolTip()));
    QAction* setLevel = m_window->trafficDock()->setLevelAction();
    QVERIFY(!setLevel->isEnabled());
    QVERIFY2(setLevel->toolTip().contains(QLatin1String("no logging/setLevel")), qPrintable(setLevel->toolTip()));

    // bad-header-tool is listed by the server but excluded by McpScope: struck through, "excluded", not callable.
    const int bad = toolRow(QStringLiteral("bad-header-tool"));
    QVERIFY(bad >= 0);
    const QAbstractItemModel* tools = m_window->toolsView()->model();
    const QModelIndex badName = tools->index(bad, ToolsModelColumn::Name);
    QVERIFY(!badName.data(ToolsModelRole::ExcludedReasonRole).toString().isEmpty());
    QVERIFY(badName.data(Qt::FontRole).value<QFont>().strikeOut());
    QCOMPARE(tools->index(bad, ToolsModelColumn::OnExpiry).data().toString(), QStringLiteral("excluded"));
    QVERIFY2(badName.data(Qt::ToolTipRole).toString().contains(QLatin1String("x-mcp-header")),
        qPrintable(badName.data(Qt::ToolTipRole).toString()));
    m_window->selectTool(QStringLiteral("bad-header-tool"));
    auto* call = m_window->composer()->findChild<QPushButton*>(QStringLiteral("composer.call"));
    QVERIFY(call);
    QVERIFY(!call->isEnabled());
    QVERIFY(!m_window->composer()->findChild<QWidget*>(QStringLiteral("composer.excluded"))->isHidden());
    const int callsBefore = m_window->callsModel()->rowCount();
    m_window->callSelectedTool();
    QCOMPARE(m_window->callsModel()->rowCount(), callsBefore); // nothing was sent

    // confirm-write through the composer; its MRTR elicitation answered in the panel.
    m_window->selectTool(QStringLiteral("confirm-write"));
    QVERIFY(call->isEnabled());
    auto* note = m_window->composer()->form()->findChild<QLineEdit*>(QStringLiteral("args.note"));
    QVERIFY(note);
    note->setText(QStringLiteral("from the panel"));
    std::optional<CallRecord> finished;
    connect(m_window->engine(), &Engine::callUpdated, this, [&finished](const CallRecord& record) {
        if (record.tool == QLatin1String("confirm-write") && record.isFinished())
            finished = record;
    });
    m_window->callSelectedTool();
    ServerRequestsDock* dock = m_window->serverRequestsDock();
    ElicitationEditor* editor = nullptr;
    QVERIFY(QTest::qWaitFor(
        [&] {
            editor = qobject_cast<ElicitationEditor*>(dock->currentEditor());
            return editor != nullptr;
        },
        20000));
    QVERIFY(dock->isVisible());
    auto* confirm = editor->form()->findChild<QCheckBox*>(QStringLiteral("args.confirm"));
    QVERIFY(confirm);
    confirm->setChecked(true);
    auto* accept = editor->findChild<QPushButton*>(QStringLiteral("elicitationAccept"));
    QVERIFY(accept && accept->isEnabled());
    QTest::mouseClick(accept, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.has_value(), 20000);
    QCOMPARE(finished->outcome, CallOutcome::Success);
    // Rounds are not retries: one attempt.
    QCOMPARE(finished->attempts.size(), 1);
    // The server ran the write exactly once, in round 2, with the requestState it gave in round 1.
    const test::Ledger book { ledger };
    QCOMPARE(book.runsOf(QStringLiteral("confirm-write")), 1);
    QList<int> rounds;
    for (const QJsonObject& line : book.events(QStringLiteral("round")))
        rounds.append(line.value(QLatin1String("round")).toInt());
    QCOMPARE(rounds, (QList<int> { 1, 2 }));
    // The timeline lists the round: asked, then answered.
    m_window->selectCall(finished->callId);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->timeline()->plainTimeline().contains(QLatin1String("round 1 answered")), 5000);
    const QString timeline = m_window->timeline()->plainTimeline();
    QVERIFY2(timeline.contains(QLatin1String("round 1: the server asks for input")), qPrintable(timeline));
}

void TestModernEra::detectedEraIsWrittenToTheWorkspace()
{
    const QString ledger = m_scratch->filePath(QStringLiteral("ledger.jsonl"));
    // The workspace has an edit not saved yet when the probe decides: it must stay unsaved.
    const QJsonObject servers { { ModernServer, modernPeer(ledger) } };
    QFile file(m_workspacePath);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(
        QJsonObject { { QStringLiteral("mcpscopeWorkspace"), 1 }, { QStringLiteral("servers"), servers } })
                   .toJson());
    file.close();
    QVERIFY(m_window->openWorkspace(m_workspacePath));
    QVERIFY(!serverInFile(m_workspacePath, ModernServer).contains(QLatin1String("knownEra")));
    QCOMPARE(serverCell(ModernServer, ServerListModelColumn::Era).data().toString(), QStringLiteral("auto"));
    ServerConfig extra = test::everythingStdioConfig(QStringLiteral("not-saved-yet"));
    m_window->session()->addServer(extra);
    QVERIFY(m_window->session()->isModified());

    ServerConnection* c = m_window->engine()->connection(ModernServer);
    c->connectToServer();
    QTRY_VERIFY_WITH_TIMEOUT(c->state() == ServerConnection::State::Ready, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(serverInFile(m_workspacePath, ModernServer).value(QLatin1String("knownEra")).toString(),
        QStringLiteral("modern"), 5000);
    // Only that field: the era choice stays auto (the default, so the file has no "era" at all), the unsaved
    // server is not in the file, the window still modified.
    QVERIFY(!serverInFile(m_workspacePath, ModernServer).contains(QLatin1String("era")));
    QCOMPARE(m_window->session()->workspace().find(ModernServer)->era, ProtocolEra::Auto);
    QVERIFY(serverInFile(m_workspacePath, QStringLiteral("not-saved-yet")).isEmpty());
    QVERIFY(m_window->session()->isModified());
    QCOMPARE(m_window->session()->workspace().find(ModernServer)->knownEra, std::optional(ProtocolEra::Modern));

    // The next start reads it back: the servers list's tooltip says what the last probe found.
    ConfigError error;
    const std::optional<Workspace> reread = Workspace::load(m_workspacePath, &error);
    QVERIFY2(reread, qPrintable(error.toString()));
    QCOMPARE(reread->find(ModernServer)->knownEra, std::optional(ProtocolEra::Modern));
    auto second = std::make_unique<MainWindow>();
    QVERIFY(second->openWorkspace(m_workspacePath));
    QCOMPARE(second->engine()->connection(ModernServer)->config().knownEra, std::optional(ProtocolEra::Modern));
}

void TestModernEra::legacyServerInAutoKeepsItsSession()
{
    ServerConnection* c = connectServer(Legacy, { { Legacy, everythingPeer() } });
    QVERIFY(c);
    QVERIFY(!c->session()->isModern());
    QCOMPARE(c->session()->details().era, ProtocolEra::Legacy);
    QVERIFY(serverCell(Legacy, ServerListModelColumn::Era).data().toString().startsWith(QLatin1String("legacy")));
    const QString overview = m_window->overview()->text();
    QVERIFY2(!overview.contains(QLatin1String("sessionless")), qPrintable(overview));
    QVERIFY2(overview.contains(QLatin1String("Session:")), qPrintable(overview));
    QVERIFY2(overview.contains(QLatin1String("-32601")), qPrintable(overview)); // why auto chose legacy
    QVERIFY(m_window->serverActions()->pingServer()->isEnabled());
    QVERIFY(m_window->trafficDock()->setLevelAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(serverInFile(m_workspacePath, Legacy).value(QLatin1String("knownEra")).toString(),
        QStringLiteral("legacy"), 5000);
}

void TestModernEra::serverDialogEraRoundTrips()
{
    ServerDialog dialog({});
    auto* era = dialog.findChild<QComboBox*>(QStringLiteral("era"));
    QVERIFY(era);
    QCOMPARE(era->count(), 3);
    for (int i = 0; i < era->count(); ++i)
        QVERIFY(!era->itemData(i, Qt::ToolTipRole).toString().isEmpty());
    ServerConfig config = test::everythingStdioConfig(QStringLiteral("probe-me"));
    config.era = ProtocolEra::Auto;
    config.knownEra = ProtocolEra::Modern;
    dialog.setConfig(config);
    QCOMPARE(ProtocolEra(era->currentData().toInt()), ProtocolEra::Auto);
    QVERIFY(era->toolTip().contains(QLatin1String("server/discover")));
    // OK without an edit keeps what the probe found (the workspace stays unmodified).
    QVERIFY(dialog.config() == config);
    era->setCurrentIndex(era->findData(int(ProtocolEra::Legacy)));
    QCOMPARE(dialog.config().era, ProtocolEra::Legacy);
    QVERIFY(!dialog.config().knownEra);
    QVERIFY(era->toolTip().contains(QLatin1String("2025-11-25")));
    // Auto again but another command: the old finding no longer describes the server.
    era->setCurrentIndex(era->findData(int(ProtocolEra::Auto)));
    QCOMPARE(dialog.config().knownEra, std::optional(ProtocolEra::Modern));
    dialog.findChild<QLineEdit*>(QStringLiteral("command"))->setText(QStringLiteral("/usr/bin/other-server"));
    QVERIFY(!dialog.config().knownEra);
    // Saved in the workspace form.
    ServerConfig modern = config;
    modern.era = ProtocolEra::Modern;
    modern.knownEra.reset();
    dialog.setConfig(modern);
    QCOMPARE(dialog.config().toJson().value(QLatin1String("era")).toString(), QStringLiteral("modern"));
}

QTEST_MAIN(TestModernEra)
#include "tst_modernera.moc"
