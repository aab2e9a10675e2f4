#pragma once

#include "calllog/callrecord.h"

#include <QString>

namespace mcpscope {

/// A call without its payloads: the columns of the calls table. The calls model keeps these in memory,
/// the log store writes them next to each stored record (and reads them back as an earlier session's
/// history), and CSV exports write them.
struct CallSummary
{
    QString callId;
    QString server;
    QString tool; ///< the tool of a tools/call (see label())
    QString method;
    QString rule;
    qint64 startedAt = 0;
    qint64 endedAt = 0; ///< 0 while pending
    CallOutcome outcome = CallOutcome::Pending;
    int attempts = 0;
    bool healed = false; ///< not stored by the log store: false in an earlier session's history
    /// The server asked for input during the call (elicitation/create) and McpScope declined: the result
    /// is what the tool does without it. Not stored by the log store either.
    bool inputDeclined = false;

    /// The kind of the CallEvent that marks a declined elicitation.
    static constexpr QLatin1String DeclinedEventKind { "declined" };
    /// A request the server sent the client during the call (sampling, elicitation, roots), or its answer.
    static constexpr QLatin1String ServerRequestEventKind { "server request" };
    static bool declinedInput(const CallRecord& record);

    bool isToolCall() const { return method == QLatin1String("tools/call"); }
    /// The calls table's "tool" column: the tool name of a tools/call, otherwise the method.
    QString label() const { return isToolCall() && !tool.isEmpty() ? tool : method; }
    qint64 durationMs() const { return endedAt > startedAt ? endedAt - startedAt : 0; }

    static CallSummary of(const CallRecord& record);
};

} // namespace mcpscope
