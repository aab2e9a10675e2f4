// mcpscope-cli, run as a process, healing what breaks under it (issue 10): a stdio child that dies
// with a call in flight, concurrent calls of a `run` script's `parallel` step that hit one session
// expiry, and a timed-out call whose notifications/cancelled must reach the server before the CLI
// exits. Every count is read from the ledger peer's file (tests/peers/ledger-peer.mjs): what the
// SERVER ran and saw, never what the CLI believes.

#include "clirun.h"
#include "ledger.h"
#include "ledgerhttppeer.h"
#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

class TestCliRecovery : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();

    void stdioChildDeathHealsEveryStep();
    void concurrentCallsShareOneReconnect_data();
    void concurrentCallsShareOneReconnect();
    void timedOutCallCancelsOnTheServer_data();
    void timedOutCallCancelsOnTheServer();
    void parallelStepIsCheckedBeforeTheServerStarts_data();
    void parallelStepIsCheckedBeforeTheServerStarts();

private:
    QString writeScript(const QString& text);
    /// The server selection for a ledger peer: a stdio child, or the HTTP peer (behind the fault
    /// proxy when asked), which this starts.
    QStringList serverFor(const QString& transport, bool faultProxy);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<LedgerHttpPeer> m_http;
    Ledger m_ledger;
};

void TestCliRecovery::init()
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_CLI)), MCPSCOPE_CLI);
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    m_http.reset();
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_ledger.path = m_dir->filePath(u"ledger.jsonl"_s);
}

QString TestCliRecovery::writeScript(const QString& text)
{
    const QString path = m_dir->filePath(u"script.txt"_s);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    file.write(text.toUtf8());
    return path;
}

QStringList TestCliRecovery::serverFor(const QString& transport, bool faultProxy)
{
    if (transport == "stdio"_L1) {
        return { u"--stdio"_s,
            u"\"%1\" \"%2\" stdio \"%3\""_s.arg(QStringLiteral(MCPSCOPE_NODE), ledgerPeerScript(), m_ledger.path) };
    }
    m_http = std::make_unique<LedgerHttpPeer>();
    QString error;
    if (!m_http->start(m_ledger.path, &error)) {
        qWarning("%s", qPrintable(error));
        return {};
    }
    QStringList selection { u"--url"_s, m_http->url() };
    if (faultProxy)
        selection.append(u"--fault-proxy"_s);
    return selection;
}

// RECOVERY.md §3, stdio: a child that dies with the request in flight is TransportLost. The read is
// respawned and sent once more (R4), the write is respawned and not sent again (R5), and the step
// after them goes to the newest child. kill-after-write stops the child before the request is
// written and kills it right after, so the old child can never run it: the counts are exact.
void TestCliRecovery::stdioChildDeathHealsEveryStep()
{
    const QString log = m_dir->filePath(u"calls.jsonl"_s);
    const QString script = writeScript(u"fault kill-after-write\n"
                                       "call read {}\n"
                                       "fault kill-after-write\n"
                                       "call write {}\n"
                                       "call read {}\n"_s);
    const CliRun run = runCli(serverFor(u"stdio"_s, false) + QStringList { u"--log"_s, log, u"run"_s, script });
    QVERIFY2(run.finished, run.report());
    // The exit code of the last failing step: the uncertain write.
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 3, run.report());
    const QList<QJsonObject> steps = run.objects();
    QCOMPARE(steps.size(), 5);
    for (const QJsonObject& step : steps)
        QVERIFY2(step.value("outcome"_L1) != "cancelled"_L1, run.report());

    const QJsonObject read = steps.at(1);
    QCOMPARE(read.value("outcome"_L1).toString(), u"success"_s);
    QCOMPARE(read.value("rule"_L1).toString(), u"R4"_s);
    QCOMPARE(read.value("attempts"_L1).toInt(), 2);
    const QJsonArray readSessions = read.value("sessions"_L1).toArray();
    QCOMPARE(readSessions.size(), 2);
    const QString first = readSessions.at(0).toString();
    const QString second = readSessions.at(1).toString();
    QVERIFY2(first.startsWith("pid:"_L1) && second.startsWith("pid:"_L1) && first != second, run.report());

    const QJsonObject write = steps.at(3);
    QCOMPARE(write.value("outcome"_L1).toString(), u"outcome_uncertain"_s);
    QCOMPARE(write.value("rule"_L1).toString(), u"R5"_s);
    QCOMPARE(write.value("attempts"_L1).toInt(), 1);
    QCOMPARE(write.value("exitCode"_L1).toInt(), 3);
    QCOMPARE(write.value("healed"_L1).toBool(), true);
    QCOMPARE(write.value("sessions"_L1).toArray(), QJsonArray { second });

    const QJsonObject after = steps.at(4);
    QCOMPARE(after.value("outcome"_L1).toString(), u"success"_s);
    QCOMPARE(after.value("exitCode"_L1).toInt(), 0);
    const QString third = after.value("sessions"_L1).toArray().at(0).toString();
    QVERIFY2(third.startsWith("pid:"_L1) && third != first && third != second, run.report());

    // What the servers did: three children, each initialized once; the read ran only on the second
    // child and on the third, the write never.
    const QList<QJsonObject> initializes = m_ledger.events(u"initialize"_s);
    QCOMPARE(initializes.size(), 3);
    QCOMPARE(Ledger::pidOf(initializes.at(0)), first);
    QCOMPARE(Ledger::pidOf(initializes.at(1)), second);
    QCOMPARE(Ledger::pidOf(initializes.at(2)), third);
    QCOMPARE(m_ledger.runsOf(u"read"_s, first), 0);
    QCOMPARE(m_ledger.runsOf(u"read"_s, second), 1);
    QCOMPARE(m_ledger.runsOf(u"read"_s, third), 1);
    QCOMPARE(m_ledger.runsOf(u"read"_s), 2);
    QCOMPARE(m_ledger.runsOf(u"write"_s), 0);

    // The records name how each child ended: SIGKILL, from the fault.
    QFile file(log);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QList<QJsonObject> records;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (!line.trimmed().isEmpty())
            records.append(QJsonDocument::fromJson(line).object());
    }
    QCOMPARE(records.size(), 3);
    for (int i : { 0, 1 }) {
        const QJsonObject attempt = records.at(i).value("attempts"_L1).toArray().at(0).toObject();
        QCOMPARE(attempt.value("failureKind"_L1).toString(), u"transport_lost"_s);
        QCOMPARE(attempt.value("signal"_L1).toInt(), 9);
        QVERIFY(!attempt.contains("exitCode"_L1));
        QVERIFY2(attempt.value("error"_L1).toString().contains("killed by signal 9 (SIGKILL)"_L1),
            qPrintable(attempt.value("error"_L1).toString()));
    }
}

void TestCliRecovery::concurrentCallsShareOneReconnect_data()
{
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("attempts");
    QTest::addColumn<int>("serverRuns");
    QTest::addColumn<int>("exitCode");
    // expire-after forwards each call, lets the server run it, then answers 404 in its place.
    QTest::newRow("10 reads over one expiry: each retried once on the one new session")
        << u"read"_s << u"success"_s << u"R4"_s << 2 << 20 << 0;
    QTest::newRow("10 writes over one expiry: each run once, none sent again")
        << u"write"_s << u"outcome_uncertain"_s << u"R5"_s << 1 << 10 << 3;
}

void TestCliRecovery::concurrentCallsShareOneReconnect()
{
    QFETCH(QString, tool);
    QFETCH(QString, outcome);
    QFETCH(QString, rule);
    QFETCH(int, attempts);
    QFETCH(int, serverRuns);
    QFETCH(int, exitCode);

    const QStringList server = serverFor(u"http"_s, true);
    QVERIFY(!server.isEmpty());
    const QString script
        = writeScript(u"fault expire-after 10 method=tools/call\nparallel 10 call %1 {}\n"_s.arg(tool));
    const CliRun run = runCli(server + QStringList { u"run"_s, script });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == exitCode, run.report());

    const QList<QJsonObject> steps = run.objects();
    QCOMPARE(steps.size(), 11);
    QSet<int> copies;
    QSet<QString> retrySessions;
    for (const QJsonObject& step : steps.mid(1)) {
        copies.insert(step.value("copy"_L1).toInt());
        QCOMPARE(step.value("command"_L1).toString(), u"call"_s);
        QCOMPARE(step.value("step"_L1).toString(), u"parallel 10 call %1 {}"_s.arg(tool));
        QCOMPARE(step.value("outcome"_L1).toString(), outcome);
        QCOMPARE(step.value("rule"_L1).toString(), rule);
        QCOMPARE(step.value("attempts"_L1).toInt(), attempts);
        QCOMPARE(step.value("exitCode"_L1).toInt(), exitCode);
        if (attempts == 2)
            retrySessions.insert(step.value("sessions"_L1).toArray().at(1).toString());
    }
    QCOMPARE(copies, QSet<int>({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }));
    if (attempts == 2)
        QCOMPARE(retrySessions.size(), 1);

    // On the server: the first session and exactly one reconnect, whatever the ten calls raced for.
    QCOMPARE(m_ledger.events(u"initialize"_s).size(), 2);
    QCOMPARE(m_ledger.runsOf(tool), serverRuns);
}

void TestCliRecovery::timedOutCallCancelsOnTheServer_data()
{
    QTest::addColumn<QString>("transport");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<int>("exitCode");
    // R6: a read-only call that times out ends as timeout (7), a write-capable one as uncertain (3).
    for (const QString& transport : { u"stdio"_s, u"http"_s }) {
        QTest::addRow("%s, read-only call times out", qPrintable(transport))
            << transport << u"sleep"_s << u"timeout"_s << 7;
        QTest::addRow("%s, write-capable call times out", qPrintable(transport))
            << transport << u"sleep-write"_s << u"outcome_uncertain"_s << 3;
    }
}

// RECOVERY.md R6: the engine sends notifications/cancelled. A one-shot CLI that exits right after
// the timeout must not drop it: the ledger holds the server's cancelled line as soon as the CLI is gone.
void TestCliRecovery::timedOutCallCancelsOnTheServer()
{
    QFETCH(QString, transport);
    QFETCH(QString, tool);
    QFETCH(QString, outcome);
    QFETCH(int, exitCode);

    const QStringList server = serverFor(transport, false);
    QVERIFY(!server.isEmpty());
    // --timeout bounds initialize too: long enough for node to start on a busy machine.
    const CliRun run
        = runCli(server + QStringList { u"--json"_s, u"--timeout"_s, u"6"_s, u"call"_s, tool, uR"({"ms": 60000})"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == exitCode, run.report());
    const QList<QJsonObject> objects = run.objects();
    QCOMPARE(objects.size(), 1);
    QCOMPARE(objects.first().value("outcome"_L1).toString(), outcome);
    QCOMPARE(objects.first().value("rule"_L1).toString(), u"R6"_s);
    const QString callId = objects.first().value("callId"_L1).toString();
    QVERIFY(!callId.isEmpty());

    QCOMPARE(m_ledger.runsOf(tool), 1);
    // The CLI has exited, so whatever reaches the server now left it before the exit; a busy server
    // may still be reading those bytes, hence the wait. A cancel the CLI never wrote never arrives.
    QList<QJsonObject> cancelled;
    QTRY_VERIFY_WITH_TIMEOUT((cancelled = m_ledger.events(u"cancelled"_s)).size() >= 1, 10000);
    QVERIFY2(cancelled.size() == 1,
        qPrintable(u"%1 cancelled event(s) in the ledger after the CLI exited:\n%2\n"_s.arg(cancelled.size())
                       .arg(QString::fromUtf8(run.report()))));
    QCOMPARE(cancelled.first().value("tool"_L1).toString(), tool);
    QCOMPARE(cancelled.first().value("attempt"_L1)[u"callId"_s].toString(), callId);
    QCOMPARE(cancelled.first().value("attempt"_L1)[u"attempt"_s].toInt(), 1);
}

void TestCliRecovery::parallelStepIsCheckedBeforeTheServerStarts_data()
{
    QTest::addColumn<QString>("step");
    QTest::addColumn<QString>("message");
    const QString usage = u"parallel needs a number of copies from 1 to 1000 and a step"_s;
    QTest::newRow("no count") << u"parallel"_s << usage;
    QTest::newRow("a count that is not a number") << u"parallel ten call read {}"_s << usage;
    QTest::newRow("zero copies") << u"parallel 0 call read {}"_s << usage;
    QTest::newRow("more copies than allowed") << u"parallel 1001 call read {}"_s << usage;
    QTest::newRow("no step") << u"parallel 3"_s << usage;
    QTest::newRow("a step that does not exist") << u"parallel 3 frobnicate"_s << u"unknown step 'frobnicate'"_s;
    QTest::newRow("arguments that are not JSON")
        << u"parallel 3 call read {oops"_s << u"the arguments are not a JSON object"_s;
    QTest::newRow("parallel in parallel")
        << u"parallel 2 parallel 2 ping"_s << u"parallel cannot run another parallel step"_s;
}

void TestCliRecovery::parallelStepIsCheckedBeforeTheServerStarts()
{
    QFETCH(QString, step);
    QFETCH(QString, message);
    const QString script = writeScript(u"ping\n"_s + step + u'\n');
    // A server that does not exist: a script error must be found before anything starts.
    const CliRun run = runCli({ u"--stdio"_s, u"/nonexistent/mcp-server-xyz"_s, u"run"_s, script });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 2, run.report());
    QVERIFY2(run.err.contains(QString(u"line 2: "_s + message).toUtf8()), run.report());
    QVERIFY2(run.out.isEmpty(), run.report());
}

QTEST_GUILESS_MAIN(TestCliRecovery)
#include "tst_clirecovery.moc"
