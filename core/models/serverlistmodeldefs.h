#pragma once

#include <Qt>

namespace mcpscope {

/// Columns of ServerListModel. Qt::DisplayRole and Qt::EditRole carry the raw value named here.
namespace ServerListModelColumn {
enum Column {
    Name, ///< QString
    Transport, ///< int: the TransportKind in use: activeTransport() once a session started, else the configured one
    State, ///< int: a ServerConnection::State
    SessionId, ///< QString: the session id (HTTP) or peer identity (stdio "pid:N"); empty without a session
    ProtocolVersion, ///< QString: what initialize negotiated; empty before
    BreakerState, ///< int: a CircuitBreaker::State
    ConsecutiveFailures, ///< int: the breaker's strike count
    /// qint64: when the open breaker's cooldown ends, ms since the epoch; 0 when it is not open. A view
    /// shows a live countdown from it without the model ticking. The breaker turns half-open only
    /// when the next call asks, so the state can still read Open after this time.
    BreakerCooldownEnd,
    Calls, ///< qint64: finished calls seen by this model
    Failures, ///< qint64: finished calls whose outcome is neither Success nor Cancelled
    Retries, ///< qint64: finished calls that needed more than one attempt
    Uncertain, ///< qint64: finished calls that ended outcome_uncertain
    InFlight, ///< int: calls not finished yet (ServerConnection::callsInFlight())
    /// int: a ProtocolEra: the one the session speaks once it is up (legacy or modern), else the configured
    /// one (auto until a probe decided). EraDetectedRole tells the two apart.
    Era,
    Count
};
} // namespace ServerListModelColumn

/// Roles of ServerListModel, the same value in every column of a row.
namespace ServerListModelRole {
enum Role {
    /// ServerConnection*, via QVariant::fromValue (a QObject pointer type, registered by Qt itself).
    /// Valid while the row exists; ServerListModel::connectionAt(row) is the typed equivalent.
    ConnectionRole = Qt::UserRole + 1,
    NameRole, ///< QString
    ConfiguredTransportRole, ///< int: the configured TransportKind (AutoHttp stays AutoHttp)
    ActiveTransportRole, ///< int: as the Transport column
    StateRole, ///< int: a ServerConnection::State
    SessionIdRole, ///< QString
    ProtocolVersionRole, ///< QString
    ServerInfoRole, ///< QJsonObject: initialize's serverInfo
    CapabilitiesRole, ///< QJsonObject: the server's capabilities
    InstructionsRole, ///< QString
    LastErrorRole, ///< QString: the last failure message naming the server
    IdempotentReplayRole, ///< bool: the idempotent-replay policy is on (RECOVERY.md §2: the UI shows it)
    BreakerStateRole, ///< int: a CircuitBreaker::State
    ConsecutiveFailuresRole, ///< int
    BreakerCooldownEndRole, ///< qint64 ms since the epoch, 0 when not open
    BreakerCooldownMsRole, ///< qint64: the configured cooldown length
    BreakerThresholdRole, ///< int: the configured strike threshold
    /// int: the ServerAuth::State of an HTTP server's OAuth, -1 without one (stdio). Changes with the
    /// ServerAuth's stateChanged.
    AuthStateRole,
    /// bool: the Era column is what the live session speaks (not only what the configuration asks for).
    EraDetectedRole,
    /// int: the ProtocolEra of the configuration (auto, legacy, modern); KnownEraRole: what the last probe
    /// found for an auto server (a ProtocolEra), -1 when none.
    ConfiguredEraRole,
    KnownEraRole,
};
} // namespace ServerListModelRole

} // namespace mcpscope
