#pragma once

#include "calllog/callrecord.h"
#include "serverlistmodeldefs.h"

#include <QAbstractTableModel>
#include <QList>
#include <QPointer>

namespace mcpscope {

class Engine;
class ServerConnection;

/// One row per ServerConnection of an Engine (DESIGN.md "State that the UI shows"), with raw values
/// only: see serverlistmodeldefs.h for the columns and roles.
///
/// Rows are inserted on Engine::serverAdded and removed on Engine::serverRemoved (or when the
/// connection is destroyed). dataChanged covers only the affected row: the whole row on the
/// connection's stateChanged, sessionCreated, ready and failed, and its ServerAuth's stateChanged; the breaker columns
/// on the breaker's stateChanged and failuresChanged; the counter columns (Calls..InFlight) on callUpdated. Counters
/// accumulate from callUpdated when a record finishes (ServerConnection publishes a finished record exactly once);
/// calls that finished before the model existed are not counted.
///
/// Not covered by any signal: a configuration replaced through Engine::addServer on an existing name
/// (ConfiguredTransportRole, IdempotentReplayRole and the breaker settings read the new values at
/// the next change of the row).
class ServerListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit ServerListModel(Engine* engine, QObject* parent = nullptr);
    ~ServerListModel() override;

    Engine* engine() const;
    /// The connection of a row, or nullptr for a row out of range.
    ServerConnection* connectionAt(int row) const;
    /// The row of a connection, or -1.
    int rowOf(const ServerConnection* connection) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        ServerConnection* connection = nullptr; ///< identity only; may dangle inside destroyed()
        QPointer<ServerConnection> guard;
        qint64 cooldownEnd = 0;
        qint64 calls = 0;
        qint64 failures = 0;
        qint64 retries = 0;
        qint64 uncertain = 0;
        int inFlight = 0;
    };

    void addConnection(ServerConnection* connection);
    void removeGone();
    void removeRow(int row);
    void rowChanged(const ServerConnection* connection, int firstColumn, int lastColumn);
    void onBreakerStateChanged(ServerConnection* connection);
    void onCallUpdated(ServerConnection* connection, const CallRecord& record);
    QVariant columnValue(const Row& row, int column) const;

    QPointer<Engine> m_engine;
    QList<Row> m_rows;
};

} // namespace mcpscope
