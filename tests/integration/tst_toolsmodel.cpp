// ToolsModel over real servers on stdio: @modelcontextprotocol/server-everything (every tool
// annotated) and the SDK ledger peer (whose "write" tool has no annotations at all).

#include "engine/serverconnection.h"
#include "models/toolsmodel.h"
#include "peerprocess.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {

using Tester = QAbstractItemModelTester;
using Column = ToolsModelColumn::Column;

// Generous: the server starts on a shared, busy machine. Nothing here waits this long when it works.
constexpr int WaitMs = 30000;

ServerConfig everythingConfig(bool idempotentReplay = false)
{
    ServerConfig config;
    config.name = QStringLiteral("everything");
    config.transport = TransportKind::Stdio;
    config.command = nodeBinary();
    config.args = { everythingScript(), QStringLiteral("stdio") };
    config.cwd = peersDir();
    config.idempotentReplay = idempotentReplay;
    return config;
}

/// A connection with a ToolsModel (under the tester) attached before it connects.
struct Rig
{
    explicit Rig(const ServerConfig& config)
        : connection(std::make_unique<ServerConnection>(config))
    {
        model.setConnection(connection.get());
    }

    bool connect()
    {
        QSignalSpy ready(connection.get(), &ServerConnection::ready);
        connection->connectToServer();
        return ready.wait(WaitMs);
    }

    QVariant cell(const QString& tool, Column column, int role = Qt::DisplayRole) const
    {
        return model.index(model.rowOf(tool), column).data(role);
    }

    ExpiryBehaviour expiry(const QString& tool) const
    {
        return ExpiryBehaviour(cell(tool, ToolsModelColumn::OnExpiry).toInt());
    }

    std::unique_ptr<ServerConnection> connection;
    ToolsModel model;
    Tester tester { &model, Tester::FailureReportingMode::QtTest };
};

ToolInfo toolWithAnnotations(const QString& name, const QJsonObject& annotations)
{
    return ToolInfo::fromJson({ { QStringLiteral("name"), name },
        { QStringLiteral("inputSchema"), QJsonObject { { QStringLiteral("type"), QStringLiteral("object") } } },
        { QStringLiteral("annotations"), annotations } });
}

} // namespace

class TestToolsModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void listsTheToolsOfTheSession();
    void idempotentReplayChangesOnExpiry();
    void toolWithoutAnnotations();
    void relistsWhenTheSessionIsReplaced();
    void hintAsSent_data();
    void hintAsSent();
    void sameNamesUpdateInPlace();
    void nameListedTwiceIsWriteCapable_data();
    void nameListedTwiceIsWriteCapable();
    void sessionListingANameTwice();
};

void TestToolsModel::initTestCase()
{
    QVERIFY2(QFile::exists(nodeBinary()), qPrintable(nodeBinary()));
    QVERIFY2(QFile::exists(everythingScript()), qPrintable(everythingScript()));
}

void TestToolsModel::listsTheToolsOfTheSession()
{
    Rig rig(everythingConfig());
    QCOMPARE(rig.model.rowCount(), 0);
    QVERIFY(rig.connect());
    const QList<ToolInfo>& tools = rig.connection->session()->tools();
    QVERIFY2(tools.size() >= 13, qPrintable(QString::number(tools.size())));
    QCOMPARE(rig.model.rowCount(), int(tools.size()));
    for (int row = 0; row < tools.size(); ++row)
        QCOMPARE(rig.model.index(row, ToolsModelColumn::Name).data().toString(), tools.at(row).name);

    const QString echo = QStringLiteral("echo");
    QVERIFY(rig.model.rowOf(echo) >= 0);
    QCOMPARE(rig.cell(echo, ToolsModelColumn::ReadOnlyHint), QVariant(true));
    QCOMPARE(rig.cell(echo, ToolsModelColumn::ReadOnlyHint, ToolsModelRole::IsExplicitRole), QVariant(true));
    QCOMPARE(rig.cell(echo, ToolsModelColumn::ReadOnlyHint, ToolsModelRole::EffectiveRole), QVariant(true));
    QCOMPARE(rig.cell(echo, ToolsModelColumn::DestructiveHint), QVariant(false));
    QCOMPARE(rig.cell(echo, ToolsModelColumn::DestructiveHint, ToolsModelRole::EffectiveRole), QVariant(false));
    QCOMPARE(rig.cell(echo, ToolsModelColumn::OpenWorldHint), QVariant(false));
    QCOMPARE(rig.expiry(echo), ExpiryBehaviour::RetryOnce);
    const QJsonObject raw = rig.cell(echo, ToolsModelColumn::Name, ToolsModelRole::ToolRole).toJsonObject();
    QCOMPARE(raw.value(QLatin1String("name")).toString(), echo);
    QVERIFY(raw.value(QLatin1String("inputSchema")).toObject().contains(QLatin1String("properties")));
    QVERIFY(!rig.cell(echo, ToolsModelColumn::Name, ToolsModelRole::DescriptionRole).toString().isEmpty());
    // Not a hint column: neither explicit nor effective.
    QVERIFY(!rig.cell(echo, ToolsModelColumn::Name, ToolsModelRole::IsExplicitRole).isValid());

    // readOnlyHint: false, said explicitly: a write.
    const QString research = QStringLiteral("simulate-research-query");
    QCOMPARE(rig.cell(research, ToolsModelColumn::ReadOnlyHint), QVariant(false));
    QCOMPARE(rig.cell(research, ToolsModelColumn::ReadOnlyHint, ToolsModelRole::IsExplicitRole), QVariant(true));
    QCOMPARE(rig.expiry(research), ExpiryBehaviour::NoReplayUncertain);
    // idempotentHint: true is not enough while the policy is off.
    const QString gzip = QStringLiteral("gzip-file-as-resource");
    QCOMPARE(rig.cell(gzip, ToolsModelColumn::IdempotentHint), QVariant(true));
    QCOMPARE(rig.expiry(gzip), ExpiryBehaviour::NoReplayUncertain);
    QCOMPARE(rig.cell(gzip, ToolsModelColumn::Name, ToolsModelRole::IdempotentReplayRole), QVariant(false));
}

void TestToolsModel::idempotentReplayChangesOnExpiry()
{
    Rig rig(everythingConfig(true));
    QVERIFY(rig.connect());
    QCOMPARE(rig.expiry(QStringLiteral("gzip-file-as-resource")), ExpiryBehaviour::RetryOnce);
    QCOMPARE(rig.expiry(QStringLiteral("simulate-research-query")), ExpiryBehaviour::NoReplayUncertain);
    QCOMPARE(rig.expiry(QStringLiteral("echo")), ExpiryBehaviour::RetryOnce);
    QCOMPARE(
        rig.cell(QStringLiteral("echo"), ToolsModelColumn::Name, ToolsModelRole::IdempotentReplayRole), QVariant(true));
}

void TestToolsModel::toolWithoutAnnotations()
{
    QTemporaryDir dir;
    ServerConfig config;
    config.name = QStringLiteral("ledger");
    config.transport = TransportKind::Stdio;
    config.command = nodeBinary();
    config.args = { peersDir() + QStringLiteral("/ledger-peer.mjs"), QStringLiteral("stdio"),
        dir.filePath(QStringLiteral("ledger.jsonl")) };
    config.cwd = peersDir();
    Rig rig(config);
    QVERIFY(rig.connect());
    const QString write = QStringLiteral("write");
    QVERIFY(rig.model.rowOf(write) >= 0);
    QVERIFY(rig.connection->session()->tool(write)->annotations.isEmpty());
    const QList<QPair<Column, bool>> defaults { { ToolsModelColumn::ReadOnlyHint, false },
        { ToolsModelColumn::DestructiveHint, true }, { ToolsModelColumn::IdempotentHint, false },
        { ToolsModelColumn::OpenWorldHint, true } };
    for (const auto& [column, effective] : defaults) {
        QVERIFY(!rig.cell(write, column).isValid());
        QCOMPARE(rig.cell(write, column, ToolsModelRole::IsExplicitRole), QVariant(false));
        QCOMPARE(rig.cell(write, column, ToolsModelRole::EffectiveRole), QVariant(effective));
    }
    QCOMPARE(rig.expiry(write), ExpiryBehaviour::NoReplayUncertain);
    QCOMPARE(rig.expiry(QStringLiteral("read")), ExpiryBehaviour::RetryOnce);
    // Only readOnlyHint was sent for "read": the others are still the defaults.
    QCOMPARE(rig.cell(QStringLiteral("read"), ToolsModelColumn::DestructiveHint, ToolsModelRole::IsExplicitRole),
        QVariant(false));
}

void TestToolsModel::relistsWhenTheSessionIsReplaced()
{
    Rig rig(everythingConfig());
    QVERIFY(rig.connect());
    const int count = rig.model.rowCount();
    const QString oldSession = rig.connection->sessionId();
    QSignalSpy reset(&rig.model, &QAbstractItemModel::modelReset);
    QSignalSpy created(rig.connection.get(), &ServerConnection::sessionCreated);
    rig.connection->reconnectNow();
    QTRY_COMPARE_WITH_TIMEOUT(created.size(), 1, WaitMs);
    // The new session has listed nothing yet...
    QCOMPARE(rig.model.rowCount(), 0);
    // ... until its tools/list completes.
    QTRY_COMPARE_WITH_TIMEOUT(rig.model.rowCount(), count, WaitMs);
    QCOMPARE(reset.size(), 2);
    QVERIFY(rig.connection->sessionId() != oldSession);
    QCOMPARE(rig.expiry(QStringLiteral("echo")), ExpiryBehaviour::RetryOnce);
}

void TestToolsModel::hintAsSent_data()
{
    QTest::addColumn<QJsonObject>("annotations");
    QTest::addColumn<int>("column");
    QTest::addColumn<QVariant>("raw");
    QTest::addColumn<bool>("isExplicit");
    QTest::addColumn<bool>("effective");
    QTest::addColumn<int>("expiry");

    const int retry = int(ExpiryBehaviour::RetryOnce);
    const int noReplay = int(ExpiryBehaviour::NoReplayUncertain);
    const auto with = [](const char* key, const QJsonValue& value) {
        return QJsonObject { { QLatin1String(key), value } };
    };
    QTest::newRow("readOnly absent") << QJsonObject() << int(ToolsModelColumn::ReadOnlyHint) << QVariant() << false
                                     << false << noReplay;
    QTest::newRow("readOnly true") << with("readOnlyHint", true) << int(ToolsModelColumn::ReadOnlyHint)
                                   << QVariant(true) << true << true << retry;
    QTest::newRow("readOnly false") << with("readOnlyHint", false) << int(ToolsModelColumn::ReadOnlyHint)
                                    << QVariant(false) << true << false << noReplay;
    QTest::newRow("readOnly the string true")
        << with("readOnlyHint", QStringLiteral("true")) << int(ToolsModelColumn::ReadOnlyHint)
        << QVariant(QStringLiteral("true")) << true << false << noReplay;
    QTest::newRow("readOnly 1") << with("readOnlyHint", 1) << int(ToolsModelColumn::ReadOnlyHint) << QVariant(1.0)
                                << true << false << noReplay;
    QTest::newRow("readOnly null") << with("readOnlyHint", QJsonValue::Null) << int(ToolsModelColumn::ReadOnlyHint)
                                   << QVariant::fromValue(nullptr) << true << false << noReplay;
    QTest::newRow("destructive absent") << QJsonObject() << int(ToolsModelColumn::DestructiveHint) << QVariant()
                                        << false << true << noReplay;
    QTest::newRow("destructive the string false")
        << with("destructiveHint", QStringLiteral("false")) << int(ToolsModelColumn::DestructiveHint)
        << QVariant(QStringLiteral("false")) << true << true << noReplay;
    QTest::newRow("destructive false alone is no replay")
        << with("destructiveHint", false) << int(ToolsModelColumn::DestructiveHint) << QVariant(false) << true << false
        << noReplay;
    QTest::newRow("idempotent absent") << QJsonObject() << int(ToolsModelColumn::IdempotentHint) << QVariant() << false
                                       << false << noReplay;
    QTest::newRow("idempotent 1") << with("idempotentHint", 1) << int(ToolsModelColumn::IdempotentHint) << QVariant(1.0)
                                  << true << false << noReplay;
    QTest::newRow("openWorld absent") << QJsonObject() << int(ToolsModelColumn::OpenWorldHint) << QVariant() << false
                                      << true << noReplay;
    QTest::newRow("openWorld false") << with("openWorldHint", false) << int(ToolsModelColumn::OpenWorldHint)
                                     << QVariant(false) << true << false << noReplay;
}

void TestToolsModel::hintAsSent()
{
    QFETCH(QJsonObject, annotations);
    QFETCH(int, column);
    QFETCH(QVariant, raw);
    QFETCH(bool, isExplicit);
    QFETCH(bool, effective);
    QFETCH(int, expiry);

    ToolsModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    model.setTools({ toolWithAnnotations(QStringLiteral("t"), annotations) }, PolicySettings {});
    QCOMPARE(model.rowCount(), 1);
    const QModelIndex index = model.index(0, column);
    QCOMPARE(index.data(), raw);
    QCOMPARE(index.data(ToolsModelRole::IsExplicitRole).toBool(), isExplicit);
    QCOMPARE(index.data(ToolsModelRole::EffectiveRole).toBool(), effective);
    QCOMPARE(model.index(0, ToolsModelColumn::OnExpiry).data().toInt(), expiry);
}

void TestToolsModel::sameNamesUpdateInPlace()
{
    ToolsModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    const QJsonObject readOnly { { QStringLiteral("readOnlyHint"), true } };
    model.setTools({ toolWithAnnotations(QStringLiteral("a"), {}), toolWithAnnotations(QStringLiteral("b"), {}) },
        PolicySettings {});
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setTools({ toolWithAnnotations(QStringLiteral("a"), {}), toolWithAnnotations(QStringLiteral("b"), readOnly) },
        PolicySettings {});
    QCOMPARE(reset.size(), 0);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.index(1, ToolsModelColumn::OnExpiry).data().toInt(), int(ExpiryBehaviour::RetryOnce));
    model.setTools({ toolWithAnnotations(QStringLiteral("c"), {}) }, PolicySettings {});
    QCOMPARE(reset.size(), 1);
    QCOMPARE(model.rowCount(), 1);
}

// RECOVERY.md §2: a name listed more than once is write-capable, whatever each entry says; no
// entry's hints win, not even when they agree.
void TestToolsModel::nameListedTwiceIsWriteCapable_data()
{
    QTest::addColumn<QJsonObject>("first");
    QTest::addColumn<QJsonObject>("second");
    QTest::addColumn<bool>("idempotentReplay");
    const QJsonObject readOnly { { QStringLiteral("readOnlyHint"), true } };
    const QJsonObject writer { { QStringLiteral("readOnlyHint"), false } };
    const QJsonObject idempotent { { QStringLiteral("idempotentHint"), true } };
    QTest::newRow("readOnlyHint true, then false") << readOnly << writer << false;
    QTest::newRow("readOnlyHint false, then true") << writer << readOnly << false;
    QTest::newRow("readOnlyHint true both times") << readOnly << readOnly << false;
    QTest::newRow("idempotentHint true both times, idempotent-replay on") << idempotent << idempotent << true;
}

void TestToolsModel::nameListedTwiceIsWriteCapable()
{
    QFETCH(QJsonObject, first);
    QFETCH(QJsonObject, second);
    QFETCH(bool, idempotentReplay);
    ToolsModel model;
    Tester tester(&model, Tester::FailureReportingMode::QtTest);
    PolicySettings settings;
    settings.idempotentReplay = idempotentReplay;
    // Built by hand, never marked: the model counts the names itself.
    const QJsonObject readOnly { { QStringLiteral("readOnlyHint"), true } };
    model.setTools(
        { toolWithAnnotations(QStringLiteral("t"), first), toolWithAnnotations(QStringLiteral("u"), readOnly),
            toolWithAnnotations(QStringLiteral("t"), second) },
        settings);
    QCOMPARE(model.rowCount(), 3);
    for (const int row : { 0, 2 }) {
        QCOMPARE(model.index(row, ToolsModelColumn::OnExpiry).data().toInt(), int(ExpiryBehaviour::NoReplayUncertain));
        QCOMPARE(model.index(row, ToolsModelColumn::Name).data(ToolsModelRole::ListedMoreThanOnceRole), QVariant(true));
    }
    // A read-only name listed once between them is still replayed.
    QCOMPARE(model.index(1, ToolsModelColumn::OnExpiry).data().toInt(), int(ExpiryBehaviour::RetryOnce));
    QCOMPARE(model.index(1, ToolsModelColumn::Name).data(ToolsModelRole::ListedMoreThanOnceRole), QVariant(false));
}

void TestToolsModel::sessionListingANameTwice()
{
    // The ledger peer with LEDGER_PEER_LIST_TWICE=1 lists "listed-twice" as readOnlyHint true, then false.
    QTemporaryDir dir;
    ServerConfig config;
    config.name = QStringLiteral("ledger");
    config.transport = TransportKind::Stdio;
    config.command = nodeBinary();
    config.args = { peersDir() + QStringLiteral("/ledger-peer.mjs"), QStringLiteral("stdio"),
        dir.filePath(QStringLiteral("ledger.jsonl")) };
    config.cwd = peersDir();
    config.env.insert(QStringLiteral("LEDGER_PEER_LIST_TWICE"), QStringLiteral("1"));
    Rig rig(config);
    QVERIFY(rig.connect());
    const QString twice = QStringLiteral("listed-twice");
    QList<int> rows;
    for (int row = 0; row < rig.model.rowCount(); ++row) {
        if (rig.model.tool(row).name == twice)
            rows.append(row);
    }
    QCOMPARE(rows.size(), 2);
    for (const int row : std::as_const(rows))
        QCOMPARE(rig.model.expiryBehaviour(row), ExpiryBehaviour::NoReplayUncertain);
    // The session's lookup does not pretend its first entry (readOnlyHint true) is the truth.
    const ToolInfo* first = rig.connection->session()->tool(twice);
    QVERIFY(first);
    QVERIFY(first->isReadOnly());
    QVERIFY(first->listedMoreThanOnce);
    const ToolListing listing = rig.connection->session()->listing(twice);
    QVERIFY(listing.listed);
    QVERIFY(listing.listedMoreThanOnce);
    QVERIFY(!rig.connection->session()->listing(QStringLiteral("read")).listedMoreThanOnce);
    QCOMPARE(rig.expiry(QStringLiteral("read")), ExpiryBehaviour::RetryOnce);
}

QTEST_GUILESS_MAIN(TestToolsModel)
#include "tst_toolsmodel.moc"
