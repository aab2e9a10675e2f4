// Per-attempt HTTP timing in the calls log (issue 17): each attempt of a call over Streamable HTTP carries
// when its connection was ready, when the first byte came and when it ended, from the HTTP client's own
// timing, in that order; a kept-alive connection that carried a request before says it was reused and
// took 0 ms to connect. The fields survive the record's JSONL line. Against the real ledger peer over HTTP.

#include "calllog/callrecord.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "ledgerhttppeer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;
using namespace Qt::StringLiterals;

namespace {
constexpr int WaitMs = 30000;
}

class TestAttemptTiming : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void attemptsCarryConnectFirstByteAndEnd();

private:
    static void checkOrder(const CallRecord& record);
};

void TestAttemptTiming::checkOrder(const CallRecord& record)
{
    QCOMPARE(record.outcome, CallOutcome::Success);
    QCOMPARE(record.attempts.size(), 1);
    const CallAttempt& a = record.attempts.first();
    const QByteArray json = record.toCompactJson();
    QVERIFY2(a.connectedAt > 0, json.constData());
    QVERIFY2(a.sentAt <= a.connectedAt, json.constData());
    QVERIFY2(a.connectedAt <= a.firstByteAt, json.constData());
    QVERIFY2(a.firstByteAt <= a.endedAt, json.constData());
    if (a.connectionReused) {
        QCOMPARE(a.connectMs(), 0);
        QCOMPARE(a.connectedAt, a.sentAt);
    }
    // In the JSONL line, and back.
    const QJsonObject attempt
        = QJsonDocument::fromJson(json).object().value(u"attempts"_s).toArray().first().toObject();
    QCOMPARE(attempt.value(u"connectedAt"_s).toInteger(), a.connectedAt);
    QCOMPARE(attempt.value(u"connectionReused"_s).toBool(), a.connectionReused);
    QCOMPARE(attempt.contains(u"connectionReused"_s), a.connectionReused);
    const CallRecord back = CallRecord::fromJson(QJsonDocument::fromJson(json).object());
    QCOMPARE(back.attempts.first().connectedAt, a.connectedAt);
    QCOMPARE(back.attempts.first().connectionReused, a.connectionReused);
}

void TestAttemptTiming::attemptsCarryConnectFirstByteAndEnd()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    test::LedgerHttpPeer peer;
    QString error;
    QVERIFY2(peer.start(dir.filePath(u"ledger.jsonl"_s), &error), qPrintable(error));

    Engine engine;
    ServerConfig config;
    config.name = u"ledger"_s;
    config.transport = TransportKind::StreamableHttp;
    config.url = QUrl(peer.url());
    ServerConnection* connection = engine.addServer(config);
    QSignalSpy ready(connection, &ServerConnection::ready);
    connection->connectToServer();
    QVERIFY(ready.wait(WaitMs));

    const auto call = [&](const QString& tool, const QJsonObject& arguments, QList<CallRecord>* into) {
        engine.call(u"ledger"_s, u"tools/call"_s, { { u"name"_s, tool }, { u"arguments"_s, arguments } }, {},
            [into](const CallRecord& record) { into->append(record); });
    };

    // Six at once: more than the connections the handshake left open, so some need a new one.
    QList<CallRecord> burst;
    for (int i = 0; i < 6; ++i)
        call(u"sleep"_s, { { u"ms"_s, 300 } }, &burst);
    QTRY_COMPARE_WITH_TIMEOUT(burst.size(), 6, WaitMs);
    int fresh = 0;
    for (const CallRecord& record : std::as_const(burst)) {
        checkOrder(record);
        if (QTest::currentTestFailed())
            return;
        fresh += record.attempts.first().connectionReused ? 0 : 1;
    }
    QVERIFY2(fresh >= 1, "six concurrent calls all went out on reused connections");

    // One after another: each goes out on a kept-alive connection that carried a request before.
    QList<CallRecord> sequential;
    for (int i = 0; i < 3; ++i) {
        call(u"read"_s, {}, &sequential);
        QTRY_COMPARE_WITH_TIMEOUT(sequential.size(), i + 1, WaitMs);
        checkOrder(sequential.last());
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(sequential.last().attempts.first().connectionReused, sequential.last().toCompactJson().constData());
    }
}

QTEST_GUILESS_MAIN(TestAttemptTiming)
#include "tst_attempttiming.moc"
