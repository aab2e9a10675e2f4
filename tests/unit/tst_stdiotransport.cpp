#include "recovery/failureclassifier.h"
#include "transport/stdiotransport.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

using mcpscope::FailureKind;
namespace FailureClassifier = mcpscope::FailureClassifier;
using mcpscope::JsonRpcMessage;
using mcpscope::StdioTransport;
using mcpscope::TransportFailure;

namespace {

const QString ServerName = u"test-peer"_s;
constexpr qsizetype BigLineBytes = 50LL * 1024 * 1024;
// Generous: 50 MB through a pipe on a shared, loaded machine. Only an upper bound, never a timing assert.
constexpr int LongWaitMs = 60000;
constexpr int CloseWaitMs = 10000;

// Keeps the child up until its stdin closes, as a server would; an exit would fail the channel mid-test.
const QString StayUp = u"\nexec cat >/dev/null"_s;

StdioTransport::Options shellPeer(const QString& script)
{
    StdioTransport::Options options;
    options.serverName = ServerName;
    options.command = u"/bin/sh"_s;
    options.args = { u"-c"_s, script };
    options.exitWaitMs = 200;
    options.shutdownStepMs = 200;
    return options;
}

// One sh command per element, so each write (and each pause between writes) reads as its own line.
QString script(const QStringList& commands)
{
    return commands.join(u'\n');
}

QString nodePath()
{
    return QStringLiteral(MCPSCOPE_NODE);
}

bool haveNode()
{
    return QFileInfo(nodePath()).isExecutable();
}

StdioTransport::Options nodePeer(const QString& script, const QStringList& args = {})
{
    StdioTransport::Options options;
    options.serverName = ServerName;
    options.command = nodePath();
    options.args = QStringList { QStringLiteral(MCPSCOPE_SOURCE_DIR "/tests/unit/data/stdio/") + script } + args;
    options.exitWaitMs = 200;
    options.shutdownStepMs = 200;
    return options;
}

// The test makes itself a subreaper (initTestCase), so what a killed child leaves behind is reparented to us
// and reaped here. Otherwise a PID 1 that never reaps (common in containers) keeps zombies that kill(pid, 0)
// still finds, although nothing is running.
bool processGone(pid_t pid)
{
    ::waitpid(pid, nullptr, WNOHANG);
    return ::kill(pid, 0) == -1 && errno == ESRCH;
}

// Only after closed(): by then QProcess has reaped the leader, so waitpid() cannot steal it.
bool groupGone(pid_t group)
{
    while (::waitpid(-group, nullptr, WNOHANG) > 0) { }
    return ::kill(-group, 0) == -1 && errno == ESRCH;
}

// For the 50 MB lines. QTRY_* sleeps 10 ms between event loop passes, which throttles the pipe to one
// 64 KiB read per pass (8 s for 50 MB); QSignalSpy::wait runs a real event loop.
bool waitForCount(QSignalSpy& spy, int count, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (spy.count() < count && !deadline.hasExpired())
        spy.wait(int(std::max<qint64>(1, deadline.remainingTime())));
    return spy.count() >= count;
}

struct Spies
{
    explicit Spies(StdioTransport* transport)
        : opened(transport, &StdioTransport::opened)
        , messages(transport, &StdioTransport::messageReceived)
        , malformed(transport, &StdioTransport::malformedMessage)
        , logs(transport, &StdioTransport::serverLog)
        , failed(transport, &StdioTransport::channelFailed)
        , closed(transport, &StdioTransport::closed)
    { }

    JsonRpcMessage message(int i) const { return messages.at(i).at(0).value<JsonRpcMessage>(); }
    TransportFailure failure(int i) const { return failed.at(i).at(0).value<TransportFailure>(); }
    QString log(int i) const { return logs.at(i).at(0).toString(); }

    QStringList methods() const
    {
        QStringList result;
        for (int i = 0; i < messages.count(); ++i)
            result.append(message(i).method);
        return result;
    }

    QStringList logLines() const
    {
        QStringList result;
        for (int i = 0; i < logs.count(); ++i)
            result.append(log(i));
        return result;
    }

    QSignalSpy opened;
    QSignalSpy messages;
    QSignalSpy malformed; ///< reason, excerpt, id
    QSignalSpy logs;
    QSignalSpy failed;
    QSignalSpy closed;
};

} // namespace

class TestStdioTransport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void framing_data();
    void framing();
    void largeLineArrivesIntact();
    void largeLineComesBeforeTheExit();
    void floodIsHandledInSlices_data();
    void floodIsHandledInSlices();
    void oversizedLineIsReportedWithItsId_data();
    void oversizedLineIsReportedWithItsId();
    void stderrLinesBecomeServerLog();
    void environmentIsMinimal();
    void workingDirectoryIsHonoured();
    void missingCommandFailsToStart();
    void childExitFailsTheChannel_data();
    void childExitFailsTheChannel();
    void closeEndsTheChild_data();
    void closeEndsTheChild();
    void closeReachesGrandchildren();
    void largeRequestsAreWrittenWholeAndInOrder();
    void closeStdinFlushesWhatIsQueued();
    void writingToAClosedStdinIsNotFatal();
};

void TestStdioTransport::initTestCase()
{
    QVERIFY2(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0, "cannot become a child subreaper");
    QVERIFY(QFileInfo(u"/bin/sh"_s).isExecutable());
}

void TestStdioTransport::framing_data()
{
    QTest::addColumn<QString>("script"); ///< sh commands; printf gives exact bytes, sleep splits writes
    QTest::addColumn<QStringList>("methods"); ///< the messages expected, in order
    QTest::addColumn<int>("malformed");

    QTest::newRow("one message per line") << script(
        { uR"(printf '{"jsonrpc":"2.0","method":"a"}\n')"_s, uR"(printf '{"jsonrpc":"2.0","method":"b"}\n')"_s })
                                          << QStringList { u"a"_s, u"b"_s } << 0;
    QTest::newRow("several messages in one write")
        << uR"(printf '{"jsonrpc":"2.0","method":"a"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"c"}\n')"_s
        << QStringList { u"a"_s, QString(), u"c"_s } << 0;
    QTest::newRow("a message split across writes")
        << script({ uR"(printf '{"jsonrpc":')"_s, u"sleep 0.2"_s, uR"(printf '"2.0","meth')"_s, u"sleep 0.2"_s,
               uR"(printf 'od":"a"}')"_s, u"sleep 0.2"_s, uR"(printf '\n{"jsonrpc":"2.0","method":"b"}\n')"_s })
        << QStringList { u"a"_s, u"b"_s } << 0;
    QTest::newRow("the end of one message and a whole next one in one write")
        << script({ uR"(printf '{"jsonrpc":"2.0","me')"_s, u"sleep 0.2"_s,
               uR"(printf 'thod":"a"}\n{"jsonrpc":"2.0","method":"b"}\n{"jsonrpc":"2.0",')"_s, u"sleep 0.2"_s,
               uR"(printf '"method":"c"}\n')"_s })
        << QStringList { u"a"_s, u"b"_s, u"c"_s } << 0;
    QTest::newRow("a UTF-8 character split across writes")
        << script({ uR"(printf '{"jsonrpc":"2.0","method":"caf\303')"_s, u"sleep 0.2"_s, uR"(printf '\251"}\n')"_s })
        << QStringList { u"caf\u00e9"_s } << 0;
    QTest::newRow("CRLF line ends")
        << uR"(printf '{"jsonrpc":"2.0","method":"a"}\r\n{"jsonrpc":"2.0","method":"b"}\r\n')"_s
        << QStringList { u"a"_s, u"b"_s } << 0;
    QTest::newRow("blank lines ignored")
        << uR"(printf '\n\n{"jsonrpc":"2.0","method":"a"}\n\r\n   \n\t\n{"jsonrpc":"2.0","method":"b"}\n\n')"_s
        << QStringList { u"a"_s, u"b"_s } << 0;
    QTest::newRow("invalid UTF-8 byte inside a line")
        << uR"(printf '{"jsonrpc":"2.0","method":"bad","params":{"s":"\377"}}\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("lone UTF-8 continuation byte inside a line")
        << uR"(printf '{"jsonrpc":"2.0","method":"bad\200"}\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("truncated UTF-8 sequence inside a line")
        << uR"(printf '{"jsonrpc":"2.0","method":"bad\303"}\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("overlong UTF-8 encoding inside a line")
        << uR"(printf '{"jsonrpc":"2.0","method":"bad\300\257"}\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("UTF-16 surrogate encoded in UTF-8 inside a line")
        << uR"(printf '{"jsonrpc":"2.0","method":"bad\355\240\200"}\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("code point beyond U+10FFFF inside a line")
        << uR"(printf '{"jsonrpc":"2.0","method":"bad\364\220\200\200"}\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("non-JSON garbage line")
        << uR"(printf 'Server listening on stdio...\n{"jsonrpc":"2.0","method":"after"}\n')"_s
        << QStringList { u"after"_s } << 1;
    QTest::newRow("JSON that is not JSON-RPC")
        << uR"(printf '{"hello":"world"}\n[1,2]\n{"jsonrpc":"2.0","method":"after"}\n')"_s << QStringList { u"after"_s }
        << 2;
}

void TestStdioTransport::framing()
{
    QFETCH(QString, script);
    QFETCH(QStringList, methods);
    QFETCH(int, malformed);

    StdioTransport transport(shellPeer(script + StayUp));
    Spies spies(&transport);
    transport.open();

    QTRY_COMPARE(spies.messages.count(), methods.size());
    QCOMPARE(spies.methods(), methods);
    QCOMPARE(spies.malformed.count(), malformed);
    for (const QList<QVariant>& arguments : std::as_const(spies.malformed)) {
        QVERIFY2(arguments.at(0).toString().contains(ServerName), qPrintable(arguments.at(0).toString()));
        QVERIFY(!arguments.at(1).toByteArray().isEmpty());
    }
    QCOMPARE(spies.logs.count(), 0);
    QCOMPARE(spies.failed.count(), 0);
}

void TestStdioTransport::largeLineArrivesIntact()
{
    if (!haveNode())
        QFAIL("The pinned Node (MCPSCOPE_NODE) is missing; run make deps (npm ci in tests/peers).");
    StdioTransport::Options options = nodePeer(u"bigline.mjs"_s, { QString::number(BigLineBytes), u"tail"_s });
    options.maxMessageBytes = 64LL * 1024 * 1024;
    StdioTransport transport(options);
    Spies spies(&transport);
    transport.open();

    QVERIFY(waitForCount(spies.messages, 2, LongWaitMs));
    QCOMPARE(spies.malformed.count(), 0);
    const JsonRpcMessage big = spies.message(0);
    QCOMPARE(big.type, JsonRpcMessage::Type::Response);
    QCOMPARE(big.id, QJsonValue(7));
    const QString text = big.result.toObject().value(u"text"_s).toString();
    QCOMPARE(text.size(), BigLineBytes);
    QCOMPARE(text.count(u'x'), BigLineBytes);
    QCOMPARE(spies.message(1).method, u"after"_s);
    QCOMPARE(spies.failed.count(), 0);
}

void TestStdioTransport::largeLineComesBeforeTheExit()
{
    // A line of a MiB or more is parsed on a worker thread while reading waits. The server exits right
    // after it and a small line: both messages still come in order, and the exit only after them.
    if (!haveNode())
        QFAIL("The pinned Node (MCPSCOPE_NODE) is missing; run make deps (npm ci in tests/peers).");
    constexpr qsizetype Bytes = 3 * 1024 * 1024;
    StdioTransport transport(nodePeer(u"bigline.mjs"_s, { QString::number(Bytes), u"head"_s, u"flat"_s, u"exit"_s }));
    QStringList events;
    connect(&transport, &StdioTransport::messageReceived, this, [&events](const JsonRpcMessage& message) {
        events.append(message.method.isEmpty() ? u"answer "_s + message.id.toString() : message.method);
    });
    connect(&transport, &StdioTransport::channelFailed, this, [&events] { events.append(u"failed"_s); });
    connect(&transport, &StdioTransport::closed, this, [&events] { events.append(u"closed"_s); });
    Spies spies(&transport);
    transport.open();
    QVERIFY(QTest::qWaitFor([&] { return spies.failed.count() + spies.closed.count() > 0; }, LongWaitMs));
    QCOMPARE(events.mid(0, 3), (QStringList { u"answer big-1"_s, u"after"_s, events.value(2) }));
    QVERIFY2(events.value(2) == u"failed"_s || events.value(2) == u"closed"_s, qPrintable(events.join(u", "_s)));
    QCOMPARE(spies.message(0).result.toObject().value(u"text"_s).toString().size(), Bytes);
    QCOMPARE(spies.malformed.count(), 0);
}

void TestStdioTransport::floodIsHandledInSlices_data()
{
    QTest::addColumn<bool>("exits");
    QTest::newRow("the server stays up") << false;
    QTest::newRow("the server exits right after its last line") << true;
}

void TestStdioTransport::floodIsHandledInSlices()
{
    // 3000 notifications of about 90 bytes: some 700 in each 64 KiB read. Each costs the receiver at least
    // 50 µs here (a stand-in for the session, the views and the call log), so a whole read takes 35 ms or
    // more; handled in slices, the event loop runs between every hundred or so, in order, none lost.
    QFETCH(bool, exits);
    constexpr int Lines = 3000;
    const QString flood
        = uR"(awk 'BEGIN { for (i = 0; i < %1; i++) printf "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%d}}\n", i }')"_s
              .arg(Lines);
    StdioTransport transport(shellPeer(flood + (exits ? u"\nexit 3"_s : StayUp)));
    QList<int> data;
    int failedAfter = -1;
    connect(&transport, &StdioTransport::messageReceived, this, [&data](const JsonRpcMessage& message) {
        data.append(message.params.value("data"_L1).toInt());
        QThread::usleep(50);
    });
    connect(&transport, &StdioTransport::channelFailed, this, [&] { failedAfter = int(data.size()); });
    // A zero timer fires on every pass of the event loop: how many lines each pass handled.
    int seenAtLastPass = 0;
    int mostInOnePass = 0;
    QTimer pass;
    pass.setInterval(0);
    connect(&pass, &QTimer::timeout, this, [&] {
        mostInOnePass = std::max(mostInOnePass, int(data.size()) - seenAtLastPass);
        seenAtLastPass = int(data.size());
    });
    pass.start();
    transport.open();
    QTRY_COMPARE_WITH_TIMEOUT(data.size(), Lines, LongWaitMs);
    for (int i = 0; i < Lines; ++i)
        QCOMPARE(data.at(i), i);
    // At most 5 ms of handling (100 lines at 50 µs) and one line past it; far fewer than one read's 700.
    QVERIFY2(mostInOnePass <= 200, qPrintable(QString::number(mostInOnePass)));
    if (exits) {
        // The news of the exit comes after every line the server wrote before it.
        QTRY_COMPARE_WITH_TIMEOUT(failedAfter, Lines, LongWaitMs);
    } else {
        QCOMPARE(failedAfter, -1);
    }
}

void TestStdioTransport::oversizedLineIsReportedWithItsId_data()
{
    QTest::addColumn<QString>("idPosition");
    QTest::addColumn<bool>("nestedIds"); ///< the result ends with objects that carry an "id" of their own
    QTest::addColumn<QJsonValue>("id");

    QTest::newRow("id after the result, as the SDK writes it") << u"tail"_s << false << QJsonValue(7);
    QTest::newRow("id before the result") << u"head"_s << false << QJsonValue(u"big-1"_s);
    QTest::newRow("id after a result ending in objects with ids") << u"tail"_s << true << QJsonValue(7);
    QTest::newRow("id before a result ending in objects with ids") << u"head"_s << true << QJsonValue(u"big-1"_s);
}

void TestStdioTransport::oversizedLineIsReportedWithItsId()
{
    QFETCH(QString, idPosition);
    QFETCH(bool, nestedIds);
    QFETCH(QJsonValue, id);

    if (!haveNode())
        QFAIL("The pinned Node (MCPSCOPE_NODE) is missing; run make deps (npm ci in tests/peers).");
    QStringList args { QString::number(BigLineBytes), idPosition };
    if (nestedIds)
        args.append(u"nested"_s);
    StdioTransport::Options options = nodePeer(u"bigline.mjs"_s, args);
    options.maxMessageBytes = 1024 * 1024;
    StdioTransport transport(options);
    Spies spies(&transport);
    transport.open();

    QVERIFY(waitForCount(spies.messages, 1, LongWaitMs));
    QCOMPARE(spies.message(0).method, u"after"_s);
    QCOMPARE(spies.malformed.count(), 1);
    const QList<QVariant> report = spies.malformed.at(0);
    QVERIFY2(report.at(0).toString().contains(ServerName), qPrintable(report.at(0).toString()));
    const QByteArray excerpt = report.at(1).toByteArray();
    QVERIFY2(excerpt.startsWith("{\""), excerpt.constData());
    QVERIFY2(excerpt.size() <= 4096, "the excerpt must not carry the oversized line");
    QCOMPARE(report.at(2).value<QJsonValue>(), id);
    QCOMPARE(spies.failed.count(), 0);
}

void TestStdioTransport::stderrLinesBecomeServerLog()
{
    StdioTransport transport(shellPeer(
        script({ uR"(printf 'first line\n' >&2)"_s, uR"(printf 'second line\r\nthird ' >&2)"_s, u"sleep 0.2"_s,
            uR"(printf 'line\n' >&2)"_s, uR"(printf '{"jsonrpc":"2.0","method":"not-from-stderr"}\n' >&2)"_s,
            uR"(printf 'caf\303\251\n' >&2)"_s, uR"(printf '{"jsonrpc":"2.0","method":"done"}\n')"_s })
        + StayUp));
    Spies spies(&transport);
    transport.open();

    const QStringList expected { u"first line"_s, u"second line"_s, u"third line"_s,
        uR"({"jsonrpc":"2.0","method":"not-from-stderr"})"_s, u"caf\u00e9"_s };
    QTRY_COMPARE(spies.logs.count(), expected.size());
    QCOMPARE(spies.logLines(), expected);
    QTRY_COMPARE(spies.messages.count(), 1);
    QCOMPARE(spies.methods(), QStringList { u"done"_s });
    QCOMPARE(spies.malformed.count(), 0);
}

void TestStdioTransport::environmentIsMinimal()
{
    if (!haveNode())
        QFAIL("The pinned Node (MCPSCOPE_NODE) is missing; run make deps (npm ci in tests/peers).");
    QVERIFY(qEnvironmentVariableIsSet("PATH"));
    qputenv("MCPSCOPE_TEST_LEAK", "from the test's own environment");
    const auto unset = qScopeGuard([] { qunsetenv("MCPSCOPE_TEST_LEAK"); });

    StdioTransport::Options options = nodePeer(u"environment.mjs"_s);
    options.env.insert(u"MCPSCOPE_TEST_EXTRA"_s, u"from Options.env"_s);
    StdioTransport transport(options);
    Spies spies(&transport);
    transport.open();

    QTRY_COMPARE(spies.messages.count(), 1);
    const QJsonObject env = spies.message(0).params.value(u"env"_s).toObject();
    QCOMPARE(env.value(u"PATH"_s).toString(), qEnvironmentVariable("PATH"));
    QCOMPARE(env.value(u"MCPSCOPE_TEST_EXTRA"_s).toString(), u"from Options.env"_s);
    QVERIFY(!env.contains(u"MCPSCOPE_TEST_LEAK"_s));
    const QSet<QString> allowed { u"HOME"_s, u"LOGNAME"_s, u"PATH"_s, u"SHELL"_s, u"TERM"_s, u"USER"_s,
        u"MCPSCOPE_TEST_EXTRA"_s };
    for (const QString& name : env.keys())
        QVERIFY2(allowed.contains(name), qPrintable(u"the child saw "_s + name));
}

void TestStdioTransport::workingDirectoryIsHonoured()
{
    if (!haveNode())
        QFAIL("The pinned Node (MCPSCOPE_NODE) is missing; run make deps (npm ci in tests/peers).");
    QTemporaryDir dir;
    QVERIFY2(dir.isValid(), qPrintable(dir.errorString()));

    StdioTransport::Options options = nodePeer(u"environment.mjs"_s);
    options.cwd = dir.path();
    StdioTransport transport(options);
    Spies spies(&transport);
    transport.open();

    QTRY_COMPARE(spies.messages.count(), 1);
    QCOMPARE(spies.message(0).params.value(u"cwd"_s).toString(), QFileInfo(dir.path()).canonicalFilePath());
}

void TestStdioTransport::missingCommandFailsToStart()
{
    const QString command = u"mcpscope-no-such-server-4711"_s;
    StdioTransport::Options options;
    options.serverName = ServerName;
    options.command = command;
    options.args = { u"--stdio"_s };
    StdioTransport transport(options);
    Spies spies(&transport);
    transport.open();

    QTRY_COMPARE(spies.failed.count(), 1);
    const TransportFailure failure = spies.failure(0);
    QCOMPARE(FailureClassifier::kindOf(failure), FailureKind::NotSent);
    QVERIFY2(failure.message.contains(command), qPrintable(failure.message));
    QVERIFY2(failure.message.contains(ServerName), qPrintable(failure.message));
    QCOMPARE(spies.opened.count(), 0);

    // Closing what never started still finishes, so the caller's shutdown is not left waiting.
    transport.close();
    QTRY_COMPARE(spies.closed.count(), 1);
    QCOMPARE(spies.failed.count(), 1);
}

void TestStdioTransport::childExitFailsTheChannel_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("crashed");

    QTest::newRow("exit code 42") << u"exit 42"_s << 42 << false;
    QTest::newRow("exit code 3 after some output")
        << uR"(printf '{"jsonrpc":"2.0","method":"hello"}\n'; echo 'bye' >&2; exit 3)"_s << 3 << false;
    QTest::newRow("exit code 0 is still a lost channel") << u"exit 0"_s << 0 << false;
    QTest::newRow("killed by a signal") << u"kill -KILL $$"_s << -1 << true;
}

void TestStdioTransport::childExitFailsTheChannel()
{
    QFETCH(QString, script);
    QFETCH(int, exitCode);
    QFETCH(bool, crashed);

    StdioTransport transport(shellPeer(script));
    Spies spies(&transport);
    transport.open();

    QTRY_COMPARE(spies.failed.count(), 1);
    QCOMPARE(spies.opened.count(), 1);
    const TransportFailure failure = spies.failure(0);
    QCOMPARE(failure.crashed, crashed);
    QVERIFY2(failure.message.contains(ServerName), qPrintable(failure.message));
    if (!crashed) {
        QCOMPARE(failure.exitCode, exitCode);
        const QRegularExpression code(u"\\b%1\\b"_s.arg(exitCode));
        QVERIFY2(code.match(failure.message).hasMatch(), qPrintable(failure.message));
    }
}

void TestStdioTransport::closeEndsTheChild_data()
{
    QTest::addColumn<QString>("script");

    QTest::newRow("child exits when stdin closes") << u"exec cat >/dev/null"_s;
    QTest::newRow("child ignores stdin EOF") << u"while :; do sleep 1; done"_s;
    QTest::newRow("child ignores stdin EOF and SIGTERM") << u"trap '' TERM; while :; do sleep 1; done"_s;
}

void TestStdioTransport::closeEndsTheChild()
{
    QFETCH(QString, script);

    StdioTransport transport(shellPeer(script));
    Spies spies(&transport);
    transport.open();
    QTRY_COMPARE(spies.opened.count(), 1);
    const auto pid = pid_t(transport.processId());
    QVERIFY(pid > 0);
    QCOMPARE(transport.sessionId(), u"pid:"_s + QString::number(pid));
    QCOMPARE(::kill(pid, 0), 0);

    transport.close();
    QTRY_COMPARE_WITH_TIMEOUT(spies.closed.count(), 1, CloseWaitMs);
    QVERIFY(processGone(pid));
    QTRY_VERIFY(groupGone(pid));
    QCOMPARE(spies.failed.count(), 0);
}

void TestStdioTransport::closeReachesGrandchildren()
{
    // The background sleep shares the child's process group; only signalling the whole group ends it.
    StdioTransport transport(shellPeer(u"sleep 1000 & echo $! >&2; wait"_s));
    Spies spies(&transport);
    transport.open();
    QTRY_COMPARE(spies.logs.count(), 1);
    const auto pid = pid_t(transport.processId());
    bool ok = false;
    const auto grandchild = pid_t(spies.log(0).toInt(&ok));
    QVERIFY2(ok && grandchild > 0, qPrintable(spies.log(0)));
    QCOMPARE(::kill(grandchild, 0), 0);
    QCOMPARE(::getpgid(grandchild), pid);

    transport.close();
    QTRY_COMPARE_WITH_TIMEOUT(spies.closed.count(), 1, CloseWaitMs);
    QTRY_VERIFY(processGone(grandchild));
    QTRY_VERIFY(groupGone(pid));
    QCOMPARE(spies.failed.count(), 0);
}

namespace {
// A request too large for the pipe (64 KiB on Linux), so part of it waits for the child to read.
JsonRpcMessage bigRequest(int id, qsizetype bytes)
{
    return JsonRpcMessage::request(id, u"tools/call"_s, QJsonObject { { u"blob"_s, QString(bytes, u'x') } });
}
} // namespace

void TestStdioTransport::largeRequestsAreWrittenWholeAndInOrder()
{
    // The child reads nothing for a while, then echoes every line back: our requests return as its.
    StdioTransport transport(shellPeer(u"sleep 0.5; exec cat"_s));
    Spies spies(&transport);
    QSignalSpy written(&transport, &StdioTransport::requestWritten);
    transport.open();
    QTRY_COMPARE(spies.opened.count(), 1);

    constexpr qsizetype Big = 4 * 1024 * 1024;
    transport.send(bigRequest(1, Big));
    transport.send(JsonRpcMessage::notification(u"between"_s));
    transport.send(JsonRpcMessage::request(2, u"small"_s));
    // The pipe cannot hold 4 MiB, and nobody reads it yet: neither request is written whole.
    QCOMPARE(written.count(), 0);

    QVERIFY(waitForCount(spies.messages, 3, LongWaitMs));
    QCOMPARE(spies.methods(), (QStringList { u"tools/call"_s, u"between"_s, u"small"_s }));
    QCOMPARE(spies.message(0).id, QJsonValue(1));
    QCOMPARE(spies.message(0).params.value(u"blob"_s).toString().size(), Big);
    QCOMPARE(spies.message(2).id, QJsonValue(2));
    QCOMPARE(written.count(), 2);
    QCOMPARE(written.at(0).at(0).value<QJsonValue>(), QJsonValue(1));
    QCOMPARE(written.at(1).at(0).value<QJsonValue>(), QJsonValue(2));
    QCOMPARE(spies.malformed.count(), 0);
    QCOMPARE(spies.failed.count(), 0);
}

void TestStdioTransport::closeStdinFlushesWhatIsQueued()
{
    // cat ends at stdin's EOF: all it echoed before arrives, then the exit.
    StdioTransport transport(shellPeer(u"sleep 0.3; exec cat"_s));
    Spies spies(&transport);
    QSignalSpy written(&transport, &StdioTransport::requestWritten);
    transport.open();
    QTRY_COMPARE(spies.opened.count(), 1);

    constexpr qsizetype Big = 1024 * 1024;
    transport.send(bigRequest(1, Big));
    transport.send(JsonRpcMessage::request(2, u"last"_s));
    transport.closeWriteChannel();
    transport.send(JsonRpcMessage::request(3, u"after-close"_s)); // goes nowhere, like QProcess's closed channel

    QVERIFY(waitForCount(spies.failed, 1, LongWaitMs));
    QCOMPARE(spies.failure(0).exitCode, 0);
    QCOMPARE(spies.methods(), (QStringList { u"tools/call"_s, u"last"_s }));
    QCOMPARE(spies.message(0).params.value(u"blob"_s).toString().size(), Big);
    QCOMPARE(written.count(), 2);
}

void TestStdioTransport::writingToAClosedStdinIsNotFatal()
{
    // The child closes its stdin at once: our writes meet EPIPE, which must not raise SIGPIPE on us.
    StdioTransport transport(
        shellPeer(uR"(exec 0<&-; printf '{"jsonrpc":"2.0","method":"ready"}\n'; while :; do sleep 1; done)"_s));
    Spies spies(&transport);
    QSignalSpy written(&transport, &StdioTransport::requestWritten);
    transport.open();
    QTRY_COMPARE(spies.messages.count(), 1);

    transport.send(JsonRpcMessage::request(1, u"ping"_s));
    transport.send(bigRequest(2, 256 * 1024));
    transport.send(JsonRpcMessage::request(3, u"ping"_s));
    QCOMPARE(written.count(), 0);
    QCOMPARE(spies.failed.count(), 0);

    transport.close();
    QTRY_COMPARE_WITH_TIMEOUT(spies.closed.count(), 1, CloseWaitMs);
    QCOMPARE(spies.failed.count(), 0);
}

QTEST_GUILESS_MAIN(TestStdioTransport)

#include "tst_stdiotransport.moc"
