// Roots against the real @modelcontextprotocol/server-everything on stdio: the server's get-roots-list tool
// reports the folders configured for it (ServerConfig::roots), and editing them while it is connected sends
// notifications/roots/list_changed, after which the server asks roots/list again and reports the new list.

#include "engine/engine.h"
#include "peerprocess.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {

constexpr int WaitMs = 30000;

ServerConfig everythingConfig(const QStringList& roots)
{
    ServerConfig config = everythingStdioConfig();
    config.roots = roots;
    return config;
}

QString resultText(const CallRecord& record)
{
    QString text;
    for (const QJsonValue& block : record.result.toObject().value(QLatin1String("content")).toArray())
        text += block.toObject().value(QLatin1String("text")).toString();
    return text;
}

struct Rig
{
    explicit Rig(const QStringList& roots)
    {
        connection = engine.addServer(everythingConfig(roots));
        QObject::connect(&engine, &Engine::traffic, &engine,
            [this](const QString&, WireDirection direction, const QByteArray& bytes) {
                const QJsonObject message = QJsonDocument::fromJson(bytes).object();
                const QString method = message.value(QLatin1String("method")).toString();
                if (direction == WireDirection::Incoming && method == QLatin1String("roots/list"))
                    ++rootsRequests;
                if (direction == WireDirection::Outgoing && method == QLatin1String("notifications/roots/list_changed"))
                    ++listChangedSent;
                if (direction == WireDirection::Outgoing && method == QLatin1String("initialize"))
                    declared = message.value(QLatin1String("params"))
                                   .toObject()
                                   .value(QLatin1String("capabilities"))
                                   .toObject();
            });
    }

    bool connect()
    {
        QSignalSpy ready(connection, &ServerConnection::ready);
        connection->connectToServer();
        return ready.wait(WaitMs);
    }

    CallRecord callTool(const QString& tool)
    {
        CallRecord out;
        bool done = false;
        engine.call(QStringLiteral("everything"), QStringLiteral("tools/call"),
            { { QStringLiteral("name"), tool }, { QStringLiteral("arguments"), QJsonObject() } }, {},
            [&](const CallRecord& record) {
                out = record;
                done = true;
            });
        if (!QTest::qWaitFor([&] { return done; }, WaitMs))
            out.outcome = CallOutcome::Pending;
        return out;
    }

    Engine engine;
    ServerConnection* connection = nullptr;
    int rootsRequests = 0;
    int listChangedSent = 0;
    QJsonObject declared; ///< the capabilities sent in initialize
};

} // namespace

class TestRoots : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void declaresRootsWithListChanged()
    {
        Rig rig({ QStringLiteral("/tmp") });
        QVERIFY(rig.connect());
        // The app's and the CLI's responders may or may not declare roots; a configured list always does.
        QCOMPARE(rig.declared.value(QLatin1String("roots")).toObject(),
            QJsonObject({ { QStringLiteral("listChanged"), true } }));
    }

    void serverSeesConfiguredRootsAndTheirEdits()
    {
        QTemporaryDir first;
        QTemporaryDir second;
        QVERIFY(first.isValid() && second.isValid());
        Rig rig({ first.path() });
        QVERIFY(rig.connect());

        const CallRecord before = rig.callTool(QStringLiteral("get-roots-list"));
        QCOMPARE(before.outcome, CallOutcome::Success);
        const QString firstUri = QUrl::fromLocalFile(first.path()).toString();
        QVERIFY2(
            resultText(before).contains(QStringLiteral("Current MCP Roots (1 total)")), qPrintable(resultText(before)));
        QVERIFY2(resultText(before).contains(firstUri), qPrintable(resultText(before)));
        QVERIFY2(resultText(before).contains(QFileInfo(first.path()).fileName()), qPrintable(resultText(before)));
        QTRY_COMPARE_WITH_TIMEOUT(rig.rootsRequests, 1, WaitMs);
        QCOMPARE(rig.listChangedSent, 0);

        // An edit while connected: the server is told, asks again, and reports the new list.
        QSignalSpy logged(&rig.engine, &Engine::logMessage);
        rig.engine.addServer(everythingConfig({ first.path(), second.path() }));
        QCOMPARE(rig.listChangedSent, 1);
        QTRY_COMPARE_WITH_TIMEOUT(rig.rootsRequests, 2, WaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(logged.cbegin(), logged.cend(),
                                     [](const QList<QVariant>& args) {
                                         return args.at(3).toJsonValue().toString().contains(
                                             QStringLiteral("2 root(s) received"));
                                     }),
            WaitMs);
        const CallRecord after = rig.callTool(QStringLiteral("get-roots-list"));
        QCOMPARE(after.outcome, CallOutcome::Success);
        QVERIFY2(
            resultText(after).contains(QStringLiteral("Current MCP Roots (2 total)")), qPrintable(resultText(after)));
        QVERIFY(resultText(after).contains(QUrl::fromLocalFile(second.path()).toString()));

        // Other edits do not tell the server anything about roots.
        ServerConfig config = rig.connection->config();
        config.requestTimeoutMs = 50000;
        rig.engine.addServer(config);
        QCOMPARE(rig.listChangedSent, 1);
    }

    void rootsRoundTripThroughTheWorkspaceForm()
    {
        ServerConfig config
            = everythingConfig({ QStringLiteral("/srv/project"), QStringLiteral("file:///data/x%20y") });
        ConfigError error;
        const ServerConfig back = ServerConfig::fromJson(config.name, config.toJson(), &error);
        QVERIFY2(error.isNull(), qPrintable(error.toString()));
        QCOMPARE(back.roots, config.roots);
        const QJsonArray roots = back.rootsJson();
        QCOMPARE(roots.size(), 2);
        QCOMPARE(roots.at(0).toObject().value(QLatin1String("uri")).toString(), QStringLiteral("file:///srv/project"));
        QCOMPARE(roots.at(0).toObject().value(QLatin1String("name")).toString(), QStringLiteral("project"));
        QCOMPARE(roots.at(1).toObject().value(QLatin1String("uri")).toString(), QStringLiteral("file:///data/x%20y"));
        QCOMPARE(roots.at(1).toObject().value(QLatin1String("name")).toString(), QStringLiteral("x y"));
        QVERIFY(!everythingConfig({}).toJson().contains(QLatin1String("roots")));
    }
};

QTEST_GUILESS_MAIN(TestRoots)
#include "tst_roots.moc"
