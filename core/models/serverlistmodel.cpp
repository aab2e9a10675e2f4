#include "serverlistmodel.h"

#include "engine/engine.h"
#include "recovery/circuitbreaker.h"

#include <QDateTime>

namespace mcpscope {

namespace {
/// Anchored to the wall clock once per state change, so every read (and every view) agrees on the
/// same instant.
qint64 cooldownEndOf(const CircuitBreaker* breaker)
{
    return breaker->state() == CircuitBreaker::State::Open
        ? QDateTime::currentMSecsSinceEpoch() + breaker->remainingCooldownMs()
        : 0;
}

/// The live session finished its opening (initialize or server/discover), so its era is decided.
bool eraDetected(const ServerConnection* c)
{
    const ClientSession* session = c->session();
    const auto state = c->state();
    return session && !session->details().protocolVersion.isEmpty()
        && (state == ServerConnection::State::Ready || state == ServerConnection::State::Suspect);
}
} // namespace

ServerListModel::ServerListModel(Engine* engine, QObject* parent)
    : QAbstractTableModel(parent)
    , m_engine(engine)
{
    if (!engine)
        return;
    connect(engine, &Engine::serverAdded, this, &ServerListModel::addConnection);
    connect(engine, &Engine::serverRemoved, this, &ServerListModel::removeGone);
    for (ServerConnection* connection : engine->connections())
        addConnection(connection);
}

ServerListModel::~ServerListModel() = default;

Engine* ServerListModel::engine() const
{
    return m_engine;
}

ServerConnection* ServerListModel::connectionAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).guard.data() : nullptr;
}

int ServerListModel::rowOf(const ServerConnection* connection) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).connection == connection)
            return i;
    }
    return -1;
}

void ServerListModel::addConnection(ServerConnection* connection)
{
    if (!connection || rowOf(connection) >= 0)
        return;
    Row row;
    row.connection = connection;
    row.guard = connection;
    row.inFlight = connection->callsInFlight();
    row.cooldownEnd = cooldownEndOf(connection->breaker());
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
    m_rows.append(row);
    endInsertRows();

    const auto wholeRow = [this, connection] { rowChanged(connection, 0, ServerListModelColumn::Count - 1); };
    connect(connection, &ServerConnection::stateChanged, this, wholeRow);
    connect(connection, &ServerConnection::sessionCreated, this, wholeRow);
    connect(connection, &ServerConnection::ready, this, wholeRow);
    connect(connection, &ServerConnection::failed, this, wholeRow);
    connect(connection, &ServerConnection::eraDetected, this, wholeRow);
    if (ServerAuth* auth = connection->auth())
        connect(auth, &ServerAuth::stateChanged, this, wholeRow);
    connect(connection, &ServerConnection::callUpdated, this,
        [this, connection](const CallRecord& record) { onCallUpdated(connection, record); });
    connect(connection->breaker(), &CircuitBreaker::stateChanged, this,
        [this, connection] { onBreakerStateChanged(connection); });
    connect(connection->breaker(), &CircuitBreaker::failuresChanged, this, [this, connection] {
        rowChanged(connection, ServerListModelColumn::ConsecutiveFailures, ServerListModelColumn::ConsecutiveFailures);
    });
    connect(connection, &QObject::destroyed, this, [this, connection] {
        const int index = rowOf(connection);
        if (index >= 0)
            removeRow(index);
    });
}

void ServerListModel::removeGone()
{
    const QList<ServerConnection*> live = m_engine ? m_engine->connections() : QList<ServerConnection*>();
    for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
        if (!live.contains(m_rows.at(i).connection))
            removeRow(i);
    }
}

void ServerListModel::removeRow(int row)
{
    const Row& gone = m_rows.at(row);
    // Engine::removeServer deletes the connection later; until then it must not reach a stale row.
    if (gone.guard) {
        gone.guard->disconnect(this);
        gone.guard->breaker()->disconnect(this);
        if (gone.guard->auth())
            gone.guard->auth()->disconnect(this);
    }
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
}

void ServerListModel::rowChanged(const ServerConnection* connection, int firstColumn, int lastColumn)
{
    const int row = rowOf(connection);
    if (row >= 0)
        Q_EMIT dataChanged(index(row, firstColumn), index(row, lastColumn));
}

void ServerListModel::onBreakerStateChanged(ServerConnection* connection)
{
    const int index = rowOf(connection);
    if (index < 0)
        return;
    m_rows[index].cooldownEnd = cooldownEndOf(connection->breaker());
    rowChanged(connection, ServerListModelColumn::BreakerState, ServerListModelColumn::BreakerCooldownEnd);
}

void ServerListModel::onCallUpdated(ServerConnection* connection, const CallRecord& record)
{
    const int index = rowOf(connection);
    if (index < 0)
        return;
    Row& row = m_rows[index];
    const int inFlight = connection->callsInFlight();
    const bool finished = record.isFinished();
    if (!finished && inFlight == row.inFlight)
        return;
    row.inFlight = inFlight;
    if (finished) {
        ++row.calls;
        if (record.outcome != CallOutcome::Success && record.outcome != CallOutcome::Cancelled)
            ++row.failures;
        if (record.attempts.size() > 1)
            ++row.retries;
        if (record.outcome == CallOutcome::OutcomeUncertain)
            ++row.uncertain;
    }
    rowChanged(connection, ServerListModelColumn::Calls, ServerListModelColumn::InFlight);
}

int ServerListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ServerListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ServerListModelColumn::Count;
}

QVariant ServerListModel::columnValue(const Row& row, int column) const
{
    const ServerConnection* c = row.guard.data();
    const ClientSession* session = c->session();
    switch (column) {
    case ServerListModelColumn::Name:
        return c->name();
    case ServerListModelColumn::Transport:
        return int(session ? c->activeTransport() : c->config().transport);
    case ServerListModelColumn::State:
        return int(c->state());
    case ServerListModelColumn::SessionId:
        return c->shownSessionId();
    case ServerListModelColumn::ProtocolVersion:
        return session ? session->details().protocolVersion : QString();
    case ServerListModelColumn::BreakerState:
        return int(c->breaker()->state());
    case ServerListModelColumn::ConsecutiveFailures:
        return c->breaker()->consecutiveFailures();
    case ServerListModelColumn::BreakerCooldownEnd:
        return row.cooldownEnd;
    case ServerListModelColumn::Calls:
        return row.calls;
    case ServerListModelColumn::Failures:
        return row.failures;
    case ServerListModelColumn::Retries:
        return row.retries;
    case ServerListModelColumn::Uncertain:
        return row.uncertain;
    case ServerListModelColumn::InFlight:
        return row.inFlight;
    case ServerListModelColumn::Era:
        return int(eraDetected(c) ? session->details().era : c->config().era);
    default:
        return {};
    }
}

QVariant ServerListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows.at(index.row());
    ServerConnection* c = row.guard.data();
    if (!c)
        return {};
    const ClientSession* session = c->session();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return columnValue(row, index.column());
    case ServerListModelRole::ConnectionRole:
        return QVariant::fromValue(c);
    case ServerListModelRole::NameRole:
        return c->name();
    case ServerListModelRole::ConfiguredTransportRole:
        return int(c->config().transport);
    case ServerListModelRole::ActiveTransportRole:
        return columnValue(row, ServerListModelColumn::Transport);
    case ServerListModelRole::StateRole:
        return int(c->state());
    case ServerListModelRole::SessionIdRole:
        return c->shownSessionId();
    case ServerListModelRole::ProtocolVersionRole:
        return columnValue(row, ServerListModelColumn::ProtocolVersion);
    case ServerListModelRole::ServerInfoRole:
        return session ? session->details().serverInfo : QJsonObject();
    case ServerListModelRole::CapabilitiesRole:
        return session ? session->details().capabilities : QJsonObject();
    case ServerListModelRole::InstructionsRole:
        return session ? session->details().instructions : QString();
    case ServerListModelRole::LastErrorRole:
        return c->lastError();
    case ServerListModelRole::IdempotentReplayRole:
        return c->config().idempotentReplay;
    case ServerListModelRole::BreakerStateRole:
        return int(c->breaker()->state());
    case ServerListModelRole::ConsecutiveFailuresRole:
        return c->breaker()->consecutiveFailures();
    case ServerListModelRole::BreakerCooldownEndRole:
        return row.cooldownEnd;
    case ServerListModelRole::BreakerCooldownMsRole:
        return c->breaker()->settings().cooldownMs;
    case ServerListModelRole::BreakerThresholdRole:
        return c->breaker()->settings().threshold;
    case ServerListModelRole::AuthStateRole:
        return c->auth() ? int(c->auth()->state()) : -1;
    case ServerListModelRole::EraDetectedRole:
        return eraDetected(c);
    case ServerListModelRole::ConfiguredEraRole:
        return int(c->config().era);
    case ServerListModelRole::KnownEraRole:
        return c->config().knownEra ? int(*c->config().knownEra) : -1;
    default:
        return {};
    }
}

} // namespace mcpscope
