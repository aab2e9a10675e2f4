#include "toolsmodel.h"

#include "callmetrics.h"
#include "engine/serverconnection.h"

namespace mcpscope {

namespace {

struct Hint
{
    QLatin1String key;
    bool specDefault;
};

/// The spec's defaults for an absent hint (MCP ToolAnnotations).
Hint hintOf(int column)
{
    switch (column) {
    case ToolsModelColumn::ReadOnlyHint:
        return { QLatin1String("readOnlyHint"), false };
    case ToolsModelColumn::DestructiveHint:
        return { QLatin1String("destructiveHint"), true };
    case ToolsModelColumn::IdempotentHint:
        return { QLatin1String("idempotentHint"), false };
    case ToolsModelColumn::OpenWorldHint:
        return { QLatin1String("openWorldHint"), true };
    default:
        return { QLatin1String(), false };
    }
}

bool isHintColumn(int column)
{
    return column >= ToolsModelColumn::ReadOnlyHint && column <= ToolsModelColumn::OpenWorldHint;
}

} // namespace

ToolsModel::ToolsModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

ToolsModel::~ToolsModel() = default;

ServerConnection* ToolsModel::connection() const
{
    return m_connection;
}

void ToolsModel::setConnection(ServerConnection* connection)
{
    if (m_connection)
        m_connection->disconnect(this);
    m_connection = connection;
    if (connection) {
        connect(connection, &ServerConnection::toolsChanged, this, &ToolsModel::refresh);
        connect(connection, &ServerConnection::sessionCreated, this, &ToolsModel::refresh);
        connect(connection, &QObject::destroyed, this, [this] { show({}, PolicySettings {}); });
    }
    refresh();
}

void ToolsModel::setMetrics(CallMetrics* metrics)
{
    if (m_metrics)
        m_metrics->disconnect(this);
    m_metrics = metrics;
    if (metrics) {
        connect(metrics, &CallMetrics::changed, this, &ToolsModel::onMetricsChanged);
        connect(metrics, &CallMetrics::cleared, this, &ToolsModel::onMetricsChanged);
    }
    onMetricsChanged(m_connection ? m_connection->name() : QString());
}

void ToolsModel::onMetricsChanged(const QString& server)
{
    if (m_tools.isEmpty() || !m_connection || m_connection->name() != server)
        return;
    Q_EMIT dataChanged(index(0, ToolsModelColumn::Calls), index(int(m_tools.size()) - 1, ToolsModelColumn::P99));
}

void ToolsModel::setTools(const QList<ToolInfo>& tools, const PolicySettings& settings)
{
    if (m_connection)
        m_connection->disconnect(this);
    m_connection = nullptr;
    show(tools, settings);
}

void ToolsModel::refresh()
{
    if (!m_connection) {
        if (!m_tools.isEmpty())
            show({}, m_settings);
        return;
    }
    const ClientSession* session = m_connection->session();
    // The tools a modern session left out stay in view, after the usable ones, marked with their reason.
    show(session ? session->tools() + session->excludedTools() : QList<ToolInfo>(), m_connection->policy());
}

void ToolsModel::show(QList<ToolInfo> tools, const PolicySettings& settings)
{
    // An offline snapshot may never have been marked; a name listed twice is write-capable (§2).
    ToolInfo::markRepeatedNames(tools);
    bool sameNames = tools.size() == m_tools.size();
    for (qsizetype i = 0; sameNames && i < tools.size(); ++i)
        sameNames = tools.at(i).name == m_tools.at(i).name;
    if (!sameNames) {
        beginResetModel();
        m_tools = std::move(tools);
        m_settings = settings;
        endResetModel();
        return;
    }
    m_tools = std::move(tools);
    m_settings = settings;
    if (!m_tools.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_tools.size()) - 1, ToolsModelColumn::Count - 1));
}

int ToolsModel::rowOf(const QString& name) const
{
    for (int i = 0; i < m_tools.size(); ++i) {
        if (m_tools.at(i).name == name)
            return i;
    }
    return -1;
}

ExpiryBehaviour ToolsModel::expiryBehaviour(int row) const
{
    // The engine's own rule, never a copy of it. The row's listing is both the snapshot and the newest.
    return RetryPolicy::isReplayable(ToolListing::ofEntry(m_tools.at(row)), m_settings)
        ? ExpiryBehaviour::RetryOnce
        : ExpiryBehaviour::NoReplayUncertain;
}

int ToolsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_tools.size());
}

int ToolsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ToolsModelColumn::Count;
}

QVariant ToolsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ToolInfo& tool = m_tools.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (column) {
        case ToolsModelColumn::Name:
            return tool.name;
        case ToolsModelColumn::Title:
            return tool.title;
        case ToolsModelColumn::OnExpiry:
            return int(expiryBehaviour(index.row()));
        case ToolsModelColumn::TaskSupport:
            return int(tool.taskSupport);
        case ToolsModelColumn::Calls:
        case ToolsModelColumn::ErrorRate:
        case ToolsModelColumn::P50:
        case ToolsModelColumn::P99: {
            const CallStats* stats
                = m_metrics && m_connection ? m_metrics->toolStats(m_connection->name(), tool.name) : nullptr;
            if (!stats)
                return {};
            if (column == ToolsModelColumn::Calls)
                return stats->count();
            if (column == ToolsModelColumn::ErrorRate)
                return stats->errorRate();
            return stats->latency().percentile(column == ToolsModelColumn::P50 ? 50 : 99);
        }
        default:
            if (isHintColumn(column))
                return tool.annotations.value(hintOf(column).key).toVariant();
            return {};
        }
    case ToolsModelRole::IsExplicitRole:
        return isHintColumn(column) ? QVariant(tool.annotations.contains(hintOf(column).key)) : QVariant();
    case ToolsModelRole::EffectiveRole: {
        if (!isHintColumn(column))
            return {};
        const Hint hint = hintOf(column);
        const QJsonValue value = tool.annotations.value(hint.key);
        return value.isBool() ? value.toBool() : hint.specDefault;
    }
    case ToolsModelRole::ToolRole:
        return tool.raw;
    case ToolsModelRole::ToolNameRole:
        return tool.name;
    case ToolsModelRole::DescriptionRole:
        return tool.description;
    case ToolsModelRole::ExpiryRole:
        return int(expiryBehaviour(index.row()));
    case ToolsModelRole::IdempotentReplayRole:
        return m_settings.idempotentReplay;
    case ToolsModelRole::ListedMoreThanOnceRole:
        return tool.listedMoreThanOnce;
    case ToolsModelRole::ExcludedReasonRole:
        return tool.excludedReason;
    default:
        return {};
    }
}

} // namespace mcpscope
