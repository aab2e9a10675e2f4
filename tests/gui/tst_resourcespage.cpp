// The Resources tab against real servers: every static resource of server-everything listed and
// read (text), a template with its completion expanded and read (a blob), subscribe with an update in
// the history, a re-list on list_changed that keeps the selection, the image/JSON/binary renderings
// (tests/peers/image-resources.mjs) with Save to file, and a resource link in a tool result opening
// the tab on its URI in the main window.

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "guienvironment.h"
#include "mainwindow/mainwindow.h"
#include "models/resourcesmodel.h"
#include "peerprocess.h"
#include "resources/resourcespage.h"
#include "result/resultview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace mcpscope;

namespace {

constexpr int WaitMs = 30000;

ServerConfig everythingConfig()
{
    ServerConfig config;
    config.name = QStringLiteral("everything");
    config.command = test::nodeBinary();
    config.args = QStringList { test::everythingScript(), QStringLiteral("stdio") };
    return config;
}

ServerConfig imageConfig()
{
    ServerConfig config;
    config.name = QStringLiteral("image-resources");
    config.command = test::nodeBinary();
    config.args = QStringList { test::peersDir() + QStringLiteral("/image-resources.mjs") };
    config.cwd = test::peersDir();
    return config;
}

/// An engine with one server and the page (its model under the tester), shown and listed.
struct Rig
{
    explicit Rig(const ServerConfig& config)
    {
        connection = engine.addServer(config);
        ServerConnection* c = connection;
        page = std::make_unique<ResourcesPage>(&engine, [c] { return c; });
        tester = std::make_unique<QAbstractItemModelTester>(
            page->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page->resize(1100, 700);
    }

    bool showAndList()
    {
        QSignalSpy listed(page.get(), &ResourcesPage::resourcesListed);
        page->show();
        page->showConnection(connection);
        connection->connectToServer();
        return listed.wait(WaitMs);
    }

    /// Opens uri (as a click in the list or on a link does) and waits until it is rendered.
    bool open(const QString& uri)
    {
        QSignalSpy shown(page.get(), &ResourcesPage::resourceShown);
        page->openUri(uri);
        return shown.wait(WaitMs) && shown.last().first().toString() == page->currentUri();
    }

    CallRecord call(const QString& method, const QJsonObject& params)
    {
        CallRecord out;
        bool done = false;
        engine.call(connection->name(), method, params, {}, [&](const CallRecord& record) {
            out = record;
            done = true;
        });
        if (!QTest::qWaitFor([&] { return done; }, WaitMs))
            out.outcome = CallOutcome::Pending;
        return out;
    }

    Engine engine;
    ServerConnection* connection = nullptr;
    std::unique_ptr<ResourcesPage> page;
    std::unique_ptr<QAbstractItemModelTester> tester;
};

} // namespace

[[maybe_unused]] static const bool s_environment = test::useScratchGuiEnvironment();

class TestResourcesPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::useScratchSettings(QStringLiteral("tst_resourcespage")); }

    void listsNothingUntilShown()
    {
        Rig rig(everythingConfig());
        rig.page->showConnection(rig.connection);
        QSignalSpy ready(rig.connection, &ServerConnection::ready);
        rig.connection->connectToServer();
        QVERIFY(ready.wait(WaitMs));
        QTest::qWait(200);
        QCOMPARE(rig.page->model()->rowCount(), 0);
        QSignalSpy listed(rig.page.get(), &ResourcesPage::resourcesListed);
        rig.page->show();
        QVERIFY(listed.wait(WaitMs));
        QVERIFY(rig.page->model()->resourceCount() > 0);
    }

    void readsEveryStaticResourceAsText()
    {
        Rig rig(everythingConfig());
        QVERIFY(rig.showAndList());
        // server-everything serves each file of its docs/ folder as a static resource.
        const QDir docs(
            test::peersDir() + QStringLiteral("/node_modules/@modelcontextprotocol/server-everything/dist/docs"));
        const int files = int(docs.entryList(QDir::Files).size());
        QVERIFY(files > 0);
        QCOMPARE(rig.page->model()->resourceCount(), files);
        QCOMPARE(rig.page->model()->templateCount(), 2);
        for (int row = 0; row < rig.page->model()->resourceCount(); ++row) {
            const QString uri = rig.page->model()->uri(row);
            QVERIFY2(rig.open(uri), qPrintable(uri));
            QCOMPARE(rig.page->resourcesView()->currentIndex().row(), row);
            QCOMPARE(rig.page->contentView()->kind(), ResourceContentView::Kind::Text);
            QCOMPARE(rig.page->contentView()->mimeType(), QStringLiteral("text/markdown"));
            QVERIFY(!rig.page->contentView()->text().isEmpty());
            QVERIFY(rig.page->contentView()->blob().isEmpty());
        }
    }

    void templateCompletesExpandsAndReadsABlob()
    {
        Rig rig(everythingConfig());
        QVERIFY(rig.showAndList());
        const QString tmpl = QStringLiteral("demo://resource/dynamic/blob/{resourceId}");
        const int row = rig.page->model()->rowOf(tmpl, ResourceKind::Template);
        QVERIFY(row >= 0);
        rig.page->resourcesView()->setCurrentIndex(rig.page->model()->index(row, 0));
        QLineEdit* field = rig.page->variableField(QStringLiteral("resourceId"));
        QVERIFY(field);
        QSignalSpy completions(rig.page.get(), &ResourcesPage::completionsShown);
        QTest::keyClicks(field, QStringLiteral("3"));
        QVERIFY(completions.wait(WaitMs));
        QCOMPARE(completions.last().at(0).toString(), QStringLiteral("resourceId"));
        QCOMPARE(completions.last().at(1).toStringList(), QStringList { QStringLiteral("3") });
        QCOMPARE(rig.page->expandedUri(), QStringLiteral("demo://resource/dynamic/blob/3"));

        QSignalSpy shown(rig.page.get(), &ResourcesPage::resourceShown);
        rig.page->read();
        QVERIFY(shown.wait(WaitMs));
        QCOMPARE(shown.last().first().toString(), QStringLiteral("demo://resource/dynamic/blob/3"));
        QCOMPARE(rig.page->contentView()->kind(), ResourceContentView::Kind::Binary);
        QVERIFY(rig.page->contentView()->blob().startsWith("Resource 3: This is a base64 blob"));
        auto* caption = rig.page->contentView()->findChild<QLabel*>(QStringLiteral("binaryCaption"));
        QVERIFY(caption);
        QVERIFY2(caption->text().contains(QStringLiteral("text/plain"))
                && caption->text().contains(QString::number(rig.page->contentView()->blob().size())),
            qPrintable(caption->text()));

        // A read that fails says which server and what.
        field->setText(QStringLiteral("x"));
        rig.page->read();
        QVERIFY(shown.wait(WaitMs));
        QCOMPARE(rig.page->contentView()->kind(), ResourceContentView::Kind::Message);
        auto* message = rig.page->contentView()->findChild<QLabel*>(QStringLiteral("resourceMessage"));
        QVERIFY2(message->text().contains(QStringLiteral("server 'everything'"))
                && message->text().contains(QStringLiteral("demo://resource/dynamic/blob/x")),
            qPrintable(message->text()));
    }

    void subscribeShowsUpdatesInTheHistory()
    {
        Rig rig(everythingConfig());
        QVERIFY(rig.showAndList());
        const QString uri = QStringLiteral("demo://resource/static/document/features.md");
        QVERIFY(rig.open(uri));
        QPushButton* subscribe = rig.page->subscribeButton();
        QVERIFY(subscribe->isEnabled());
        QCOMPARE(subscribe->text(), QStringLiteral("Subscribe"));
        QSignalSpy changed(rig.page->model(), &ResourcesModel::subscriptionChanged);
        QTest::mouseClick(subscribe, Qt::LeftButton);
        QVERIFY(changed.wait(WaitMs));
        QCOMPARE(subscribe->text(), QStringLiteral("Unsubscribe"));
        QVERIFY(rig.page->historyView()->isHidden());

        // The server sends updates for subscribed resources once this tool turns them on.
        const CallRecord toggle = rig.call(QStringLiteral("tools/call"),
            { { QStringLiteral("name"), QStringLiteral("toggle-subscriber-updates") },
                { QStringLiteral("arguments"), QJsonObject {} } });
        QCOMPARE(toggle.outcome, CallOutcome::Success);
        QTRY_VERIFY_WITH_TIMEOUT(rig.page->historyView()->count() >= 1, WaitMs);
        QVERIFY(!rig.page->historyView()->isHidden());
        QVERIFY(rig.page->historyView()->item(0)->text().contains(QStringLiteral("notifications/resources/updated")));
        const int row = rig.page->model()->rowOf(uri);
        QVERIFY(rig.page->model()->index(row, 0).data(ResourcesModelRole::UpdatesRole).toInt() >= 1);

        QTest::mouseClick(subscribe, Qt::LeftButton);
        QVERIFY(changed.wait(WaitMs));
        QCOMPARE(subscribe->text(), QStringLiteral("Subscribe"));
        QVERIFY(!rig.page->model()->isSubscribed(uri));
    }

    void relistKeepsTheSelection()
    {
        Rig rig(everythingConfig());
        QVERIFY(rig.showAndList());
        const QString uri = QStringLiteral("demo://resource/static/document/features.md");
        QVERIFY(rig.open(uri));
        const int before = rig.page->model()->resourceCount();
        // The gzip tool registers a session resource, and the server says list_changed.
        const CallRecord gzip = rig.call(QStringLiteral("tools/call"),
            { { QStringLiteral("name"), QStringLiteral("gzip-file-as-resource") },
                { QStringLiteral("arguments"),
                    QJsonObject { { QStringLiteral("name"), QStringLiteral("kept.txt.gz") },
                        { QStringLiteral("data"), QStringLiteral("data:text/plain;base64,aGVsbG8gd29ybGQ=") } } } });
        QCOMPARE(gzip.outcome, CallOutcome::Success);
        QTRY_COMPARE_WITH_TIMEOUT(rig.page->model()->resourceCount(), before + 1, WaitMs);
        QCOMPARE(rig.page->selectedUri(), uri);
        const QModelIndex current = rig.page->resourcesView()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(rig.page->model()->uri(current.row()), uri);
    }

    void rendersImageJsonTextAndBinary()
    {
        Rig rig(imageConfig());
        QVERIFY(rig.showAndList());
        QCOMPARE(rig.page->model()->resourceCount(), 4);

        QVERIFY(rig.open(QStringLiteral("demo://image/gradient.png")));
        ResourceContentView* view = rig.page->contentView();
        QCOMPARE(view->kind(), ResourceContentView::Kind::Image);
        QCOMPARE(view->image().size(), QSize(64, 64));
        auto* image = view->findChild<QLabel*>(QStringLiteral("resourceImage"));
        QVERIFY(image);
        QVERIFY(!image->pixmap().isNull());
        // Scaled to the pane, not shown at 64×64.
        QVERIFY2(image->pixmap().width() > 64, qPrintable(QString::number(image->pixmap().width())));
        QTemporaryDir scratch;
        const QString path = scratch.filePath(QStringLiteral("gradient.png"));
        QString error;
        QVERIFY2(view->saveTo(path, &error), qPrintable(error));
        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(saved.readAll(), view->blob());
        QVERIFY(view->blob().startsWith("\x89PNG"));

        QVERIFY(rig.open(QStringLiteral("demo://config/settings.json")));
        QCOMPARE(view->kind(), ResourceContentView::Kind::Json);
        QAbstractItemModel* tree = view->jsonView()->model();
        QAbstractItemModelTester treeTester(tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
        // The object's keys are the top rows; "features" opens to its two members.
        QCOMPARE(tree->rowCount(), 4);
        QModelIndex features;
        for (int row = 0; row < tree->rowCount(); ++row) {
            if (tree->index(row, 0).data().toString() == QLatin1String("features"))
                features = tree->index(row, 0);
        }
        QVERIFY(features.isValid());
        QCOMPARE(tree->rowCount(features), 2);

        QVERIFY(rig.open(QStringLiteral("demo://notes/readme.txt")));
        QCOMPARE(view->kind(), ResourceContentView::Kind::Text);
        QVERIFY(view->text().startsWith(QStringLiteral("Notes\n")));

        QVERIFY(rig.open(QStringLiteral("demo://data/random.bin")));
        QCOMPARE(view->kind(), ResourceContentView::Kind::Binary);
        QCOMPARE(view->blob().size(), 256);
        auto* caption = view->findChild<QLabel*>(QStringLiteral("binaryCaption"));
        QVERIFY2(caption->text().contains(QStringLiteral("application/octet-stream"))
                && caption->text().contains(QStringLiteral("256 bytes")),
            qPrintable(caption->text()));
    }

    void listsEveryPage()
    {
        ServerConfig config = imageConfig();
        config.env.insert(QStringLiteral("PAGE_SIZE"), QStringLiteral("1"));
        Rig rig(config);
        QSet<QString> listCalls;
        QObject::connect(&rig.engine, &Engine::callUpdated, [&listCalls](const CallRecord& record) {
            if (record.method == QLatin1String("resources/list"))
                listCalls.insert(record.callId);
        });
        QVERIFY(rig.showAndList());
        // One resource a page: four resources/list calls (each with its record), every row listed once.
        QCOMPARE(rig.page->model()->resourceCount(), 4);
        QCOMPARE(listCalls.size(), 4);
        QCOMPARE(rig.page->model()->uri(3), QStringLiteral("demo://data/random.bin"));
        QVERIFY(rig.open(QStringLiteral("demo://data/random.bin")));
        QCOMPARE(rig.page->contentView()->kind(), ResourceContentView::Kind::Binary);
    }

    void saysSoWhenTheServerHasNoResources()
    {
        ServerConfig config;
        config.name = QStringLiteral("tools-only");
        config.command = test::nodeBinary();
        config.args = QStringList { test::peersDir() + QStringLiteral("/echo-secrets.mjs"), QStringLiteral("stdio") };
        config.cwd = test::peersDir();
        Rig rig(config);
        rig.page->show();
        rig.page->showConnection(rig.connection);
        rig.connection->connectToServer();
        auto* title = rig.page->findChild<QLabel*>(QStringLiteral("resourceTitle"));
        QVERIFY(title);
        QTRY_VERIFY_WITH_TIMEOUT(
            title->text() == QStringLiteral("Server 'tools-only' does not declare the resources capability."), WaitMs);
        QCOMPARE(rig.page->model()->rowCount(), 0);
    }

    void resourceLinkInAToolResultOpensTheTab()
    {
        QTemporaryDir scratch;
        const QJsonObject server { { QStringLiteral("transport"), QStringLiteral("stdio") },
            { QStringLiteral("command"), test::nodeBinary() },
            { QStringLiteral("args"), QJsonArray { test::everythingScript(), QStringLiteral("stdio") } } };
        const QJsonObject workspace { { QStringLiteral("mcpscopeWorkspace"), 1 },
            { QStringLiteral("servers"), QJsonObject { { QStringLiteral("everything"), server } } } };
        QFile file(scratch.filePath(QStringLiteral("workspace.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QJsonDocument(workspace).toJson());
        file.close();
        MainWindow window;
        QVERIFY(window.openWorkspace(file.fileName()));
        window.show();
        window.selectServer(QStringLiteral("everything"));
        ServerConnection* c = window.engine()->connection(QStringLiteral("everything"));
        QVERIFY(c);
        c->connectToServer();
        QTRY_VERIFY_WITH_TIMEOUT(c->state() == ServerConnection::State::Ready, WaitMs);

        std::optional<CallRecord> result;
        window.engine()->call(QStringLiteral("everything"), QStringLiteral("tools/call"),
            { { QStringLiteral("name"), QStringLiteral("get-resource-links") },
                { QStringLiteral("arguments"), QJsonObject { { QStringLiteral("count"), 2 } } } },
            {}, [&result](const CallRecord& record) { result = record; });
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), WaitMs);
        QCOMPARE(result->outcome, CallOutcome::Success);
        window.resultView()->showRecord(*result, nullptr);

        const QString uri = QStringLiteral("demo://resource/dynamic/text/2");
        QLabel* link = nullptr;
        for (QLabel* label : window.resultView()->findChildren<QLabel*>()) {
            if (label->text().contains(QStringLiteral("href=\"%1\"").arg(uri)))
                link = label;
        }
        QVERIFY(link);
        ResourcesPage* page = window.resourcesPage();
        QVERIFY(page);
        QSignalSpy shown(page, &ResourcesPage::resourceShown);
        Q_EMIT link->linkActivated(uri);
        QCOMPARE(window.centreTabs()->currentWidget(), page);
        QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().first().toString() == uri, WaitMs);
        QCOMPARE(page->currentUri(), uri);
        QCOMPARE(page->contentView()->kind(), ResourceContentView::Kind::Text);
        QVERIFY2(page->contentView()->text().startsWith(QStringLiteral("Resource 2: ")),
            qPrintable(page->contentView()->text()));
    }
};

QTEST_MAIN(TestResourcesPage)
#include "tst_resourcespage.moc"
