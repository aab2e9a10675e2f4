// mcpscope-cli, run as a process, against peers that misbehave (tests/peers/*.mjs), commands that
// do not exist, and command lines that are wrong. Checks exit codes, messages and that nothing the
// CLI started outlives it.

#include "clirun.h"
#include "ledger.h"
#include "markerprocesses.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace mcpscope::test;

namespace {

QString quoted(const QString& path)
{
    return u'"' + path + u'"';
}

/// A --stdio command line that runs a peer script on the pinned Node.
QString nodeCommand(const QString& script, const QString& flags = {})
{
    QString command
        = quoted(QStringLiteral(MCPSCOPE_NODE)) + u' ' + quoted(QStringLiteral(MCPSCOPE_PEERS_DIR) + u'/' + script);
    if (!flags.isEmpty())
        command += u' ' + flags;
    return command;
}

QString everythingCommand()
{
    return nodeCommand(u"node_modules/@modelcontextprotocol/server-everything/dist/index.js"_s);
}

} // namespace

class TestCliBadInput : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void garbageBeforeTheServerIsOnlyAWarning();
    void onlyGarbageTimesOut();
    void unparsableAnswerFailsItsCallAtOnce_data();
    void unparsableAnswerFailsItsCallAtOnce();
    void exitDuringInitialize_data();
    void exitDuringInitialize();
    void neverAnsweringServerIsReaped_data();
    void neverAnsweringServerIsReaped();
    void commandThatDoesNotExist();
    void usageErrors_data();
    void usageErrors();
    void toolErrorExitsWithOne_data();
    void toolErrorExitsWithOne();
    void jsonOutputIsOneObjectPerCommand_data();
    void jsonOutputIsOneObjectPerCommand();
    void serverStderrGoesToFile();
    void callLogThatCannotBeWrittenIsReported();
    void toolsShowsANameListedTwiceAsWriteCapable();
    void toolsOnExpiryFollowsTheIdempotentReplayPolicy_data();
    void toolsOnExpiryFollowsTheIdempotentReplayPolicy();

private:
    QTemporaryDir m_dir;
    QString m_config; ///< an mcp.json naming the bad peers
    QString m_fifo; ///< a named pipe nobody writes to
};

void TestCliBadInput::initTestCase()
{
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_CLI)), MCPSCOPE_CLI);
    QVERIFY2(QFile::exists(QStringLiteral(MCPSCOPE_NODE)), "the pinned Node 22 is missing: npm ci in tests/peers");
    QVERIFY(m_dir.isValid());

    const QJsonObject servers {
        { u"exit-during-init"_s,
            QJsonObject { { u"command"_s, QStringLiteral(MCPSCOPE_NODE) },
                { u"args"_s,
                    QJsonArray { QString(QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/exit-during-init.mjs"_s) } } } },
    };
    m_config = m_dir.filePath(u"mcp.json"_s);
    QFile file(m_config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(QJsonObject { { u"mcpServers"_s, servers } }).toJson());
    m_fifo = m_dir.filePath(u"fifo.json"_s);
    QVERIFY2(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600) == 0, std::strerror(errno));
}

void TestCliBadInput::garbageBeforeTheServerIsOnlyAWarning()
{
    const CliRun run = runCli({ u"--stdio"_s, nodeCommand(u"garbage-stdout.mjs"_s), u"call"_s, u"echo"_s,
        uR"({"message": "through the noise"})"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 0, run.report());
    QVERIFY2(run.out.contains("Echo: through the noise"), run.report());
    // One warning per line of garbage the peer printed before the SDK server took over.
    QCOMPARE(run.err.count("warning: stdio server 'garbage-stdout' wrote a line that is not a JSON-RPC message"), 3);
}

void TestCliBadInput::onlyGarbageTimesOut()
{
    const CliRun run = runCli({ u"--stdio"_s, nodeCommand(u"garbage-stdout.mjs"_s, u"--only-garbage"_s), u"--timeout"_s,
        u"8"_s, u"tools"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 7, run.report());
    QVERIFY2(run.err.contains("did not answer initialize within 8 s"), run.report());
    // 8 s, not less: under load Node can take over 2 s to start and print its first garbage line.
    // The timeout explains itself: the server talked, just not JSON-RPC.
    QVERIFY2(run.err.contains("line(s) that are not JSON-RPC messages"), run.report());
    QVERIFY2(run.err.contains("answering with text instead"), run.report());
}

void TestCliBadInput::unparsableAnswerFailsItsCallAtOnce_data()
{
    QTest::addColumn<QString>("how");
    QTest::addColumn<QString>("problem"); ///< what the message says is wrong with the answer line
    QTest::newRow("invalid UTF-8") << u"utf8"_s << u"invalid UTF-8 at byte 45"_s;
    QTest::newRow("nesting deeper than Qt's JSON parser reads")
        << u"deep"_s << u"nesting deeper than the 1024 levels the JSON parser reads"_s;
}

// Issue 12: QJsonDocument refuses such a line whole, so its id was lost and the call waited for its
// deadline, a write ending outcome_uncertain. The server answered: the call is a protocol error at
// once (R8, not sent again), and the session goes on. bad-answers.mjs corrupts the SDK's serialized
// answer on the wire, a line no SDK server writes.
void TestCliBadInput::unparsableAnswerFailsItsCallAtOnce()
{
    QFETCH(QString, how);
    QFETCH(QString, problem);
    const Ledger ledger { m_dir.filePath(u"bad-answers-"_s + how + u".jsonl"_s) };
    const QString log = m_dir.filePath(u"bad-answers-log-"_s + how + u".jsonl"_s);
    const QString script = m_dir.filePath(u"bad-answers-"_s + how + u".txt"_s);
    QFile file(script);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("call answer-badly {\"how\": \"" + how.toUtf8() + "\"}\ncall echo {\"message\": \"still here\"}\n");
    file.close();
    // A deadline far beyond any run, so a call that waited for it could not pass as a protocol error.
    const CliRun run = runCli({ u"--stdio"_s, nodeCommand(u"bad-answers.mjs"_s, quoted(ledger.path)), u"--timeout"_s,
        u"600"_s, u"--log"_s, log, u"run"_s, script });
    QVERIFY2(run.finished && run.exitStatus == QProcess::NormalExit, run.report());
    QCOMPARE(run.exitCode, 4);

    const QList<QJsonObject> steps = run.objects();
    QCOMPARE(steps.size(), 2);
    const QJsonObject bad = steps.at(0);
    QCOMPARE(bad.value(u"outcome"_s).toString(), u"protocol_error"_s);
    QCOMPARE(bad.value(u"rule"_s).toString(), u"R8"_s);
    QCOMPARE(bad.value(u"attempts"_s).toInt(), 1);
    const QString message = bad.value(u"error"_s)[u"message"_s].toString();
    QVERIFY2(message.contains(u"stdio server 'bad-answers' wrote a line that is not a JSON-RPC message: "_s + problem
                 + u" in the answer to request "_s),
        qPrintable(message));
    QCOMPARE(steps.at(1).value(u"outcome"_s).toString(), u"success"_s);

    // The server ran the call exactly once, and the logged record says why it failed, not "timeout".
    QCOMPARE(ledger.runsOf(u"answer-badly"_s), 1);
    QCOMPARE(ledger.runsOf(u"echo"_s), 1);
    QFile logFile(log);
    QVERIFY(logFile.open(QIODevice::ReadOnly));
    const QJsonObject record = QJsonDocument::fromJson(logFile.readLine()).object();
    QCOMPARE(record.value(u"tool"_s).toString(), u"answer-badly"_s);
    QCOMPARE(record.value(u"outcome"_s).toString(), u"protocol_error"_s);
    const QJsonArray attempts = record.value(u"attempts"_s).toArray();
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.at(0)[u"failureKind"_s].toString(), u"protocol_error"_s);
    QCOMPARE(attempts.at(0)[u"requestId"_s].toString(),
        QString::number(ledger.entries().first().value(u"requestId"_s).toInteger()));
}

void TestCliBadInput::exitDuringInitialize_data()
{
    QTest::addColumn<QStringList>("selection");
    QTest::addColumn<QString>("serverName");
    QTest::newRow("--stdio command line, named after the script the launcher runs")
        << QStringList { u"--stdio"_s, nodeCommand(u"exit-during-init.mjs"_s) } << u"exit-during-init"_s;
    QTest::newRow("named server from an mcp.json")
        << QStringList { u"--server"_s, u"exit-during-init"_s, u"--config"_s, m_config } << u"exit-during-init"_s;
}

void TestCliBadInput::exitDuringInitialize()
{
    QFETCH(QStringList, selection);
    QFETCH(QString, serverName);
    const CliRun run = runCli(selection + QStringList { u"tools"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 4, run.report());
    QVERIFY2(run.err.contains(QByteArray("Server '" + serverName.toUtf8() + "' failed to initialize")), run.report());
    QVERIFY2(run.err.contains("exited with code 3"), run.report());
    // The peer's own stderr is passed through, prefixed with the server name.
    QVERIFY2(
        run.err.contains(QByteArray('[' + serverName.toUtf8() + "] exit-during-init: got initialize")), run.report());
    // The failure's message ends with the last lines of its stderr.
    QVERIFY2(run.err.contains("\nLast lines of stderr:\n  exit-during-init: got initialize, exiting with code 3\n"),
        run.report());
}

void TestCliBadInput::neverAnsweringServerIsReaped_data()
{
    QTest::addColumn<QString>("flags");
    QTest::addColumn<int>("processes");
    QTest::newRow("ends on SIGTERM") << QString() << 1;
    QTest::newRow("grandchild ignores SIGTERM, outlives the leader") << u"--spawn-grandchild"_s << 2;
    QTest::newRow("ignores SIGTERM, with a grandchild that does too") << u"--ignore-sigterm --spawn-grandchild"_s << 2;
}

void TestCliBadInput::neverAnsweringServerIsReaped()
{
    QFETCH(QString, flags);
    QFETCH(int, processes);
    using mcpscope::testsupport::processesWithMarker;
    const QString marker = mcpscope::testsupport::newMarker();
    QProcess process;
    startCli(process,
        { u"--stdio"_s, nodeCommand(u"never-answers.mjs"_s, flags), u"--env"_s,
            mcpscope::testsupport::markerVariable() + u'=' + marker, u"--timeout"_s, u"1"_s, u"tools"_s });

    // While the CLI runs, the marker finds the peer (and its grandchild): proof that the empty list
    // at the end means "reaped", not "never found". Even past the timeout the peer lives on for the
    // 2 s between closing its stdin and SIGTERM, so this cannot race the CLI.
    QByteArray err;
    const auto readErr = [&] {
        err += process.readAllStandardError();
        return err;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(readErr().contains("never-answers: ready"), err.constData(), CliRunTimeoutMs);
    QCOMPARE(processesWithMarker(marker).size(), processes);

    const CliRun run = finishCli(process, err);
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 7, run.report());
    QVERIFY2(run.err.contains("did not answer initialize within 1 s"), run.report());
    if (flags.contains(u"--ignore-sigterm"_s))
        QVERIFY2(run.err.contains("never-answers: ignoring SIGTERM"), run.report());
    // The CLI exits right after its last SIGKILL to the group; the kernel may need a moment to
    // finish the killed processes off, which is why this waits rather than checks once.
    QTRY_VERIFY2_WITH_TIMEOUT(
        processesWithMarker(marker).isEmpty(), qPrintable(processesWithMarker(marker).join(u"; "_s)), 2000);
}

void TestCliBadInput::commandThatDoesNotExist()
{
    const CliRun run = runCli({ u"--stdio"_s, u"/nonexistent/mcp-server-xyz --flag"_s, u"tools"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 4, run.report());
    QVERIFY2(run.err.contains("/nonexistent/mcp-server-xyz"), run.report());
    QVERIFY2(run.err.contains("failed to start"), run.report());
}

void TestCliBadInput::usageErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expectedMessage");
    const QString everything = everythingCommand();
    QTest::newRow("no command") << QStringList { u"--stdio"_s, everything } << u"no command given"_s;
    QTest::newRow("unknown command") << QStringList { u"--stdio"_s, everything, u"frobnicate"_s }
                                     << u"unknown command 'frobnicate'"_s;
    QTest::newRow("no server selected") << QStringList { u"tools"_s } << u"choose the server with exactly one of"_s;
    // Each numeric value a double parser takes but no timeout is: before, these all became 0 s.
    for (const QString& value : { u"soon"_s, u"nan"_s, u"inf"_s, u"-inf"_s, u"1e300"_s, u"1e-9"_s, u"-1"_s, u"0"_s })
        QTest::addRow("--timeout %s", qPrintable(value))
            << QStringList { u"--stdio"_s, everything, u"--timeout"_s, value, u"tools"_s }
            << u"--timeout needs a number of seconds from 0.001 to 2147483, not '"_s + value + u'\'';
    for (const QString& option : { u"--listen"_s, u"--control"_s }) {
        for (const QString& value : { u"nan"_s, u"65536"_s, u"-1"_s, u"80.5"_s, u"port"_s })
            QTest::addRow("proxy %s %s", qPrintable(option), qPrintable(value))
                << QStringList { u"proxy"_s, u"--upstream"_s, u"http://127.0.0.1:1/mcp"_s, option, value }
                << option + u" needs a port number from 0 to 65535, not '"_s + value + u'\'';
    }
    QTest::newRow("arguments that are not JSON") << QStringList { u"--stdio"_s, everything, u"call"_s, u"echo"_s,
        u"{message: oops"_s } << u"arguments must be a JSON object"_s;
    QTest::newRow("arguments that are JSON but not an object") << QStringList { u"--stdio"_s, everything, u"call"_s,
        u"echo"_s, u"[1, 2]"_s } << u"arguments must be a JSON object"_s;
    const QString missing = m_dir.filePath(u"missing.json"_s);
    QTest::newRow("config file that does not exist")
        << QStringList { u"--server"_s, u"x"_s, u"--config"_s, missing, u"tools"_s } << missing;
    QTest::newRow("server the config does not have") << QStringList { u"--server"_s, u"x"_s, u"--config"_s, m_config,
        u"tools"_s } << u"has no server named 'x' (it has: exit-during-init)"_s;
    QTest::newRow("--server without --config")
        << QStringList { u"--server"_s, u"x"_s, u"tools"_s } << u"--server needs --config FILE"_s;
    // A FIFO without a writer used to block open() before the event loop, deaf to SIGTERM; a
    // directory or a device is no configuration either. Each is refused at once, by name.
    QTest::newRow("config that is a FIFO") << QStringList { u"--server"_s, u"x"_s, u"--config"_s, m_fifo, u"tools"_s }
                                           << m_fifo + u": cannot open the file: it is a FIFO (named pipe)"_s;
    QTest::newRow("config that is a directory") << QStringList { u"--server"_s, u"x"_s, u"--config"_s, m_dir.path(),
        u"tools"_s } << m_dir.path() + u": cannot open the file: it is a directory"_s;
    QTest::newRow("config that is a character device") << QStringList { u"--server"_s, u"x"_s, u"--config"_s,
        u"/dev/zero"_s, u"tools"_s } << u"/dev/zero: cannot open the file: it is a character device"_s;
    QTest::newRow("responses file that is a FIFO") << QStringList { u"--stdio"_s, everything, u"--responses"_s, m_fifo,
        u"tools"_s } << u"cannot read responses file "_s + m_fifo + u": it is a FIFO"_s;
    QTest::newRow("run script that is a FIFO") << QStringList { u"--stdio"_s, everything, u"run"_s, m_fifo }
                                               << u"cannot read script "_s + m_fifo + u": it is a FIFO"_s;
    const QString out = m_dir.filePath(u"export.jsonl"_s);
    for (const auto& [what, log] : { std::pair { u"missing"_s, missing }, std::pair { u"a directory"_s, m_dir.path() },
             std::pair { u"a FIFO"_s, m_fifo } })
        QTest::addRow("export of a log that is %s", qPrintable(what)) << QStringList { u"export"_s, log, u"--format"_s,
            u"jsonl"_s, u"--out"_s, out } << u"mcpscope-cli export: cannot read "_s + log;
}

void TestCliBadInput::usageErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expectedMessage);
    const CliRun run = runCli(arguments);
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 2, run.report());
    QVERIFY2(run.err.contains(expectedMessage.toUtf8()), run.report());
}

void TestCliBadInput::toolErrorExitsWithOne_data()
{
    QTest::addColumn<QStringList>("call");
    QTest::newRow("unknown tool") << QStringList { u"no-such-tool"_s, u"{}"_s };
    QTest::newRow("arguments the input schema rejects") << QStringList { u"get-sum"_s, uR"({"a": "x"})"_s };
}

void TestCliBadInput::toolErrorExitsWithOne()
{
    QFETCH(QStringList, call);
    const CliRun run = runCli(QStringList { u"--stdio"_s, everythingCommand(), u"call"_s } + call);
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 1, run.report());
    QVERIFY2(run.out.contains("The tool reported an error (isError: true)"), run.report());
    QVERIFY2(run.out.contains("-32602"), run.report());
}

void TestCliBadInput::jsonOutputIsOneObjectPerCommand_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("resultKey"); ///< a key the result object must have
    QTest::newRow("info") << QStringList { u"info"_s } << 0 << true << u"serverInfo"_s;
    QTest::newRow("tools") << QStringList { u"tools"_s } << 0 << true << u"tools"_s;
    QTest::newRow("call") << QStringList { u"call"_s, u"echo"_s, uR"({"message": "json"})"_s } << 0 << true
                          << u"content"_s;
    QTest::newRow("call that returns isError")
        << QStringList { u"call"_s, u"no-such-tool"_s } << 1 << true << u"isError"_s;
    QTest::newRow("prompts") << QStringList { u"prompts"_s } << 0 << true << u"prompts"_s;
    QTest::newRow("complete") << QStringList { u"complete"_s, u"prompt"_s, u"completable-prompt"_s, u"department"_s,
        u"S"_s } << 0 << true << u"completion"_s;
    QTest::newRow("read of an unknown resource")
        << QStringList { u"read"_s, u"demo://resource/no-such-thing"_s } << 4 << false << QString();
}

void TestCliBadInput::jsonOutputIsOneObjectPerCommand()
{
    QFETCH(QStringList, command);
    QFETCH(int, exitCode);
    QFETCH(bool, ok);
    QFETCH(QString, resultKey);
    const CliRun run = runCli(QStringList { u"--stdio"_s, everythingCommand(), u"--json"_s } + command);
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == exitCode, run.report());

    QVERIFY2(run.out.endsWith('\n'), run.report());
    QCOMPARE(run.out.count('\n'), 1);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    QVERIFY2(doc.isObject(), qPrintable(error.errorString()));
    const QJsonObject object = doc.object();
    QCOMPARE(object.value(u"command"_s).toString(), command.first());
    QCOMPARE(object.value(u"ok"_s), QJsonValue(ok));
    if (ok) {
        QVERIFY2(object.value(u"result"_s).toObject().contains(resultKey), run.out.constData());
    } else {
        QCOMPARE(object.value(u"exitCode"_s).toInt(), exitCode);
        QVERIFY(!object.value(u"message"_s).toString().isEmpty());
        QCOMPARE(object.value(u"error"_s)[u"code"_s].toInt(), -32602);
    }
}

void TestCliBadInput::serverStderrGoesToFile()
{
    const QString logFile = m_dir.filePath(u"server-stderr.log"_s);
    const CliRun run = runCli({ u"--stdio"_s, everythingCommand(), u"--stderr"_s, logFile, u"tools"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 0, run.report());
    QVERIFY2(run.out.contains("echo"), run.report());

    QFile log(logFile);
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QByteArray logged = log.readAll();
    QVERIFY2(logged.contains("Starting default (STDIO) server..."), logged.constData());
    QVERIFY2(!run.err.contains("Starting default (STDIO) server..."), run.report());
}

// --log on a device that takes nothing (disk full): the call still runs and prints its result, and
// stderr says once which log could not be written and why, instead of losing the lines silently.
void TestCliBadInput::callLogThatCannotBeWrittenIsReported()
{
    if (!QFileInfo::exists(u"/dev/full"_s))
        QSKIP("no /dev/full here");
    const CliRun run = runCli({ u"--stdio"_s, everythingCommand(), u"--log"_s, u"/dev/full"_s, u"call"_s, u"echo"_s,
        uR"({"message": "kept"})"_s });
    QVERIFY2(run.finished, run.report());
    QVERIFY2(run.exitStatus == QProcess::NormalExit && run.exitCode == 0, run.report());
    QVERIFY2(run.out.contains("Echo: kept"), run.report());
    QVERIFY2(run.err.contains("cannot write the call log /dev/full: No space left on device"), run.report());
    QCOMPARE(run.err.count("cannot write the call log"), 1);
}

// Issue 10 (fresh annotations): a server that lists a tool name twice, first readOnlyHint true, then
// false. "on expiry" must not trust the first entry: both say no replay (RECOVERY.md §2).
void TestCliBadInput::toolsShowsANameListedTwiceAsWriteCapable()
{
    const CliRun run = runCli(
        { u"--stdio"_s, nodeCommand(u"ledger-peer.mjs"_s, u"stdio "_s + quoted(m_dir.filePath(u"ledger.jsonl"_s))),
            u"--env"_s, u"LEDGER_PEER_LIST_TWICE=1"_s, u"tools"_s });
    QVERIFY2(run.finished && run.exitStatus == QProcess::NormalExit && run.exitCode == 0, run.report());
    const QByteArray twice = "listed-twice\n";
    QCOMPARE(run.out.count(twice), 2);
    qsizetype at = 0;
    for (int entry = 0; entry < 2; ++entry) {
        at = run.out.indexOf(twice, at) + twice.size();
        const QByteArray expiry = run.out.mid(run.out.indexOf("on expiry:", at)).split('\n').first();
        QVERIFY2(expiry.contains("no replay (listed more than once"), run.report());
    }
    // A read-only tool listed once is still retried.
    const QByteArray read = run.out.mid(run.out.indexOf("read\n")).split('\n').value(3);
    QVERIFY2(read.contains("on expiry:   retry once"), run.report());
}

void TestCliBadInput::toolsOnExpiryFollowsTheIdempotentReplayPolicy_data()
{
    QTest::addColumn<bool>("idempotentReplay");
    QTest::addColumn<QByteArray>("setOnExpiry"); ///< the "on expiry" line of the idempotent tool "set"
    QTest::newRow("policy off: an idempotent write is not replayed")
        << false << QByteArray("on expiry:   no replay (outcome uncertain)");
    QTest::newRow("policy on: an idempotent write is retried once") << true << QByteArray("on expiry:   retry once");
}

// RECOVERY.md §2: `tools` says what the engine would do, so it reads the same predicate and the same
// idempotent-replay policy (from the workspace) as the decision table.
void TestCliBadInput::toolsOnExpiryFollowsTheIdempotentReplayPolicy()
{
    QFETCH(bool, idempotentReplay);
    QFETCH(QByteArray, setOnExpiry);
    const QJsonObject ledger { { u"command"_s, QStringLiteral(MCPSCOPE_NODE) },
        { u"args"_s,
            QJsonArray { QString(QStringLiteral(MCPSCOPE_PEERS_DIR) + u"/ledger-peer.mjs"_s), u"stdio"_s,
                m_dir.filePath(u"policy-ledger.jsonl"_s) } },
        { u"idempotentReplay"_s, idempotentReplay } };
    const QString workspace = m_dir.filePath(u"policy.mcpscope.json"_s);
    QFile file(workspace);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QJsonDocument(
        QJsonObject { { u"mcpscopeWorkspace"_s, 1 }, { u"servers"_s, QJsonObject { { u"ledger"_s, ledger } } } })
                   .toJson());
    file.close();

    const CliRun run = runCli({ u"--server"_s, u"ledger"_s, u"--config"_s, workspace, u"tools"_s });
    QVERIFY2(run.finished && run.exitStatus == QProcess::NormalExit && run.exitCode == 0, run.report());
    // Each tool is a block: its name on a line of its own, then its "on expiry" line.
    const QByteArray out = '\n' + run.out;
    auto onExpiry = [&out](const QByteArray& tool) {
        const qsizetype at = out.indexOf(QByteArray('\n' + tool + '\n'));
        return at < 0 ? QByteArray() : out.mid(out.indexOf("on expiry:", at)).split('\n').first();
    };
    QCOMPARE(onExpiry("set"), setOnExpiry);
    // The policy widens replay to idempotent tools only: a plain write stays write-capable.
    QCOMPARE(onExpiry("write"), QByteArray("on expiry:   no replay (outcome uncertain)"));
}

QTEST_GUILESS_MAIN(TestCliBadInput)
#include "tst_clibadinput.moc"
