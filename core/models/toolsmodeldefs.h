#pragma once

#include <Qt>

namespace mcpscope {

/// What the engine does with a call to this tool when the session expires or the answer is lost:
/// RetryPolicy::isReplayable() for the tool's listing (annotations, listed more than once) and the
/// server's idempotent-replay policy.
enum class ExpiryBehaviour {
    RetryOnce, ///< replayable: sent again once after the reconnect
    NoReplayUncertain, ///< write-capable: never sent again; ends outcome_uncertain when it may have run
};

/// Columns of ToolsModel. Qt::DisplayRole and Qt::EditRole carry the raw value named here.
namespace ToolsModelColumn {
enum Column {
    Name, ///< QString
    Title, ///< QString: the tool's title, or annotations.title (ToolInfo::title)
    /// The four hint columns carry the annotation exactly as sent, QJsonValue::toVariant(): a bool
    /// normally, but whatever the server sent ("true", 1, null), and an invalid QVariant when absent.
    /// IsExplicitRole and EffectiveRole interpret it.
    ReadOnlyHint,
    DestructiveHint,
    IdempotentHint,
    OpenWorldHint,
    OnExpiry, ///< int: an ExpiryBehaviour
    TaskSupport, ///< int: a ToolInfo::TaskSupport (execution.taskSupport; 2025-11-25 tasks)
    /// The finished tools/calls of this tool on this server (CallMetrics; the model needs setMetrics()).
    /// Invalid QVariants before the first one ended.
    Calls, ///< int
    ErrorRate, ///< double, 0..1: the share that did not end ok
    P50, ///< double: latency in ms
    P99, ///< double: latency in ms
    Count
};
} // namespace ToolsModelColumn

/// Roles of ToolsModel.
namespace ToolsModelRole {
enum Role {
    /// Hint columns only: bool, the key is present in annotations (whatever its value).
    IsExplicitRole = Qt::UserRole + 1,
    /// Hint columns only: bool, what the hint means. A JSON bool counts as itself. Anything else,
    /// absent or not a bool ("true", 1, null), counts as absent and the spec default applies:
    /// readOnly false, destructive true, idempotent false, openWorld true. That fails safe and
    /// agrees with RECOVERY.md §2, where only the literal true makes a tool read-only or idempotent.
    EffectiveRole,
    ToolRole, ///< QJsonObject: the tool as tools/list sent it (ToolInfo::raw), for the composer
    ToolNameRole, ///< QString, every column
    DescriptionRole, ///< QString, every column
    ExpiryRole, ///< int: an ExpiryBehaviour, every column
    IdempotentReplayRole, ///< bool: the policy OnExpiry was derived with, every column
    /// bool, every column: the name appears more than once in the listing, so OnExpiry is
    /// NoReplayUncertain whatever this row's hints say (RECOVERY.md §2)
    ListedMoreThanOnceRole,
    /// QString, every column: why the client leaves this tool out (2026-07-28: invalid x-mcp-header
    /// annotations, ToolInfo::excludedReason); empty for a callable tool. Excluded rows come after the others.
    ExcludedReasonRole,
};
} // namespace ToolsModelRole

} // namespace mcpscope
