// ResultView: a resource_link and an embedded resource are links whose activation names the URI
// (what the Resources tab opens), never a browser.

#include "result/resultview.h"

#include <QJsonArray>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

using namespace mcpscope;

class TestResultLinks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void linkActivationNamesTheUri_data()
    {
        QTest::addColumn<QJsonObject>("block");
        QTest::addColumn<QString>("uri");
        const QString text = QStringLiteral("demo://resource/dynamic/text/2");
        QTest::newRow("resource_link") << QJsonObject { { QStringLiteral("type"), QStringLiteral("resource_link") },
            { QStringLiteral("uri"), text }, { QStringLiteral("name"), QStringLiteral("Text Resource 2") } }
                                       << text;
        const QString doc = QStringLiteral("demo://resource/static/document/features.md");
        QTest::newRow("embedded resource") << QJsonObject { { QStringLiteral("type"), QStringLiteral("resource") },
            { QStringLiteral("resource"),
                QJsonObject {
                    { QStringLiteral("uri"), doc }, { QStringLiteral("text"), QStringLiteral("# Features") } } } }
                                           << doc;
    }

    void linkActivationNamesTheUri()
    {
        QFETCH(QJsonObject, block);
        QFETCH(QString, uri);
        ResultView view;
        CallRecord record;
        record.method = QStringLiteral("tools/call");
        record.outcome = CallOutcome::Success;
        record.result = QJsonObject { { QStringLiteral("content"), QJsonArray { block } } };
        view.showRecord(record, nullptr);
        QSignalSpy activated(&view, &ResultView::resourceLinkActivated);
        QLabel* link = nullptr;
        const QList<QLabel*> labels = view.findChildren<QLabel*>();
        for (QLabel* label : labels) {
            if (label->text().contains(QStringLiteral("href=\"%1\"").arg(uri)))
                link = label;
        }
        QVERIFY(link);
        QVERIFY(!link->openExternalLinks());
        Q_EMIT link->linkActivated(uri);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().toString(), uri);
    }
};

QTEST_MAIN(TestResultLinks)
#include "tst_resultlinks.moc"
