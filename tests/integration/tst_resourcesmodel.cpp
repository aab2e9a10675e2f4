// ResourcesModel against the real @modelcontextprotocol/server-everything on stdio: every static
// resource listed and read through the engine, the templates, a re-list on list_changed that keeps
// rows, and a subscription with its notifications/resources/updated history.

#include "engine/engine.h"
#include "models/resourcesmodel.h"
#include "peerprocess.h"
#include "session/uritemplate.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;
using namespace mcpscope::test;

namespace {

constexpr int WaitMs = 30000;

/// An engine with server-everything and a ResourcesModel (under the tester) attached before it connects.
struct Rig
{
    Rig()
    {
        connection = engine.addServer(everythingStdioConfig());
        model.setConnection(connection);
    }

    bool connectAndList()
    {
        QSignalSpy listed(&model, &ResourcesModel::listed);
        connection->connectToServer();
        return listed.wait(WaitMs);
    }

    CallRecord call(const QString& method, const QJsonObject& params)
    {
        CallRecord out;
        bool done = false;
        engine.call(QStringLiteral("everything"), method, params, {}, [&](const CallRecord& record) {
            out = record;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, WaitMs))
            out.outcome = CallOutcome::Pending;
        return out;
    }

    /// server-everything's toggle-subscriber-updates: the session's subscriptions get updates every few seconds.
    CallRecord toggleSubscriberUpdates()
    {
        return call(QStringLiteral("tools/call"),
            { { QStringLiteral("name"), QStringLiteral("toggle-subscriber-updates") },
                { QStringLiteral("arguments"), QJsonObject {} } });
    }

    Engine engine;
    ServerConnection* connection = nullptr;
    ResourcesModel model { &engine };
    QAbstractItemModelTester tester { &model, QAbstractItemModelTester::FailureReportingMode::QtTest };
};

} // namespace

class TestResourcesModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void listsAndReadsEveryStaticResource()
    {
        Rig rig;
        QVERIFY(rig.connectAndList());
        QVERIFY(rig.model.resourceCount() > 0);
        QCOMPARE(rig.model.rowCount(), rig.model.resourceCount() + rig.model.templateCount());
        QVERIFY(rig.model.rowOf(QStringLiteral("demo://resource/static/document/features.md")) >= 0);
        for (int row = 0; row < rig.model.resourceCount(); ++row) {
            const QString uri = rig.model.uri(row);
            QCOMPARE(rig.model.kind(row), ResourceKind::Resource);
            const CallRecord read = rig.call(QStringLiteral("resources/read"), { { QStringLiteral("uri"), uri } });
            QCOMPARE(read.outcome, CallOutcome::Success);
            QCOMPARE(read.method, QStringLiteral("resources/read"));
            const QJsonArray contents = read.result.toObject().value(QLatin1String("contents")).toArray();
            QCOMPARE(contents.size(), 1);
            QCOMPARE(contents.at(0).toObject().value(QLatin1String("uri")).toString(), uri);
            QVERIFY(!contents.at(0).toObject().value(QLatin1String("text")).toString().isEmpty());
        }
    }

    void templateExpandsCompletesAndReads()
    {
        Rig rig;
        QVERIFY(rig.connectAndList());
        const QString tmpl = QStringLiteral("demo://resource/dynamic/text/{resourceId}");
        const int row = rig.model.rowOf(tmpl, ResourceKind::Template);
        QVERIFY(row >= 0);
        QCOMPARE(rig.model.kind(row), ResourceKind::Template);
        QCOMPARE(UriTemplate::variables(tmpl), QStringList { QStringLiteral("resourceId") });

        const CallRecord complete = rig.call(QStringLiteral("completion/complete"),
            { { QStringLiteral("ref"),
                  QJsonObject {
                      { QStringLiteral("type"), QStringLiteral("ref/resource") }, { QStringLiteral("uri"), tmpl } } },
                { QStringLiteral("argument"),
                    QJsonObject { { QStringLiteral("name"), QStringLiteral("resourceId") },
                        { QStringLiteral("value"), QStringLiteral("7") } } } });
        QCOMPARE(complete.outcome, CallOutcome::Success);
        const QJsonArray values = complete.result.toObject()
                                      .value(QLatin1String("completion"))
                                      .toObject()
                                      .value(QLatin1String("values"))
                                      .toArray();
        QCOMPARE(values, QJsonArray { QStringLiteral("7") });

        const QString uri = UriTemplate::expand(tmpl, { { QStringLiteral("resourceId"), QStringLiteral("7") } });
        QCOMPARE(uri, QStringLiteral("demo://resource/dynamic/text/7"));
        const CallRecord read = rig.call(QStringLiteral("resources/read"), { { QStringLiteral("uri"), uri } });
        QCOMPARE(read.outcome, CallOutcome::Success);
        QVERIFY(read.result.toObject()
                    .value(QLatin1String("contents"))
                    .toArray()
                    .at(0)
                    .toObject()
                    .value(QLatin1String("text"))
                    .toString()
                    .startsWith(QLatin1String("Resource 7: ")));
    }

    void relistsOnListChanged()
    {
        Rig rig;
        QVERIFY(rig.connectAndList());
        const int before = rig.model.resourceCount();
        QSignalSpy listed(&rig.model, &ResourcesModel::listed);
        // The gzip tool registers a session resource, and the server says list_changed.
        const CallRecord gzip = rig.call(QStringLiteral("tools/call"),
            { { QStringLiteral("name"), QStringLiteral("gzip-file-as-resource") },
                { QStringLiteral("arguments"),
                    QJsonObject { { QStringLiteral("name"), QStringLiteral("hello.txt.gz") },
                        { QStringLiteral("data"), QStringLiteral("data:text/plain;base64,aGVsbG8gd29ybGQ=") } } } });
        QCOMPARE(gzip.outcome, CallOutcome::Success);
        QTRY_COMPARE_WITH_TIMEOUT(rig.model.resourceCount(), before + 1, WaitMs);
        QVERIFY(listed.count() >= 1);
        bool found = false;
        for (int row = 0; row < rig.model.resourceCount(); ++row)
            found = found || rig.model.uri(row).contains(QLatin1String("hello.txt.gz"));
        QVERIFY(found);
    }

    void subscribeSeesUpdatesAndUnsubscribe()
    {
        Rig rig;
        QVERIFY(rig.connectAndList());
        QVERIFY(rig.model.canSubscribe());
        const QString uri = QStringLiteral("demo://resource/static/document/features.md");
        const int row = rig.model.rowOf(uri);
        QVERIFY(row >= 0);
        QSignalSpy changed(&rig.model, &ResourcesModel::subscriptionChanged);
        rig.model.subscribe(uri);
        QVERIFY(changed.wait(WaitMs));
        QVERIFY(rig.model.isSubscribed(uri));
        QCOMPARE(rig.model.index(row, 0).data(ResourcesModelRole::SubscribedRole).toBool(), true);

        QSignalSpy updated(&rig.model, &ResourcesModel::resourceUpdated);
        QCOMPARE(rig.toggleSubscriberUpdates().outcome, CallOutcome::Success);
        QVERIFY(updated.count() > 0 || updated.wait(WaitMs));
        QCOMPARE(updated.first().first().toString(), uri);
        QVERIFY(!rig.model.history(uri).isEmpty());
        QCOMPARE(rig.model.history(uri).first().params.value(QLatin1String("uri")).toString(), uri);
        QVERIFY(rig.model.index(row, ResourcesModelColumn::Updates).data().toInt() >= 1);

        rig.model.unsubscribe(uri);
        QVERIFY(changed.wait(WaitMs));
        QVERIFY(!rig.model.isSubscribed(uri));
    }

    void subscriptionIsSentAgainOnTheNewSession()
    {
        Rig rig;
        QVERIFY(rig.connectAndList());
        const QString uri = QStringLiteral("demo://resource/static/document/features.md");
        QSignalSpy changed(&rig.model, &ResourcesModel::subscriptionChanged);
        rig.model.subscribe(uri);
        QVERIFY(changed.wait(WaitMs));
        const QString before = rig.connection->session()->sessionId();

        // The transport dies (the server process is killed): the engine heals it with a new session and a new
        // server process, which has no subscriptions until McpScope sends resources/subscribe again.
        QSignalSpy records(&rig.engine, &Engine::callUpdated);
        changed.clear();
        rig.connection->killTransport();
        QVERIFY(changed.wait(WaitMs));
        QCOMPARE(changed.first().at(0).toString(), uri);
        QCOMPARE(changed.first().at(1).toBool(), true);
        QVERIFY(rig.model.isSubscribed(uri));
        QVERIFY(rig.connection->session()->sessionId() != before);
        int subscribes = 0;
        for (const QList<QVariant>& args : std::as_const(records)) {
            const CallRecord record = args.first().value<CallRecord>();
            if (record.method == QLatin1String("resources/subscribe") && record.outcome == CallOutcome::Success)
                ++subscribes;
        }
        QCOMPARE(subscribes, 1);

        // Updates flow on the new session: the new server process sends them for the resent subscription.
        QSignalSpy updated(&rig.model, &ResourcesModel::resourceUpdated);
        QCOMPARE(rig.toggleSubscriberUpdates().outcome, CallOutcome::Success);
        QVERIFY(updated.count() > 0 || updated.wait(WaitMs));
        QCOMPARE(updated.first().first().toString(), uri);
    }
};

QTEST_GUILESS_MAIN(TestResourcesModel)
#include "tst_resourcesmodel.moc"
