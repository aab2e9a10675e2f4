#pragma once

#include "calllog/callrecord.h"

#include <QList>
#include <QPointer>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QString>

#include <vector>

namespace mcpscope {

class CallsModel;

/// Filters and sorts a CallsModel on its typed row data (STYLE.md: not on display strings).
///
/// A row is accepted when it passes every filter that is set: its server is in servers(), its tool
/// (or method) in tools(), its outcome in outcomes(), and searchText() occurs, case-insensitively,
/// in its call id, server, tool or method, rule, or outcome name (outcomeName(): "outcome_uncertain").
/// An empty set or empty text does not filter. Rows are re-checked when their data changes
/// (dynamicSortFilter), so a pending call joins an outcome filter when it finishes.
///
/// Matches of the strings of the model's StringTable are cached per filter change, so filtering a
/// row costs a few array reads and at most one call-id comparison. With a source model that is not
/// a CallsModel the proxy falls back to the roles of callsmodeldefs.h.
class CallsFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit CallsFilterProxy(QObject* parent = nullptr);

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

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    enum Match : qint8 { Unknown = -1, No = 0, Yes = 1 };

    void refilter();
    void forgetMatches();
    bool matchesText(const QString& candidate) const;
    bool cached(std::vector<qint8>& cache, quint32 index, bool (CallsFilterProxy::*test)(quint32) const) const;
    bool serverAccepted(quint32 index) const;
    bool toolAccepted(quint32 index) const;
    bool textAccepted(quint32 index) const;
    bool acceptsByRoles(int sourceRow) const;

    QPointer<CallsModel> m_calls;
    QSet<QString> m_servers;
    QSet<QString> m_tools;
    quint32 m_outcomeMask = 0; ///< bit n: CallOutcome(n) is accepted; 0: every outcome
    QString m_text;
    bool m_textCanMatchUuid = false;
    quint32 m_outcomeTextMask = 0; ///< bit n: outcomeName(CallOutcome(n)) contains m_text
    mutable std::vector<qint8> m_serverMatch;
    mutable std::vector<qint8> m_toolMatch;
    mutable std::vector<qint8> m_textMatch;
};

} // namespace mcpscope
