#pragma once

#include <Qt>

namespace mcpscope {

/// Columns of CallsModel. Qt::DisplayRole and Qt::EditRole carry the raw value named here; the
/// presentation proxy in ui/ turns it into text.
namespace CallsModelColumn {
enum Column {
    Time, ///< qint64: when the call started, ms since the epoch
    Server, ///< QString: the server's name
    Tool, ///< QString: the tool of a tools/call, otherwise the method ("resources/read")
    Duration, ///< qint64 ms; an invalid QVariant while the call is pending (see StartedAtRole)
    Attempts, ///< int: how many times the request went (or was meant to go) out; 0 before the first
    Rule, ///< QString: "R1".."R9", empty for a first-try success
    Outcome, ///< int: a CallOutcome
    Count
};
} // namespace CallsModelColumn

/// Roles of CallsModel, the same value in every column of a row.
namespace CallsModelRole {
enum Role {
    OutcomeRole = Qt::UserRole + 1, ///< int: a CallOutcome
    RuleRole, ///< QString: "R1".."R9" or empty
    ServerRole, ///< QString
    ToolRole, ///< QString: the tool, or the method for a request that is not a tools/call
    IsToolCallRole, ///< bool: the request is a tools/call (ToolRole then holds the tool's name)
    CallIdRole, ///< QString: the call id of CallRecord::callId
    StartedAtRole, ///< qint64 ms since the epoch
    DurationRole, ///< qint64 ms, or an invalid QVariant while pending
    AttemptsRole, ///< int
    HealedRole, ///< bool: a reconnect healed the transport during the call
    InputDeclinedRole, ///< bool: the server asked for input (elicitation) and McpScope declined
};
} // namespace CallsModelRole

} // namespace mcpscope
