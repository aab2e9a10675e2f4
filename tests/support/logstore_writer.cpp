// Child process for tst_logstorecrash: writes to a LogStore until the test SIGKILLs it (or tells it
// to finish). Three modes:
//
//   logstore_writer DB
//       Appends synthetic finished call records. Prints "finished N" once record N is committed.
//   logstore_writer --ledger DB NODE LEDGER_PEER_SCRIPT LEDGER_FILE
//       A real Engine with one stdio ServerConnection to the ledger peer, and a LogStore following the
//       engine (Engine::callUpdated and traffic), makes tools/call "write" requests, four at a time, forever. Once
//       a call has finished (its final CallRecord reached the store) AND the store has committed that
//       final version, prints "done CALL_ID".
//   logstore_writer --fsize-limit BYTES DB COUNT
//       Ignores SIGXFSZ and limits the size of any file it writes to BYTES (RLIMIT_FSIZE), so SQLite
//       hits a "full disk" without root. Appends COUNT finished records (about 900 bytes of JSON
//       each, not compressible) and prints "failed MESSAGE" for each LogStore::writeFailed, "appended
//       COUNT uncommitted K" when done appending. On the line "lift" on stdin it raises the limit
//       again and prints "lifted"; once everything is committed it prints "committed COUNT" and exits 0.
#include "calllog/logstore.h"
#include "engine/engine.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRandomGenerator>
#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <cstdio>
#include <functional>
#include <map>
#include <sys/resource.h>
#include <unistd.h>

using namespace mcpscope;

namespace {

void say(const QByteArray& line)
{
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

int runSynthetic(QCoreApplication& app, LogStore& store)
{
    // sequences[i] is the LogStore sequence of record i + 1; wire appends take sequences too.
    QList<qint64> sequences;
    qsizetype reported = 0;
    QObject::connect(&store, &LogStore::committed, &app, [&](qint64 upToSequence) {
        for (; reported < sequences.size() && sequences.at(reported) <= upToSequence; ++reported)
            std::printf("finished %lld\n", static_cast<long long>(reported + 1));
        std::fflush(stdout);
    });
    qint64 next = 0;
    // Records started in one tick finish in the next, so a kill always leaves calls in flight.
    QList<CallRecord> inFlight;
    QTimer pump;
    QObject::connect(&pump, &QTimer::timeout, &app, [&] {
        for (CallRecord& record : inFlight) {
            const qint64 n = record.arguments.value(QStringLiteral("sequence")).toInteger();
            record.attempts[0].endedAt = record.startedAt + 5;
            record.decisions.append(
                { 1, QStringLiteral("R1"), QStringLiteral("retry"), QStringLiteral("session expired") });
            CallAttempt second = record.attempts.at(0);
            second.number = 2;
            record.attempts.append(second);
            record.outcome = CallOutcome::Success;
            record.endedAt = record.startedAt + 10;
            record.result = QJsonObject { { QStringLiteral("echo"), n } };
            sequences.append(store.append(record));
            store.appendWire(record.server, WireDirection::Incoming, QByteArrayLiteral("{\"id\":1}"), record.endedAt);
        }
        inFlight.clear();
        for (int i = 0; i < 20; ++i) {
            ++next;
            CallRecord record;
            record.callId = QStringLiteral("call-%1").arg(next);
            record.server = QStringLiteral("writer");
            record.method = QStringLiteral("tools/call");
            record.tool = QStringLiteral("echo");
            record.startedAt = 1700000000000 + next;
            record.arguments = { { QStringLiteral("sequence"), next } };
            CallAttempt attempt;
            attempt.number = 1;
            attempt.requestId = QString::number(next);
            attempt.sentAt = record.startedAt;
            attempt.written = true;
            record.attempts.append(attempt);
            store.append(record);
            store.appendWire(record.server, WireDirection::Outgoing, QByteArrayLiteral("{\"id\":1}"), record.startedAt);
            inFlight.append(record);
        }
    });
    pump.start(1);
    return app.exec();
}

int runLedger(QCoreApplication& app, LogStore& store, const QStringList& args)
{
    constexpr int Concurrent = 4;
    Engine engine;
    QObject::connect(&engine, &Engine::callUpdated, &store, &LogStore::append);
    QObject::connect(&engine, &Engine::traffic, &store,
        [&store](const QString& server, WireDirection direction, const QByteArray& bytes) {
            store.appendWire(server, direction, bytes, QDateTime::currentMSecsSinceEpoch());
        });
    QObject::connect(&engine, &Engine::serverAdded, &store,
        [&store](ServerConnection* connection) { store.addServer(connection->config()); });
    ServerConfig config;
    config.name = QStringLiteral("ledger");
    config.transport = TransportKind::Stdio;
    config.command = args.at(0);
    config.args = { args.at(1), QStringLiteral("stdio"), args.at(2) };
    config.requestTimeoutMs = 20000;
    ServerConnection* connection = engine.addServer(config);

    // Finished calls whose final version the store has not confirmed yet: sequence -> call id. The final
    // callUpdated reaches LogStore::append (a direct connection) before the call's done callback runs,
    // so lastSequence() in the callback covers the final version.
    std::multimap<qint64, QString> awaitingCommit;
    QObject::connect(&store, &LogStore::committed, &app, [&](qint64 upToSequence) {
        while (!awaitingCommit.empty() && awaitingCommit.begin()->first <= upToSequence) {
            say("done " + awaitingCommit.begin()->second.toUtf8());
            awaitingCommit.erase(awaitingCommit.begin());
        }
    });
    QObject::connect(
        &store, &LogStore::writeFailed, &app, [](const QString& message) { say("failed " + message.toUtf8()); });

    int next = 0;
    std::function<void()> callOne = [&] {
        ++next;
        connection->callTool(QStringLiteral("write"), { { QStringLiteral("note"), QStringLiteral("n%1").arg(next) } },
            {}, [&](const CallRecord& record) {
                awaitingCommit.emplace(store.lastSequence(), record.callId);
                QTimer::singleShot(0, &app, callOne);
            });
    };
    QObject::connect(connection, &ServerConnection::ready, &app, [&] {
        say("ready");
        for (int i = 0; i < Concurrent; ++i)
            callOne();
    });
    QObject::connect(connection, &ServerConnection::failed, &app,
        [](const QString& message) { say("connection failed " + message.toUtf8()); });
    connection->connectToServer();
    return app.exec();
}

int runFsizeLimit(QCoreApplication& app, LogStore& store, qint64 limit, int count)
{
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit original {};
    getrlimit(RLIMIT_FSIZE, &original);
    rlimit limited = original;
    limited.rlim_cur = rlim_t(limit);
    if (setrlimit(RLIMIT_FSIZE, &limited) != 0) {
        say("cannot set RLIMIT_FSIZE");
        return 3;
    }
    QObject::connect(
        &store, &LogStore::writeFailed, &app, [](const QString& message) { say("failed " + message.toUtf8()); });

    bool lifted = false;
    int appended = 0;
    const auto finishIfDone = [&] {
        if (lifted && appended == count && store.committedSequence() >= store.lastSequence()) {
            say("committed " + QByteArray::number(count));
            QCoreApplication::exit(0);
        }
    };
    QObject::connect(&store, &LogStore::committed, &app, finishIfDone);

    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QByteArray buffered;
    QObject::connect(&input, &QSocketNotifier::activated, &app, [&] {
        char chunk[256];
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n <= 0) {
            input.setEnabled(false);
            return;
        }
        buffered.append(chunk, n);
        if (!lifted && buffered.contains("lift\n")) {
            if (setrlimit(RLIMIT_FSIZE, &original) != 0) {
                say("cannot lift RLIMIT_FSIZE");
                return;
            }
            lifted = true;
            say("lifted");
            store.flush();
            finishIfDone();
        }
    });

    // Random text defeats compression, so the records really take their size on disk.
    QRandomGenerator random(42);
    QTimer pump;
    QObject::connect(&pump, &QTimer::timeout, &app, [&] {
        for (int i = 0; i < 50 && appended < count; ++i) {
            ++appended;
            CallRecord record;
            record.callId = QStringLiteral("full-%1").arg(appended);
            record.server = QStringLiteral("writer");
            record.transport = QStringLiteral("stdio");
            record.method = QStringLiteral("tools/call");
            record.tool = QStringLiteral("echo");
            record.startedAt = 1700000000000 + appended;
            record.endedAt = record.startedAt + 4;
            QString noise;
            while (noise.size() < 480)
                noise += QString::number(random.generate64(), 36);
            record.arguments
                = { { QStringLiteral("sequence"), appended }, { QStringLiteral("noise"), noise.left(480) } };
            CallAttempt attempt;
            attempt.requestId = QString::number(appended);
            attempt.sentAt = record.startedAt;
            attempt.endedAt = record.endedAt;
            attempt.written = true;
            record.attempts.append(attempt);
            record.outcome = CallOutcome::Success;
            record.result = QJsonObject { { QStringLiteral("echo"), appended } };
            store.append(record);
        }
        if (appended == count) {
            pump.stop();
            store.flush();
            // Give the worker a moment to try (and fail) before reporting what still waits in memory.
            QTimer::singleShot(300, &app, [&] {
                say("appended " + QByteArray::number(appended) + " uncommitted "
                    + QByteArray::number(store.uncommittedCalls()));
                finishIfDone();
            });
        }
    });
    pump.start(5);
    return app.exec();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    QString mode;
    if (!args.isEmpty() && args.first().startsWith(QLatin1String("--")))
        mode = args.takeFirst();
    const bool usageOk = (mode.isEmpty() && args.size() == 1) || (mode == QLatin1String("--ledger") && args.size() == 4)
        || (mode == QLatin1String("--fsize-limit") && args.size() == 3);
    if (!usageOk) {
        std::fprintf(
            stderr, "usage: logstore_writer DB | --ledger DB NODE SCRIPT LEDGER | --fsize-limit BYTES DB COUNT\n");
        return 2;
    }
    const QString path = mode == QLatin1String("--fsize-limit") ? args.at(1) : args.at(0);
    LogStore store;
    QString error;
    if (!store.open(path, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    if (mode == QLatin1String("--ledger"))
        return runLedger(app, store, args.mid(1));
    if (mode == QLatin1String("--fsize-limit"))
        return runFsizeLimit(app, store, args.at(0).toLongLong(), args.at(2).toInt());
    return runSynthetic(app, store);
}
