#include "callsfilterproxy.h"

#include "callsmodel.h"

#include <algorithm>
#include <utility>

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

template <typename T> int compareValues(const T& left, const T& right)
{
    return left < right ? -1 : (right < left ? 1 : 0);
}
} // namespace

CallsFilterProxy::CallsFilterProxy(QObject* parent)
    : QAbstractProxyModel(parent)
{ }

CallsFilterProxy::~CallsFilterProxy() = default;

void CallsFilterProxy::setSourceModel(QAbstractItemModel* model)
{
    beginResetModel();
    for (const QMetaObject::Connection& connection : std::as_const(m_connections))
        disconnect(connection);
    m_connections.clear();
    m_calls = qobject_cast<CallsModel*>(model);
    forgetMatches();
    QAbstractProxyModel::setSourceModel(model);
    if (model) {
        using M = QAbstractItemModel;
        using P = CallsFilterProxy;
        m_connections = {
            connect(model, &M::rowsAboutToBeInserted, this, &P::sourceRowsAboutToBeInserted),
            connect(model, &M::rowsInserted, this, &P::sourceRowsInserted),
            connect(model, &M::rowsAboutToBeRemoved, this, &P::sourceRowsAboutToBeRemoved),
            connect(model, &M::rowsRemoved, this, &P::sourceRowsRemoved),
            connect(model, &M::dataChanged, this, &P::sourceDataChanged),
            connect(model, &M::headerDataChanged, this, &P::sourceHeaderDataChanged),
            // A reset clears the model's string table, so cached matches by index would point elsewhere.
            connect(model, &M::modelAboutToBeReset, this, &P::beginSourceReset),
            connect(model, &M::modelReset, this, &P::endSourceReset),
            connect(model, &M::layoutAboutToBeChanged, this, &P::beginSourceReset),
            connect(model, &M::layoutChanged, this, &P::endSourceReset),
            connect(model, &M::rowsAboutToBeMoved, this, &P::beginSourceReset),
            connect(model, &M::rowsMoved, this, &P::endSourceReset),
            connect(model, &M::columnsAboutToBeInserted, this, &P::beginSourceReset),
            connect(model, &M::columnsInserted, this, &P::endSourceReset),
            connect(model, &M::columnsAboutToBeRemoved, this, &P::beginSourceReset),
            connect(model, &M::columnsRemoved, this, &P::endSourceReset),
            connect(model, &M::columnsAboutToBeMoved, this, &P::beginSourceReset),
            connect(model, &M::columnsMoved, this, &P::endSourceReset),
        };
    }
    m_resetting = false;
    rebuild();
    endResetModel();
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

void CallsFilterProxy::sort(int column, Qt::SortOrder order)
{
    m_sortColumn = std::max(column, -1);
    m_sortOrder = order;
    changeLayout([this] { rebuild(); });
}

bool CallsFilterProxy::filtered() const
{
    return !m_servers.isEmpty() || !m_tools.isEmpty() || m_outcomeMask != 0 || !m_text.isEmpty();
}

void CallsFilterProxy::refilter()
{
    forgetMatches();
    if (!m_mapped && !filtered() && m_sortColumn < 0)
        return;
    // One O(rows) pass behind one layout change, as QSortFilterProxyModel::invalidate() does: removing
    // and inserting each changed range one by one is O(rows x ranges), minutes for an interleaved
    // filter over 10^6 rows (bench_calllog).
    changeLayout([this] { rebuild(); });
}

void CallsFilterProxy::forgetMatches()
{
    m_serverMatch.clear();
    m_toolMatch.clear();
    m_textMatch.clear();
}

bool CallsFilterProxy::accepts(int sourceRow) const
{
    if (!filtered())
        return true;
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

int CallsFilterProxy::compareRows(int left, int right) const
{
    if (!m_calls) {
        const QVariant a = sourceModel()->index(left, m_sortColumn).data();
        const QVariant b = sourceModel()->index(right, m_sortColumn).data();
        const QPartialOrdering order = QVariant::compare(a, b);
        if (order == QPartialOrdering::Less)
            return -1;
        if (order == QPartialOrdering::Greater)
            return 1;
        return order == QPartialOrdering::Equivalent ? 0 : a.toString().compare(b.toString());
    }
    const CallsModel::Row& a = m_calls->callRow(left);
    const CallsModel::Row& b = m_calls->callRow(right);
    const auto compareStrings
        = [this](quint32 x, quint32 y) { return x == y ? 0 : m_calls->string(x).compare(m_calls->string(y)); };
    switch (m_sortColumn) {
    case CallsModelColumn::Time:
        return compareValues(a.startedAt, b.startedAt);
    case CallsModelColumn::Server:
        return compareStrings(a.server, b.server);
    case CallsModelColumn::Tool:
        return compareStrings(a.tool, b.tool);
    case CallsModelColumn::Duration:
        // Pending calls (-1) sort before every finished one.
        return compareValues(a.durationMs, b.durationMs);
    case CallsModelColumn::Attempts:
        return compareValues(a.attempts, b.attempts);
    case CallsModelColumn::Rule:
        return compareStrings(a.rule, b.rule);
    case CallsModelColumn::Outcome:
        return compareValues(a.outcome, b.outcome);
    default:
        return 0;
    }
}

bool CallsFilterProxy::before(int left, int right) const
{
    if (m_sortColumn >= 0) {
        const int order = compareRows(left, right);
        if (order != 0)
            return m_sortOrder == Qt::AscendingOrder ? order < 0 : order > 0;
    }
    return left < right;
}

void CallsFilterProxy::rebuild()
{
    std::deque<int>().swap(m_proxyToSource);
    std::deque<int>().swap(m_sourceToProxy);
    m_mapped = filtered() || m_sortColumn >= 0;
    if (!m_mapped || !sourceModel())
        return;
    const int rows = sourceModel()->rowCount();
    m_sourceToProxy.assign(size_t(rows), -1);
    for (int row = 0; row < rows; ++row) {
        if (accepts(row))
            m_proxyToSource.push_back(row);
    }
    if (m_sortColumn >= 0)
        sortInProxyOrder(m_proxyToSource);
    indexShownRows();
}

void CallsFilterProxy::merge(const std::vector<int>& leaving, std::vector<int> joining)
{
    for (int row : leaving)
        m_sourceToProxy[size_t(row)] = -1;
    const size_t joined = joining.size();
    // Sorted, the rows that stay need not be in order yet: a flush changes every row before it signals
    // the first of its runs of changed rows, so rows of the runs still to come may hold new keys. Such
    // strays are taken out here too (of two rows out of order, the one that does not fit after the row
    // kept before them) and merged back with the rest; the rows kept are sorted by construction.
    if (m_sortColumn >= 0) {
        int kept = -1;
        int keptBefore = -1;
        for (int row : m_proxyToSource) {
            if (m_sourceToProxy[size_t(row)] < 0)
                continue;
            if (kept < 0 || !before(row, kept)) {
                keptBefore = std::exchange(kept, row);
                continue;
            }
            const int stray = keptBefore < 0 || !before(row, keptBefore) ? std::exchange(kept, row) : row;
            joining.push_back(stray);
            m_sourceToProxy[size_t(stray)] = -1;
        }
    }
    if (joining.size() > joined)
        sortInProxyOrder(joining);
    std::deque<int> merged;
    auto next = joining.cbegin();
    for (int row : m_proxyToSource) {
        if (m_sourceToProxy[size_t(row)] < 0)
            continue;
        for (; next != joining.cend() && before(*next, row); ++next)
            merged.push_back(*next);
        merged.push_back(row);
    }
    merged.insert(merged.end(), next, joining.cend());
    m_proxyToSource.swap(merged);
    indexShownRows();
}

template <typename Rows> void CallsFilterProxy::sortInProxyOrder(Rows& rows) const
{
    std::sort(rows.begin(), rows.end(), [this](int a, int b) { return before(a, b); });
}

void CallsFilterProxy::indexShownRows()
{
    for (size_t shown = 0; shown < m_proxyToSource.size(); ++shown)
        m_sourceToProxy[size_t(m_proxyToSource[shown])] = int(shown);
}

template <typename Change> void CallsFilterProxy::changeLayout(Change change)
{
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList from = persistentIndexList();
    std::vector<int> rows;
    rows.reserve(size_t(from.size()));
    for (const QModelIndex& index : from)
        rows.push_back(mapToSource(index).row());
    change();
    QModelIndexList to;
    to.reserve(from.size());
    for (qsizetype i = 0; i < from.size(); ++i) {
        const int row = rows[size_t(i)];
        to.append(row < 0 ? QModelIndex() : mapFromSource(sourceModel()->index(row, from.at(i).column())));
    }
    changePersistentIndexList(from, to);
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

bool CallsFilterProxy::joinAtEnd(const std::vector<int>& joining) const
{
    return m_proxyToSource.empty() || before(m_proxyToSource.back(), joining.front());
}

void CallsFilterProxy::appendRows(const std::vector<int>& joining)
{
    const int first = int(m_proxyToSource.size());
    beginInsertRows({}, first, first + int(joining.size()) - 1);
    for (int row : joining) {
        m_sourceToProxy[size_t(row)] = int(m_proxyToSource.size());
        m_proxyToSource.push_back(row);
    }
    endInsertRows();
}

void CallsFilterProxy::sourceRowsAboutToBeInserted(const QModelIndex& parent, int first, int last)
{
    if (parent.isValid() || m_resetting)
        return;
    if (!m_mapped)
        beginInsertRows({}, first, last);
    else if (first != int(m_sourceToProxy.size()))
        beginSourceReset();
}

void CallsFilterProxy::sourceRowsInserted(const QModelIndex& parent, int first, int last)
{
    if (parent.isValid())
        return;
    if (m_resetting) {
        endSourceReset();
        return;
    }
    if (!m_mapped) {
        endInsertRows();
        return;
    }
    m_sourceToProxy.resize(size_t(last) + 1, -1);
    std::vector<int> joining;
    for (int row = first; row <= last; ++row) {
        if (accepts(row))
            joining.push_back(row);
    }
    if (joining.empty())
        return;
    if (m_sortColumn >= 0)
        sortInProxyOrder(joining);
    if (joinAtEnd(joining))
        appendRows(joining);
    else
        changeLayout([&] { merge({}, joining); });
}

void CallsFilterProxy::sourceRowsAboutToBeRemoved(const QModelIndex& parent, int first, int last)
{
    if (parent.isValid() || m_resetting)
        return;
    if (m_mapped)
        beginSourceReset();
    else
        beginRemoveRows({}, first, last);
}

void CallsFilterProxy::sourceRowsRemoved(const QModelIndex& parent, int, int)
{
    if (parent.isValid())
        return;
    if (m_resetting)
        endSourceReset();
    else
        endRemoveRows();
}

void CallsFilterProxy::sourceDataChanged(
    const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles)
{
    if (!topLeft.isValid() || topLeft.parent().isValid() || m_resetting)
        return;
    if (!m_mapped) {
        Q_EMIT dataChanged(
            index(topLeft.row(), topLeft.column()), index(bottomRight.row(), bottomRight.column()), roles);
        return;
    }
    // Rows that stay shown, rows that leave, rows that join. Sorted, the order holds when every
    // changed row that stays is in order with both its neighbours: pairs of unchanged rows were in
    // order before and their keys did not change. Otherwise (or when a row leaves, which makes new
    // neighbours) every changed row is taken out and merged back in; the unchanged rest stays sorted.
    std::vector<int> staying;
    std::vector<int> leaving;
    std::vector<int> joining;
    bool outOfOrder = false;
    const int last = std::min(bottomRight.row(), int(m_sourceToProxy.size()) - 1);
    for (int row = topLeft.row(); row <= last; ++row) {
        const int shown = m_sourceToProxy[size_t(row)];
        const bool accepted = accepts(row);
        if (shown < 0) {
            if (accepted)
                joining.push_back(row);
        } else if (!accepted) {
            leaving.push_back(row);
        } else {
            staying.push_back(row);
            if (m_sortColumn >= 0 && !outOfOrder) {
                outOfOrder = (shown > 0 && before(row, m_proxyToSource[size_t(shown) - 1]))
                    || (size_t(shown) + 1 < m_proxyToSource.size() && before(m_proxyToSource[size_t(shown) + 1], row));
            }
        }
    }
    if (m_sortColumn >= 0 && (outOfOrder || !leaving.empty())) {
        leaving.insert(leaving.end(), staying.cbegin(), staying.cend());
        joining.insert(joining.end(), staying.cbegin(), staying.cend());
        staying.clear();
    }
    sortInProxyOrder(joining);
    if (leaving.empty() && !joining.empty() && joinAtEnd(joining))
        appendRows(joining);
    else if (!leaving.empty() || !joining.empty())
        changeLayout([&] { merge(leaving, joining); });
    int top = rowCount();
    int bottom = -1;
    for (const std::vector<int>* rows : { &staying, &joining }) {
        for (int row : *rows) {
            top = std::min(top, m_sourceToProxy[size_t(row)]);
            bottom = std::max(bottom, m_sourceToProxy[size_t(row)]);
        }
    }
    if (bottom >= 0)
        Q_EMIT dataChanged(index(top, topLeft.column()), index(bottom, bottomRight.column()), roles);
}

void CallsFilterProxy::sourceHeaderDataChanged(Qt::Orientation orientation, int first, int last)
{
    if (orientation == Qt::Horizontal || !m_mapped)
        Q_EMIT headerDataChanged(orientation, first, last);
    else if (rowCount() > 0)
        Q_EMIT headerDataChanged(orientation, 0, rowCount() - 1);
}

void CallsFilterProxy::beginSourceReset()
{
    if (m_resetting)
        return;
    beginResetModel();
    m_resetting = true;
}

void CallsFilterProxy::endSourceReset()
{
    if (!m_resetting)
        return;
    m_resetting = false;
    forgetMatches();
    rebuild();
    endResetModel();
}

QModelIndex CallsFilterProxy::mapToSource(const QModelIndex& proxyIndex) const
{
    if (!proxyIndex.isValid() || !sourceModel() || proxyIndex.model() != this)
        return {};
    int row = proxyIndex.row();
    if (m_mapped) {
        if (size_t(row) >= m_proxyToSource.size())
            return {};
        row = m_proxyToSource[size_t(row)];
    }
    return sourceModel()->index(row, proxyIndex.column());
}

QModelIndex CallsFilterProxy::mapFromSource(const QModelIndex& sourceIndex) const
{
    if (!sourceIndex.isValid() || sourceIndex.model() != sourceModel() || sourceIndex.parent().isValid())
        return {};
    int row = sourceIndex.row();
    if (m_mapped) {
        if (size_t(row) >= m_sourceToProxy.size() || m_sourceToProxy[size_t(row)] < 0)
            return {};
        row = m_sourceToProxy[size_t(row)];
    }
    return createIndex(row, sourceIndex.column());
}

QModelIndex CallsFilterProxy::index(int row, int column, const QModelIndex& parent) const
{
    if (parent.isValid() || row < 0 || column < 0 || row >= rowCount() || column >= columnCount())
        return {};
    return createIndex(row, column);
}

QModelIndex CallsFilterProxy::parent(const QModelIndex&) const
{
    return {};
}

QModelIndex CallsFilterProxy::sibling(int row, int column, const QModelIndex& index) const
{
    return index.isValid() ? this->index(row, column) : QModelIndex();
}

int CallsFilterProxy::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !sourceModel())
        return 0;
    return m_mapped ? int(m_proxyToSource.size()) : sourceModel()->rowCount();
}

int CallsFilterProxy::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !sourceModel() ? 0 : sourceModel()->columnCount();
}

bool CallsFilterProxy::hasChildren(const QModelIndex& parent) const
{
    return !parent.isValid() && rowCount() > 0;
}

} // namespace mcpscope
