// A one-shot mcpscope-cli command declares roots only when it has some to give (--root, a responses
// file's "roots", or the server's configured roots). server-everything, told of roots, asks for them and
// stays alive after stdin closes, so every one-shot command used to wait out the 2 s shutdown grace
// (issue 17: 2.3 s for a call whose result was ready at 0.16 s). server-everything registers
// get-roots-list only for a client that declares roots, so its tool list shows what was declared.
// A call whose elicitation was declined says so (issue 14: it printed as plain success).
// Once the answer is in, a server gets exitWaitMs (250 ms by default in the CLI, --exit-wait) to exit on
// its own after EOF, then SIGTERM: server-everything itself takes about 350 ms after EOF (issue 17's
// one-shot goal of 0.5 s). A preloaded witness notes, inside the real server, how it was ended.

#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

QString everythingCommand()
{
    return u'"' + QStringLiteral(MCPSCOPE_NODE) + u"\" \""_s + QStringLiteral(MCPSCOPE_PEERS_DIR)
        + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js\" stdio"_s;
}

// server-everything with a witness preloaded that writes "eof" and "sigterm" to witnessFile as they come.
QStringList witnessedEverything(const QString& witnessFile)
{
    return { u"--stdio"_s,
        u'"' + QStringLiteral(MCPSCOPE_NODE) + u"\" -r \""_s + QStringLiteral(MCPSCOPE_SOURCE_DIR)
            + u"/tests/unit/data/stdio/exit-witness.cjs\" \""_s + QStringLiteral(MCPSCOPE_PEERS_DIR)
            + u"/node_modules/@modelcontextprotocol/server-everything/dist/index.js\" stdio"_s,
        u"--env"_s, u"EXIT_WITNESS="_s + witnessFile };
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(no witness file)");
}

} // namespace

class TestCliOneShot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void noRootsDeclaredWithoutRoots()
    {
        const CliRun run = runCli({ u"--stdio"_s, everythingCommand(), u"tools"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        const QString out = QString::fromUtf8(run.out);
        QVERIFY2(out.contains(u"echo"_s), run.report().constData());
        // Sampling and elicitation stay declared (declined unless scripted), so their tools are listed.
        QVERIFY2(out.contains(u"trigger-sampling-request"_s), run.report().constData());
        QVERIFY2(!out.contains(u"get-roots-list"_s), run.report().constData());
    }

    void rootFlagDeclaresAndAnswersRoots()
    {
        const CliRun run = runCli({ u"--stdio"_s, everythingCommand(), u"--root"_s, u"file:///srv/project"_s, u"call"_s,
            u"get-roots-list"_s, u"{}"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        QVERIFY2(QString::fromUtf8(run.out).contains(u"file:///srv/project"_s), run.report().constData());
    }

    // With roots declared, server-everything stays up after EOF (it waits for its roots/list): the CLI
    // closes stdin, then ends it with SIGTERM once the short exit wait is over. Given a long --exit-wait,
    // server-everything (no roots declared) exits by itself after EOF: no SIGTERM. Both exit 0 with the answer.
    void howTheServerEnds_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QByteArray>("witnessed");
        QTest::newRow("stays up: SIGTERM after the exit wait")
            << QStringList { u"--root"_s, u"file:///srv/project"_s } << QByteArray("eof\nsigterm\n");
        QTest::newRow("a long --exit-wait: exits by itself")
            << QStringList { u"--exit-wait"_s, u"60000"_s } << QByteArray("eof\n");
    }

    void howTheServerEnds()
    {
        QFETCH(QStringList, options);
        QFETCH(QByteArray, witnessed);
        QTemporaryDir dir;
        const QString witness = dir.filePath(u"witness"_s);
        const CliRun run = runCli(
            witnessedEverything(witness) + options + QStringList { u"call"_s, u"echo"_s, u"{\"message\":\"hi\"}"_s });
        QVERIFY2(run.finished && run.exitCode == 0, run.report().constData());
        QVERIFY2(run.out.contains("Echo: hi"), run.report().constData());
        QCOMPARE(readAll(witness), witnessed);
    }

    void badExitWaitIsAUsageError()
    {
        const CliRun run = runCli({ u"--stdio"_s, everythingCommand(), u"--exit-wait"_s, u"-5"_s, u"tools"_s });
        QVERIFY2(run.finished && run.exitCode == 2, run.report().constData());
        QVERIFY2(run.err.contains("--exit-wait"), run.report().constData());
    }

    // A tool whose elicitation the CLI declined (nothing scripted) still succeeds, but the output says the
    // result was made without the input, as the app's calls list does; an accepted one says nothing of it.
    void declinedElicitationIsSaid()
    {
        const CliRun declined
            = runCli({ u"--stdio"_s, everythingCommand(), u"call"_s, u"trigger-elicitation-request"_s, u"{}"_s });
        QVERIFY2(declined.finished && declined.exitCode == 0, declined.report().constData());
        QVERIFY2(QString::fromUtf8(declined.out)
                     .startsWith(u"The server asked for input (elicitation/create) and it was declined"_s),
            declined.report().constData());

        const CliRun json = runCli(
            { u"--stdio"_s, everythingCommand(), u"--json"_s, u"call"_s, u"trigger-elicitation-request"_s, u"{}"_s });
        QVERIFY2(json.finished && json.exitCode == 0, json.report().constData());
        QVERIFY2(json.out.contains("\"inputDeclined\":true"), json.report().constData());

        const CliRun accepted = runCli({ u"--stdio"_s, everythingCommand(), u"--elicit"_s, u"accept"_s, u"call"_s,
            u"trigger-elicitation-request"_s, u"{}"_s });
        QVERIFY2(accepted.finished && accepted.exitCode == 0, accepted.report().constData());
        QVERIFY2(!accepted.out.contains("declined") && !accepted.out.contains("inputDeclined"),
            accepted.report().constData());
    }
};

QTEST_GUILESS_MAIN(TestCliOneShot)
#include "tst_clioneshot.moc"
