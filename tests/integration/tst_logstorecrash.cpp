#include "calllog/logstore.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace mcpscope;

/// Kills logstore_writer with SIGKILL at random points and checks that every record it reported
/// committed is in the store, complete.
class TestLogStoreCrash : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keepsEveryCommittedRecordAcrossKill9_data()
    {
        QTest::addColumn<quint32>("seed");
        const quint32 base = QRandomGenerator::global()->generate();
        qInfo("seed base: %u", base);
        for (int run = 1; run <= 5; ++run)
            QTest::addRow("run %d, seed %u", run, base + run) << quint32(base + run);
    }

    void keepsEveryCommittedRecordAcrossKill9()
    {
        QFETCH(quint32, seed);
        QRandomGenerator random(seed);
        const int killAfter = random.bounded(1, 6000);
        qInfo("killing after %d committed records", killAfter);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("crash.mcplog"));
        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QStringLiteral(MCPSCOPE_LOGSTORE_WRITER), { path });
        QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));

        qint64 reported = 0;
        auto readLines = [&] {
            while (writer.canReadLine()) {
                const QByteArray line = writer.readLine().trimmed();
                if (line.startsWith("finished "))
                    reported = std::max(reported, line.mid(9).toLongLong());
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT((readLines(), reported >= killAfter || writer.state() != QProcess::Running), 60000);
        QCOMPARE(writer.state(), QProcess::Running);
        writer.kill(); // SIGKILL on Unix
        QVERIFY(writer.waitForFinished());
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
        readLines(); // lines printed before the kill are promises too
        qInfo("writer reported %lld committed records", reported);

        LogStore store;
        QString error;
        QVERIFY2(store.open(path, &error), qPrintable(error));
        QVERIFY(store.callCount() >= reported);
        qint64 missing = 0;
        for (qint64 n = 1; n <= reported; ++n) {
            const std::optional<CallRecord> record = store.record(QStringLiteral("call-%1").arg(n));
            const bool complete = record && record->outcome == CallOutcome::Success && record->attempts.size() == 2
                && record->decisions.size() == 1 && record->arguments.value(QStringLiteral("sequence")).toInteger() == n
                && record->result.toObject().value(QStringLiteral("echo")).toInteger() == n;
            if (!complete) {
                if (missing < 10)
                    qWarning("call-%lld missing or incomplete", n);
                ++missing;
            }
        }
        QCOMPARE(missing, qint64(0));

        // Calls in flight at the kill are there with what was known, now marked interrupted.
        qint64 interrupted = 0;
        for (const CallSummary& summary : store.recentCalls(1000000)) {
            QVERIFY2(summary.outcome == CallOutcome::Success || summary.outcome == CallOutcome::Interrupted,
                qPrintable(summary.callId));
            if (summary.outcome != CallOutcome::Interrupted)
                continue;
            ++interrupted;
            const std::optional<CallRecord> record = store.record(summary.callId);
            QVERIFY(record);
            QCOMPARE(record->attempts.size(), 1);
            QVERIFY(record->attempts.at(0).written);
        }
        qInfo("%lld calls in flight came back interrupted", interrupted);
    }
};

QTEST_GUILESS_MAIN(TestLogStoreCrash)
#include "tst_logstorecrash.moc"
