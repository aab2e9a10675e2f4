#pragma once

// The log store's asynchronous reads, waited for in a test: each starts the read and runs the event loop
// until its answer arrives (QTest::qWaitFor, no fixed sleep).

#include "calllog/logstore.h"

#include <QObject>
#include <QTest>

#include <optional>

namespace mcpscope::testing {

namespace detail {
template <typename Result, typename Start> Result waitForRead(Start start)
{
    QObject context;
    std::optional<Result> answer;
    start(&context, [&answer](Result result) { answer = std::move(result); });
    if (!QTest::qWaitFor([&answer] { return answer.has_value(); }, 30000))
        return Result {};
    return std::move(*answer);
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
    QObject context;
    std::optional<bool> ok;
    store.flushThen(&context, [&](bool written, const QString& message) {
        ok = written;
        if (error)
            *error = message;
    });
    return QTest::qWaitFor([&ok] { return ok.has_value(); }, 30000) && *ok;
}

} // namespace mcpscope::testing
