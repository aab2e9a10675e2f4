#pragma once

#include "calllog/callrecord.h"

#include <QAbstractProxyModel>
#include <QList>
#include <QMetaObject>
#include <QPointer>
#include <QSet>
#include <QString>

#include <deque>
#include <vector>

namespace mcpscope {

class CallsModel;

/// Filters and sorts a CallsModel on its typed row data (STYLE.md: not on display strings).
///
/// A row is accepted when it passes every filter that is set: its server is in servers(), its tool
/// (or method) in tools(), its outcome in outcomes(), and searchText() occurs, case-insensitively,
/// in its call id, server, tool or method, rule, or outcome name (outcomeName(): "outcome_uncertain").
/// An empty set or empty text does not filter. Rows are re-checked when their data changes, so a
/// pending call joins an outcome filter when it finishes, and a sorted row moves when its key does.
///
/// Why not QSortFilterProxyModel: it keeps two QList<int> row maps even with no filter and no sort,
/// and they double at each power of two of the rows, into fresh memory: at a million calls that is a
/// 30-60 ms GUI stall on a VM that faults pages in slowly (bench_calllog). Here, with no filter and
/// no sort, proxy row n is source row n and nothing is kept per row; with one, the two maps are
/// deques, which grow a block at a time. The source's changes become the smallest signals that keep
/// views right: rows that join at the end are inserted; anything else (a row that leaves, or joins
/// or moves in the middle) is one layout change with the persistent indexes mapped, as
/// QSortFilterProxyModel::invalidate() does. Changes the CallsModel never makes (inserts not at the
/// end, removals, moves, column or layout changes of another source) reset the proxy.
///
/// Matches of the strings of the model's StringTable are cached per filter change, so filtering a
/// row costs a few array reads and at most one call-id comparison. With a source model that is not
/// a CallsModel the proxy falls back to the roles of callsmodeldefs.h, and sorts on Qt::DisplayRole.
class CallsFilterProxy : public QAbstractProxyModel
{
    Q_OBJECT
public:
    explicit CallsFilterProxy(QObject* parent = nullptr);
    ~CallsFilterProxy() override;

    void setSourceModel(QAbstractItemModel* model) override;

    void setServers(const QSet<QString>& servers);
    const QSet<QString>& servers() const { return m_servers; }
    void setTools(const QSet<QString>& tools);
    const QSet<QString>& tools() const { return m_tools; }
    void setOutcomes(const QList<CallOutcome>& outcomes);
    QList<CallOutcome> outcomes() const;
    void setSearchText(const QString& text);
    const QString& searchText() const { return m_text; }
    void clearFilters();

    /// Sorts on the typed data of a CallsModelColumn, ties in source order; -1 shows source order.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_sortOrder; }
    /// Whether a filter or a sort is set, so that rows go through the maps; otherwise proxy row n is
    /// source row n and the proxy keeps nothing per row.
    bool isMapped() const { return m_mapped; }

    QModelIndex mapToSource(const QModelIndex& proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex& sourceIndex) const override;
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    QModelIndex sibling(int row, int column, const QModelIndex& index) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;

private:
    enum Match : qint8 { Unknown = -1, No = 0, Yes = 1 };

    bool filtered() const;
    void refilter();
    void forgetMatches();
    bool accepts(int sourceRow) const;
    bool acceptsByRoles(int sourceRow) const;
    bool matchesText(const QString& candidate) const;
    bool cached(std::vector<qint8>& cache, quint32 index, bool (CallsFilterProxy::*test)(quint32) const) const;
    bool serverAccepted(quint32 index) const;
    bool toolAccepted(quint32 index) const;
    bool textAccepted(quint32 index) const;
    int compareRows(int left, int right) const;
    /// The proxy order: whether source row left comes before source row right.
    bool before(int left, int right) const;

    /// Rebuilds both maps from the source (or drops them when nothing filters or sorts).
    void rebuild();
    /// Takes the source rows in `leaving` out of the map and merges `joining` (in proxy order) in.
    void merge(const std::vector<int>& leaving, std::vector<int> joining);
    template <typename Rows> void sortInProxyOrder(Rows& rows) const;
    /// Fills m_sourceToProxy from m_proxyToSource (rows not shown keep their -1).
    void indexShownRows();
    /// Runs change() between layoutAboutToBeChanged and layoutChanged, and keeps persistent indexes
    /// on their source rows.
    template <typename Change> void changeLayout(Change change);
    /// Whether source rows `joining` (in proxy order) all come after the last shown row.
    bool joinAtEnd(const std::vector<int>& joining) const;
    void appendRows(const std::vector<int>& joining);

    void sourceRowsAboutToBeInserted(const QModelIndex& parent, int first, int last);
    void sourceRowsInserted(const QModelIndex& parent, int first, int last);
    void sourceRowsAboutToBeRemoved(const QModelIndex& parent, int first, int last);
    void sourceRowsRemoved(const QModelIndex& parent, int first, int last);
    void sourceDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles);
    void sourceHeaderDataChanged(Qt::Orientation orientation, int first, int last);
    void beginSourceReset();
    void endSourceReset();

    QPointer<CallsModel> m_calls;
    QList<QMetaObject::Connection> m_connections;
    QSet<QString> m_servers;
    QSet<QString> m_tools;
    quint32 m_outcomeMask = 0; ///< bit n: CallOutcome(n) is accepted; 0: every outcome
    QString m_text;
    bool m_textCanMatchUuid = false;
    quint32 m_outcomeTextMask = 0; ///< bit n: outcomeName(CallOutcome(n)) contains m_text
    mutable std::vector<qint8> m_serverMatch;
    mutable std::vector<qint8> m_toolMatch;
    mutable std::vector<qint8> m_textMatch;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;

    bool m_mapped = false;
    bool m_resetting = false; ///< between a source change the proxy cannot follow and its end
    std::deque<int> m_proxyToSource;
    std::deque<int> m_sourceToProxy; ///< -1: not shown
};

} // namespace mcpscope
