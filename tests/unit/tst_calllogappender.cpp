// CallLogAppender: the lines of `mcpscope-cli --log`, written once the event loop is about to wait.

#include "calllog/calllogappender.h"
#include "calllog/redactor.h"

#include <QBuffer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace mcpscope;

namespace {

CallRecord finishedRecord(const QString& callId, const QString& message)
{
    CallRecord record;
    record.callId = callId;
    record.server = QStringLiteral("alpha");
    record.method = QStringLiteral("tools/call");
    record.tool = QStringLiteral("echo");
    record.arguments = QJsonObject { { QStringLiteral("message"), message } };
    record.startedAt = 1764400000000;
    record.endedAt = record.startedAt + 3;
    record.outcome = CallOutcome::Success;
    return record;
}

/// One turn of a running event loop: it emits aboutToBlock before it waits for the timer.
void runLoopOnce()
{
    QEventLoop loop;
    QTimer::singleShot(0, &loop, &QEventLoop::quit);
    loop.exec();
}

QList<QJsonObject> linesOf(const QBuffer& buffer)
{
    QList<QJsonObject> lines;
    for (const QByteArray& line : buffer.data().split('\n')) {
        if (!line.isEmpty())
            lines.append(QJsonDocument::fromJson(line).object());
    }
    return lines;
}

} // namespace

class TestCallLogAppender : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesOnceTheLoopIsAboutToWait();
    void redactsAndKeepsTheOrder();
    void flushesWhenDestroyed();
    void saysOnceThatAWriteFailed();
};

void TestCallLogAppender::writesOnceTheLoopIsAboutToWait()
{
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    const Redactor redactor;
    CallLogAppender appender(&out, &redactor);

    // Appended while a call finishes: nothing reaches the device before the loop has nothing to do.
    appender.append(finishedRecord(QStringLiteral("c1"), QStringLiteral("hello")));
    CallRecord pending = finishedRecord(QStringLiteral("c2"), QStringLiteral("later"));
    pending.outcome = CallOutcome::Pending;
    appender.append(pending); // not finished: never a line
    QCOMPARE(appender.pending(), 1);
    QCOMPARE(out.data().size(), 0);

    runLoopOnce();
    QCOMPARE(appender.pending(), 0);
    QCOMPARE(appender.written(), 1);
    const QList<QJsonObject> lines = linesOf(out);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(lines.first().value(QLatin1String("callId")).toString(), QStringLiteral("c1"));
    QVERIFY(out.data().endsWith('\n'));

    // A loop turn with nothing queued writes nothing more.
    runLoopOnce();
    QCOMPARE(linesOf(out).size(), 1);
    QVERIFY(appender.errorString().isEmpty());
}

void TestCallLogAppender::redactsAndKeepsTheOrder()
{
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    Redactor redactor;
    redactor.addSecretValue(QStringLiteral("s3cr3t-token-value"));
    CallLogAppender appender(&out, &redactor);

    for (int i = 0; i < 5; ++i)
        appender.append(finishedRecord(QStringLiteral("c%1").arg(i),
            i == 2 ? QStringLiteral("key s3cr3t-token-value") : QStringLiteral("plain %1").arg(i)));
    QVERIFY(appender.flush());

    QVERIFY(!out.data().contains("s3cr3t-token-value"));
    const QList<QJsonObject> lines = linesOf(out);
    QCOMPARE(lines.size(), 5);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(lines.at(i).value(QLatin1String("callId")).toString(), QStringLiteral("c%1").arg(i));
    QCOMPARE(lines.at(2).value(QLatin1String("arguments")).toObject().value(QLatin1String("message")).toString(),
        QStringLiteral("key [redacted]"));
    QCOMPARE(lines.at(3).value(QLatin1String("arguments")).toObject().value(QLatin1String("message")).toString(),
        QStringLiteral("plain 3"));
}

void TestCallLogAppender::flushesWhenDestroyed()
{
    QBuffer out;
    QVERIFY(out.open(QIODevice::WriteOnly));
    const Redactor redactor;
    {
        CallLogAppender appender(&out, &redactor);
        appender.append(finishedRecord(QStringLiteral("last"), QStringLiteral("bye")));
        QCOMPARE(out.data().size(), 0);
    }
    const QList<QJsonObject> lines = linesOf(out);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(lines.first().value(QLatin1String("callId")).toString(), QStringLiteral("last"));
}

void TestCallLogAppender::saysOnceThatAWriteFailed()
{
    QBuffer out;
    QVERIFY(out.open(QIODevice::ReadOnly)); // every write is refused
    const Redactor redactor;
    CallLogAppender appender(&out, &redactor);
    QSignalSpy failed(&appender, &CallLogAppender::writeFailed);

    QTest::ignoreMessage(QtWarningMsg, "QIODevice::write (QBuffer): ReadOnly device");
    appender.append(finishedRecord(QStringLiteral("c1"), QStringLiteral("hello")));
    runLoopOnce();
    QTest::ignoreMessage(QtWarningMsg, "QIODevice::write (QBuffer): ReadOnly device");
    appender.append(finishedRecord(QStringLiteral("c2"), QStringLiteral("hello")));
    QVERIFY(!appender.flush());

    QCOMPARE(failed.size(), 1);
    QVERIFY(!failed.first().first().toString().isEmpty());
    QCOMPARE(appender.errorString(), failed.first().first().toString());
    QCOMPARE(appender.written(), 0);
    QCOMPARE(appender.pending(), 0); // tried and reported, not kept to grow without bound
}

QTEST_GUILESS_MAIN(TestCallLogAppender)
#include "tst_calllogappender.moc"
