// The 2026-07-28 revision through mcpscope-cli, against real peers (issue 16): --protocol-era auto
// resolves to modern for the SDK v2 modern ledger peer and to legacy for server-everything, and an MRTR
// tool call is answered by the CLI's responder in rounds that the server ran once each, with the write
// itself run exactly once (counted in the peer's own ledger).

#include "clirun.h"
#include "ledger.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

QString node()
{
    return u'"' + QStringLiteral(MCPSCOPE_NODE) + u'"';
}

QString modernPeer(const QString& ledger)
{
    return node() + u" \""_s + QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/modern-ledger-peer.mjs\" stdio \""_s + ledger
        + u'"';
}

QString everythingCommand()
{
    return node() + u" \""_s + QStringLiteral(MCPSCOPE_PEERS_DIR)
        + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js\" stdio"_s;
}

QJsonObject infoResult(const CliRun& run)
{
    return QJsonDocument::fromJson(run.out.trimmed()).object().value(u"result"_s).toObject();
}

} // namespace

class TestCliModern : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void autoResolvesToModernForTheModernPeer()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(u"ledger.jsonl"_s);
        const CliRun run
            = runCli({ u"--protocol-era"_s, u"auto"_s, u"--stdio"_s, modernPeer(ledger), u"--json"_s, u"info"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const QJsonObject info = infoResult(run);
        QCOMPARE(info.value(u"era"_s).toString(), u"modern"_s);
        QCOMPARE(info.value(u"protocolVersion"_s).toString(), u"2026-07-28"_s);
        QCOMPARE(info.value(u"sessionless"_s).toBool(), true);
        QCOMPARE(info.value(u"serverInfo"_s).toObject().value(u"name"_s).toString(), u"modern-ledger-peer"_s);
        // One probe, no initialize: the server saw exactly one server/discover.
        QCOMPARE(Ledger { ledger }.events(u"discover"_s).size(), 1);
    }

    void autoResolvesToLegacyForServerEverything()
    {
        const CliRun run
            = runCli({ u"--protocol-era"_s, u"auto"_s, u"--stdio"_s, everythingCommand(), u"--json"_s, u"info"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const QJsonObject info = infoResult(run);
        QCOMPARE(info.value(u"era"_s).toString(), u"legacy"_s);
        QCOMPARE(info.value(u"protocolVersion"_s).toString(), u"2025-11-25"_s);
        QVERIFY2(info.value(u"eraReason"_s).toString().contains(u"-32601"_s), run.report().constData());
    }

    void mrtrRoundAnsweredAndTheWriteRunsOnce()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(u"ledger.jsonl"_s);
        const CliRun run = runCli({ u"--protocol-era"_s, u"modern"_s, u"--stdio"_s, modernPeer(ledger), u"--elicit"_s,
            u"accept"_s, u"--elicit-content"_s, uR"({"confirm":true})"_s, u"call"_s, u"confirm-write"_s,
            uR"({"note":"once"})"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const Ledger book { ledger };
        QList<int> rounds;
        QString echoedState;
        for (const QJsonObject& line : book.events(u"round"_s)) {
            rounds.append(line.value(u"round"_s).toInt());
            if (line.value(u"round"_s).toInt() == 2)
                echoedState = line.value(u"state"_s).toString();
        }
        const int writes = book.runsOf(u"confirm-write"_s);
        QCOMPARE(rounds, (QList<int> { 1, 2 }));
        // requestState came back exactly as the server gave it.
        QCOMPARE(echoedState, u"confirm-write:1"_s);
        QCOMPARE(writes, 1);
        QVERIFY2(run.out.trimmed() == "1", run.report().constData());
    }

    // The tasks extension: a call the server turns into a task is followed to its end (the answer the task
    // asked for comes from --elicit, through tasks/update), and prints the task's result like any call.
    void taskHandleIsFollowedToItsResult()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(u"ledger.jsonl"_s);
        const CliRun run = runCli({ u"--protocol-era"_s, u"modern"_s, u"--stdio"_s, modernPeer(ledger), u"--elicit"_s,
            u"accept"_s, u"--elicit-content"_s, uR"({"confirm":true})"_s, u"--json"_s, u"call"_s, u"task-confirm"_s,
            uR"({"note":"task"})"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const Ledger book { ledger };
        QCOMPARE(book.runsOf(u"task-confirm"_s), 1);
        QCOMPARE(book.events(u"task-update"_s).size(), 1);
        const QJsonObject result = run.objects().value(0);
        QCOMPARE(result.value(u"taskStatus"_s).toString(), u"completed"_s);
        QVERIFY2(!result.value(u"taskId"_s).toString().isEmpty(), run.report().constData());
    }

    void tasksListIsRefusedForAModernServer()
    {
        QTemporaryDir dir;
        const CliRun run = runCli({ u"--protocol-era"_s, u"modern"_s, u"--stdio"_s,
            modernPeer(dir.filePath(u"ledger.jsonl"_s)), u"tasks"_s, u"list"_s });
        QVERIFY2(run.finished && run.exitCode == 2, run.report().constData());
        QVERIFY2(run.err.contains("has no tasks/list"), run.report().constData());
    }
};

QTEST_GUILESS_MAIN(TestCliModern)
#include "tst_climodern.moc"
