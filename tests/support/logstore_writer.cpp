// Appends finished call records to a LogStore until it is killed. Prints "finished N" once record
// N is committed, so tst_logstorecrash knows which records must survive a SIGKILL.
#include "calllog/logstore.h"

#include <QCoreApplication>
#include <QTimer>

#include <cstdio>

using namespace mcpscope;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: logstore_writer <database>\n");
        return 2;
    }
    LogStore store;
    QString error;
    if (!store.open(args.at(1), &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
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
