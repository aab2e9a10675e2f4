#include "callsummary.h"

#include <algorithm>

namespace mcpscope {

CallSummary CallSummary::of(const CallRecord& record)
{
    CallSummary summary;
    summary.callId = record.callId;
    summary.server = record.server;
    summary.tool = record.tool;
    summary.method = record.method;
    summary.rule = record.rule;
    summary.startedAt = record.startedAt;
    summary.endedAt = record.isFinished() ? std::max(record.endedAt, record.startedAt) : 0;
    summary.outcome = record.outcome;
    summary.attempts = int(record.attempts.size());
    summary.healed = record.healed;
    summary.inputDeclined = declinedInput(record);
    return summary;
}

bool CallSummary::declinedInput(const CallRecord& record)
{
    return std::any_of(record.events.cbegin(), record.events.cend(),
        [](const CallEvent& event) { return event.kind == DeclinedEventKind; });
}

} // namespace mcpscope
