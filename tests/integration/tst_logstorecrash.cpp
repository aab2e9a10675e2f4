#include "calllog/logstore.h"
#include "logstorereads.h"
#include "peerprocess.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace mcpscope;
using namespace mcpscope::testing;

namespace {
/// Lines a child prints on stdout, collected as they arrive.
struct ChildLines
{
    QProcess* process;
    QList<QByteArray> lines;

    void read()
    {
        while (process->canReadLine())
            lines.append(process->readLine().trimmed());
    }
    QList<QByteArray> withPrefix(const QByteArray& prefix) const
    {
        QList<QByteArray> out;
        for (const QByteArray& line : lines) {
            if (line.startsWith(prefix))
                out.append(line.mid(prefix.size()));
        }
        return out;
    }
};
} // namespace

/// Kills logstore_writer with SIGKILL at random points and checks that every record it reported
/// committed is in the store, complete; runs it against a file size limit to check a full disk.
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
        QVERIFY(readCallCount(store) >= reported);
        qint64 missing = 0;
        for (qint64 n = 1; n <= reported; ++n) {
            const std::optional<CallRecord> record = readRecord(store, QStringLiteral("call-%1").arg(n));
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
        for (const CallSummary& summary : readRecentCalls(store, 1000000)) {
            QVERIFY2(summary.outcome == CallOutcome::Success || summary.outcome == CallOutcome::Interrupted,
                qPrintable(summary.callId));
            if (summary.outcome != CallOutcome::Interrupted)
                continue;
            ++interrupted;
            const std::optional<CallRecord> record = readRecord(store, summary.callId);
            QVERIFY(record);
            QCOMPARE(record->attempts.size(), 1);
            QVERIFY(record->attempts.at(0).written);
        }
        qInfo("%lld calls in flight came back interrupted", interrupted);
    }

    void keepsEveryFinishedCallOfARealEngineAcrossKill9_data()
    {
        QTest::addColumn<quint32>("seed");
        const quint32 base = QRandomGenerator::global()->generate();
        qInfo("seed base: %u", base);
        for (int run = 1; run <= 5; ++run)
            QTest::addRow("run %d, seed %u", run, base + run) << quint32(base + run);
    }

    /// A real Engine in logstore_writer --ledger calls the ledger peer over stdio, four calls at a time,
    /// with a LogStore following the engine, until it is SIGKILLed after a random number of finished calls.
    ///
    /// "Finished before the kill" means: the call's final CallRecord reached the store (callUpdated, which
    /// the client emits when the answer is handled) and a commit covering it completed; the child prints
    /// "done ID" only then. A call whose answer was on its way, or whose last version still sat in the
    /// 50 ms group commit, had not finished in that sense, and the requirement for it is weaker: it is in
    /// the store with what was committed (then Interrupted), or absent when even its start was not
    /// committed yet. The ledger, written by the server, is the independent witness: every call the
    /// store holds as a success ran exactly once on the server, and its result is the ledger's count at
    /// that run.
    void keepsEveryFinishedCallOfARealEngineAcrossKill9()
    {
        QFETCH(quint32, seed);
        QRandomGenerator random(seed);
        // Commits come every 50 ms and confirm a few hundred calls each, so the delay after the
        // killAfter-th confirmation picks the point in the commit cycle where the kill lands.
        const int killAfter = random.bounded(1, 400);
        const int delayMs = random.bounded(0, 60);
        qInfo("killing %d ms after %d finished calls", delayMs, killAfter);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("engine.mcplog"));
        const QString ledgerPath = dir.filePath(QStringLiteral("ledger.jsonl"));
        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QStringLiteral(MCPSCOPE_LOGSTORE_WRITER),
            { QStringLiteral("--ledger"), path, test::nodeBinary(),
                test::peersDir() + QStringLiteral("/ledger-peer.mjs"), ledgerPath });
        QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
        ChildLines out { &writer, {} };
        // Killed from the output handler (after the delay), not from a polling loop.
        bool armed = false;
        bool killed = false;
        QObject::connect(&writer, &QProcess::readyReadStandardOutput, &writer, [&] {
            out.read();
            if (!armed && out.withPrefix("done ").size() >= killAfter) {
                armed = true;
                QTimer::singleShot(delayMs, &writer, [&] {
                    killed = true;
                    writer.kill(); // SIGKILL on Unix
                });
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(killed || writer.state() != QProcess::Running, 90000);
        QVERIFY2(killed, "the writer stopped before the kill");
        QVERIFY(writer.state() == QProcess::NotRunning || writer.waitForFinished());
        QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
        out.read(); // lines printed before the kill are promises too
        const QList<QByteArray> failures = out.withPrefix("failed") + out.withPrefix("connection failed");
        QVERIFY2(failures.isEmpty(), failures.value(0).constData());
        const QList<QByteArray> done = out.withPrefix("done ");
        qInfo("the writer reported %lld finished calls", static_cast<long long>(done.size()));

        // The ledger: for each call id, the 1-based positions of its runs among all "write" runs.
        QHash<QString, QList<int>> runs;
        {
            QFile file(ledgerPath);
            QVERIFY(file.open(QIODevice::ReadOnly));
            int writes = 0;
            for (const QByteArray& line : file.readAll().split('\n')) {
                const QJsonObject entry = QJsonDocument::fromJson(line).object();
                if (entry.value(QLatin1String("tool")).toString() != QLatin1String("write"))
                    continue; // also skips a last line the peer was writing when its client died
                ++writes;
                runs[entry.value(QLatin1String("attempt")).toObject().value(QLatin1String("callId")).toString()].append(
                    writes);
            }
        }

        LogStore store;
        QString error;
        QVERIFY2(store.open(path, &error), qPrintable(error));
        const QList<CallSummary> calls = readRecentCalls(store, 1000000);
        QCOMPARE(readCallCount(store), qint64(calls.size()));
        QSet<QString> finishedInStore;
        qint64 interrupted = 0;
        for (const CallSummary& summary : calls) {
            const std::optional<CallRecord> record = readRecord(store, summary.callId);
            QVERIFY(record);
            QCOMPARE(record->tool, QStringLiteral("write"));
            const QList<int> ran = runs.value(summary.callId);
            if (record->outcome == CallOutcome::Success) {
                finishedInStore.insert(summary.callId);
                QCOMPARE(ran.size(), 1);
                QCOMPARE(record->attempts.size(), 1);
                QVERIFY(record->attempts.at(0).written);
                QVERIFY(record->attempts.at(0).endedAt >= record->attempts.at(0).sentAt);
                QVERIFY(record->decisions.isEmpty());
                const QString text = record->result.toObject()
                                         .value(QLatin1String("content"))
                                         .toArray()
                                         .at(0)
                                         .toObject()
                                         .value(QLatin1String("text"))
                                         .toString();
                QCOMPARE(text, QString::number(ran.first()));
            } else {
                // In flight at the kill: what was committed of it, now marked interrupted.
                QCOMPARE(record->outcome, CallOutcome::Interrupted);
                QCOMPARE(summary.outcome, CallOutcome::Interrupted);
                QVERIFY(ran.size() <= 1);
                QVERIFY(record->attempts.size() <= 1);
                QCOMPARE(record->endedAt, 0);
                ++interrupted;
            }
        }
        QCOMPARE(qint64(finishedInStore.size()) + interrupted, qint64(calls.size()));
        qint64 missing = 0;
        for (const QByteArray& callId : done) {
            if (!finishedInStore.contains(QString::fromLatin1(callId))) {
                if (missing < 10)
                    qWarning("finished call %s missing or not a complete success", callId.constData());
                ++missing;
            }
        }
        QCOMPARE(missing, qint64(0));
        QVERIFY(finishedInStore.size() >= done.size());
        qInfo("store: %lld finished (the writer had confirmed %lld), %lld interrupted; the server ran %lld calls",
            static_cast<long long>(finishedInStore.size()), static_cast<long long>(done.size()),
            static_cast<long long>(interrupted), static_cast<long long>(runs.size()));
    }

    /// logstore_writer --fsize-limit writes under RLIMIT_FSIZE (with SIGXFSZ ignored): past the limit every
    /// write fails as on a full disk, without root or a special mount.
    void reportsAFullDiskAndCommitsEverythingWhenSpaceReturns()
    {
        constexpr int Count = 3000;
        constexpr qint64 Limit = 256 * 1024;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("full.mcplog"));
        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QStringLiteral(MCPSCOPE_LOGSTORE_WRITER),
            { QStringLiteral("--fsize-limit"), QString::number(Limit), path, QString::number(Count) });
        QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
        ChildLines out { &writer, {} };
        QTRY_VERIFY_WITH_TIMEOUT(
            (out.read(), !out.withPrefix("appended ").isEmpty() || writer.state() != QProcess::Running), 60000);
        QCOMPARE(writer.state(), QProcess::Running);

        // The failure is reported (once per distinct message, not per retry), naming the file and the
        // reason, and the child keeps running with the records that could not be written in memory.
        const QList<QByteArray> failures = out.withPrefix("failed ");
        QVERIFY(!failures.isEmpty());
        QVERIFY(failures.size() <= 2);
        for (const QByteArray& failure : failures) {
            const QString message = QString::fromUtf8(failure);
            QVERIFY2(message.contains(path), qPrintable(message));
            QVERIFY2(message.contains(QStringLiteral("the file size limit of %1 bytes is reached").arg(Limit)),
                qPrintable(message));
        }
        const QList<QByteArray> appended = out.withPrefix("appended ").first().split(' ');
        QCOMPARE(appended.size(), 3);
        QCOMPARE(appended.at(0).toInt(), Count);
        const int waiting = appended.at(2).toInt();
        qInfo("%d of %d calls wait in memory while the disk is full", waiting, Count);
        QVERIFY(waiting > 0);
        QVERIFY(QFileInfo(path).size() <= Limit && QFileInfo(path + QStringLiteral("-wal")).size() <= Limit);

        writer.write("lift\n");
        QTRY_VERIFY_WITH_TIMEOUT(
            (out.read(), !out.withPrefix("committed ").isEmpty() || writer.state() != QProcess::Running), 30000);
        QCOMPARE(out.withPrefix("committed "), QList<QByteArray> { QByteArray::number(Count) });
        QVERIFY(writer.state() == QProcess::NotRunning || writer.waitForFinished(10000));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);

        LogStore store;
        QString error;
        QVERIFY2(store.open(path, &error), qPrintable(error));
        QCOMPARE(readCallCount(store), qint64(Count));
        for (int n = 1; n <= Count; ++n) {
            const std::optional<CallRecord> record = readRecord(store, QStringLiteral("full-%1").arg(n));
            QVERIFY2(record, qPrintable(QStringLiteral("full-%1").arg(n)));
            QCOMPARE(record->outcome, CallOutcome::Success);
            QCOMPARE(record->arguments.value(QLatin1String("sequence")).toInt(), n);
            QCOMPARE(record->arguments.value(QLatin1String("noise")).toString().size(), 480);
        }
    }
};

QTEST_GUILESS_MAIN(TestLogStoreCrash)
#include "tst_logstorecrash.moc"
