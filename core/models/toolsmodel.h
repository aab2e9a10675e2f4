#pragma once

#include "recovery/retrypolicy.h"
#include "session/toolinfo.h"
#include "toolsmodeldefs.h"

#include <QAbstractTableModel>
#include <QList>
#include <QPointer>

namespace mcpscope {

class CallMetrics;
class ServerConnection;

/// The tools of one server's current session, one row per tool, with raw annotation values and the
/// derived OnExpiry column (DESIGN.md "Tools"): see toolsmodeldefs.h.
///
/// With a connection set, the list is read again from the session on toolsChanged (each completed
/// tools/list, including re-lists on list_changed) and on sessionCreated (a new session starts with
/// no tools until it lists them). A re-list with the same tool names in the same order updates the
/// rows in place with one dataChanged over all rows; any other change is a model reset.
///
/// The idempotent-replay policy is read from the connection's configuration at each re-list; after
/// replacing the configuration call refresh(), since ServerConnection has no signal for it.
class ToolsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit ToolsModel(QObject* parent = nullptr);
    ~ToolsModel() override;

    /// Shows connection's tools; nullptr shows none.
    void setConnection(ServerConnection* connection);
    ServerConnection* connection() const;
    /// Where the Calls, ErrorRate, P50 and P99 columns come from (the connection's server in it); they
    /// update when it says the server's figures changed.
    void setMetrics(CallMetrics* metrics);
    /// Shows a fixed list (an offline snapshot) and detaches from any connection.
    void setTools(const QList<ToolInfo>& tools, const PolicySettings& settings);

    const ToolInfo& tool(int row) const { return m_tools.at(row); }
    /// The row of a tool by name, or -1.
    int rowOf(const QString& name) const;
    ExpiryBehaviour expiryBehaviour(int row) const;
    const PolicySettings& policy() const { return m_settings; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

public Q_SLOTS:
    /// Reads the tools and the policy from the connection again.
    void refresh();

private:
    void show(QList<ToolInfo> tools, const PolicySettings& settings);

    void onMetricsChanged(const QString& server);

    QPointer<ServerConnection> m_connection;
    QPointer<CallMetrics> m_metrics;
    QList<ToolInfo> m_tools;
    PolicySettings m_settings;
};

} // namespace mcpscope
