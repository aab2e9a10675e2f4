#pragma once

// The log store's asynchronous reads, waited for in a test: each starts the read and runs a local event
// loop that the answer quits. Not QTest::qWaitFor: it sleeps 10 ms between polls, and a test that reads
// thousands of records one by one (tst_logstorecrash) then spends minutes asleep and, on a loaded
// machine, hits its ctest timeout.

#include "calllog/logstore.h"

#include <QEventLoop>
#include <QObject>
#include <QTimer>

#include <optional>

namespace mcpscope::testing {

namespace detail {
/// Runs a local event loop until done() has set the answer, or 30 s have passed.
template <typename Result, typename Start> std::optional<Result> waitFor(Start start)
{
    QEventLoop loop;
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    std::optional<Result> answer;
    start(&loop, [&answer, &loop](Result result) {
        answer = std::move(result);
        loop.quit();
    });
    if (!answer)
        loop.exec();
    return answer;
}

template <typename Result, typename Start> Result waitForRead(Start start)
{
    return waitFor<Result>(start).value_or(Result {});
}
} // namespace detail

inline std::optional<CallRecord> readRecord(const LogStore& store, const QString& callId)
{
    return detail::waitForRead<std::optional<CallRecord>>(
        [&](QObject* context, auto done) { store.readRecord(callId, context, done); });
}

inline QList<CallSummary> readRecentCalls(const LogStore& store, int limit)
{
    return detail::waitForRead<QList<CallSummary>>(
        [&](QObject* context, auto done) { store.readRecentCalls(limit, context, done); });
}

inline qint64 readCallCount(const LogStore& store)
{
    return detail::waitForRead<qint64>([&](QObject* context, auto done) { store.readCallCount(context, done); });
}

inline qint64 readWireCount(const LogStore& store)
{
    return detail::waitForRead<qint64>([&](QObject* context, auto done) { store.readWireCount(context, done); });
}

inline std::optional<QByteArray> readWirePayload(const LogStore& store, qint64 id)
{
    return detail::waitForRead<std::optional<QByteArray>>(
        [&](QObject* context, auto done) { store.readWirePayload(id, context, done); });
}

/// LogStore::flushThen(), waited for: true when everything appended so far is committed.
inline bool flushAndWait(LogStore& store, QString* error = nullptr)
{
    const std::optional<bool> ok = detail::waitFor<bool>([&](QObject* context, auto done) {
        store.flushThen(context, [&, done](bool written, const QString& message) {
            if (error)
                *error = message;
            done(written);
        });
    });
    return ok.value_or(false);
}

} // namespace mcpscope::testing
