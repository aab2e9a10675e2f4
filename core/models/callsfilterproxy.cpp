#include "callsfilterproxy.h"

#include "callsmodel.h"

#include <algorithm>

namespace mcpscope {

namespace {
constexpr int OutcomeCount = int(CallOutcome::Interrupted) + 1;

/// Whether text can occur in a canonical lowercase UUID; if not, no UUID call id needs converting.
bool canOccurInUuid(const QString& text)
{
    return std::all_of(text.cbegin(), text.cend(), [](QChar c) {
        const char16_t u = c.toLower().unicode();
        return (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'f') || u == u'-';
    });
}
} // namespace

CallsFilterProxy::CallsFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setDynamicSortFilter(true);
}

void CallsFilterProxy::setSourceModel(QAbstractItemModel* model)
{
    if (sourceModel())
        disconnect(sourceModel(), &QAbstractItemModel::modelAboutToBeReset, this, &CallsFilterProxy::forgetMatches);
    m_calls = qobject_cast<CallsModel*>(model);
    forgetMatches();
    // A reset clears the model's string table, so cached matches by index would point elsewhere.
    if (model)
        connect(model, &QAbstractItemModel::modelAboutToBeReset, this, &CallsFilterProxy::forgetMatches);
    QSortFilterProxyModel::setSourceModel(model);
}

void CallsFilterProxy::setServers(const QSet<QString>& servers)
{
    m_servers = servers;
    refilter();
}

void CallsFilterProxy::setTools(const QSet<QString>& tools)
{
    m_tools = tools;
    refilter();
}

void CallsFilterProxy::setOutcomes(const QList<CallOutcome>& outcomes)
{
    m_outcomeMask = 0;
    for (CallOutcome outcome : outcomes)
        m_outcomeMask |= 1U << unsigned(outcome);
    refilter();
}

QList<CallOutcome> CallsFilterProxy::outcomes() const
{
    QList<CallOutcome> outcomes;
    for (int i = 0; i < OutcomeCount; ++i) {
        if (m_outcomeMask & (1U << unsigned(i)))
            outcomes.append(CallOutcome(i));
    }
    return outcomes;
}

void CallsFilterProxy::setSearchText(const QString& text)
{
    m_text = text;
    m_textCanMatchUuid = canOccurInUuid(text);
    m_outcomeTextMask = 0;
    for (int i = 0; i < OutcomeCount; ++i) {
        if (matchesText(outcomeName(CallOutcome(i))))
            m_outcomeTextMask |= 1U << unsigned(i);
    }
    refilter();
}

void CallsFilterProxy::clearFilters()
{
    m_servers.clear();
    m_tools.clear();
    m_outcomeMask = 0;
    m_text.clear();
    m_outcomeTextMask = 0;
    refilter();
}

void CallsFilterProxy::refilter()
{
    forgetMatches();
    // invalidate(), not invalidateFilter(): the latter removes and inserts each changed range of rows
    // one by one, O(rows x ranges), which is minutes for an interleaved filter over 10^6 rows; this
    // rebuilds the mapping in one O(rows) pass behind a layout change (bench_calllog).
    invalidate();
}

void CallsFilterProxy::forgetMatches()
{
    m_serverMatch.clear();
    m_toolMatch.clear();
    m_textMatch.clear();
}

bool CallsFilterProxy::matchesText(const QString& candidate) const
{
    return candidate.contains(m_text, Qt::CaseInsensitive);
}

bool CallsFilterProxy::cached(
    std::vector<qint8>& cache, quint32 index, bool (CallsFilterProxy::*test)(quint32) const) const
{
    if (index >= cache.size())
        cache.resize(size_t(index) + 1, Unknown);
    if (cache[index] == Unknown)
        cache[index] = (this->*test)(index) ? Yes : No;
    return cache[index] == Yes;
}

bool CallsFilterProxy::serverAccepted(quint32 index) const
{
    return m_servers.contains(m_calls->string(index));
}

bool CallsFilterProxy::toolAccepted(quint32 index) const
{
    return m_tools.contains(m_calls->string(index));
}

bool CallsFilterProxy::textAccepted(quint32 index) const
{
    return matchesText(m_calls->string(index));
}

bool CallsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    if (sourceParent.isValid())
        return false;
    if (!m_calls)
        return acceptsByRoles(sourceRow);
    const CallsModel::Row& row = m_calls->callRow(sourceRow);
    if (m_outcomeMask && !(m_outcomeMask & (1U << row.outcome)))
        return false;
    if (!m_servers.isEmpty() && !cached(m_serverMatch, row.server, &CallsFilterProxy::serverAccepted))
        return false;
    if (!m_tools.isEmpty() && !cached(m_toolMatch, row.tool, &CallsFilterProxy::toolAccepted))
        return false;
    if (m_text.isEmpty())
        return true;
    if ((m_outcomeTextMask & (1U << row.outcome)) || cached(m_textMatch, row.server, &CallsFilterProxy::textAccepted)
        || cached(m_textMatch, row.tool, &CallsFilterProxy::textAccepted)
        || cached(m_textMatch, row.rule, &CallsFilterProxy::textAccepted))
        return true;
    if ((row.flags & CallsModel::Row::ForeignId) || m_textCanMatchUuid)
        return matchesText(m_calls->callId(sourceRow));
    return false;
}

bool CallsFilterProxy::acceptsByRoles(int sourceRow) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0);
    const int outcome = index.data(CallsModelRole::OutcomeRole).toInt();
    if (m_outcomeMask && !(m_outcomeMask & (1U << unsigned(outcome))))
        return false;
    const QString server = index.data(CallsModelRole::ServerRole).toString();
    if (!m_servers.isEmpty() && !m_servers.contains(server))
        return false;
    const QString tool = index.data(CallsModelRole::ToolRole).toString();
    if (!m_tools.isEmpty() && !m_tools.contains(tool))
        return false;
    if (m_text.isEmpty())
        return true;
    return (m_outcomeTextMask & (1U << unsigned(outcome))) || matchesText(server) || matchesText(tool)
        || matchesText(index.data(CallsModelRole::RuleRole).toString())
        || matchesText(index.data(CallsModelRole::CallIdRole).toString());
}

bool CallsFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    if (!m_calls || left.column() != right.column())
        return QSortFilterProxyModel::lessThan(left, right);
    const CallsModel::Row& a = m_calls->callRow(left.row());
    const CallsModel::Row& b = m_calls->callRow(right.row());
    switch (left.column()) {
    case CallsModelColumn::Time:
        return a.startedAt < b.startedAt;
    case CallsModelColumn::Server:
        return m_calls->string(a.server) < m_calls->string(b.server);
    case CallsModelColumn::Tool:
        return m_calls->string(a.tool) < m_calls->string(b.tool);
    case CallsModelColumn::Duration:
        // Pending calls (-1) sort before every finished one.
        return a.durationMs < b.durationMs;
    case CallsModelColumn::Attempts:
        return a.attempts < b.attempts;
    case CallsModelColumn::Rule:
        return m_calls->string(a.rule) < m_calls->string(b.rule);
    case CallsModelColumn::Outcome:
        return a.outcome < b.outcome;
    default:
        return QSortFilterProxyModel::lessThan(left, right);
    }
}

} // namespace mcpscope
