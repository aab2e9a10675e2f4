#pragma once

#include "calllog/calllogfile.h"
#include "calllog/callrecord.h"

#include <QSet>
#include <QWidget>

#include <functional>
#include <optional>

class QComboBox;
class QLineEdit;
class QTableView;

namespace mcpscope {

class CallsFilterProxy;
class CallsModel;
class CallsPresentation;
class TimelineView;

/// The calls table with its filter bar and the selected call's timeline: the Calls dock of the
/// main window, and the whole of a read-only log window (File › Open Call Log).
///
/// The panel owns the model chain (CallsModel → CallsFilterProxy → CallsPresentation). Full records
/// are never kept here: the detail view asks the record lookup (the log store, or an opened file's
/// records) when a row becomes current.
class CallsPanel : public QWidget
{
    Q_OBJECT
public:
    enum class Scope { Visible, Selection };
    /// Finds a call's full record and hands it to deliver, at once or later (a log store read); a
    /// record that arrives after another row became current is dropped.
    using RecordLookup
        = std::function<void(const QString& callId, std::function<void(std::optional<CallRecord>)> deliver)>;
    using RawMessages = std::function<QList<QByteArray>(const CallRecord& record)>;

    explicit CallsPanel(QWidget* parent = nullptr);
    ~CallsPanel() override;

    CallsModel* model() const { return m_model; }
    CallsFilterProxy* filter() const { return m_filter; }
    CallsPresentation* presentation() const { return m_presentation; }
    QTableView* view() const { return m_view; }
    TimelineView* timeline() const { return m_timeline; }

    void setRecordLookup(RecordLookup lookup);
    /// The raw wire messages shown under the timeline; without a provider the attempts' recorded
    /// wire exchanges are shown.
    void setRawMessages(RawMessages provider) { m_raw = std::move(provider); }
    void setServerNames(const QStringList& names);
    void addServerName(const QString& name);

    /// The filter bar, for tests and for restoring a view.
    void setFilter(const QString& text, const QString& server, const QString& tool, std::optional<CallOutcome> outcome);
    /// What the filter keeps, in words ("outcome uncertain, server 'alpha'"), or an empty string.
    QString filterDescription() const;

    void selectCall(const QString& callId);
    QString currentCallId() const;
    void focusSearch();
    /// Shows record in the timeline if it is the current call (a live update).
    void updateRecord(const CallRecord& record);
    void showCurrentDetails();

    /// The calls of the visible rows or of the selected rows, in table order.
    QStringList callIds(Scope scope) const;
    /// The table's rows as CSV exports them, in table order.
    QList<CallSummary> rows(Scope scope) const;
    int selectedCount() const;

    /// The attempts' recorded wire exchanges as raw messages (request and answer bodies, stdio lines).
    static QList<QByteArray> recordedMessages(const CallRecord& record);

Q_SIGNALS:
    void currentCallChanged(const QString& callId);

private:
    void applyFilter();
    QList<int> sourceRows(Scope scope) const;

    CallsModel* m_model = nullptr;
    CallsFilterProxy* m_filter = nullptr;
    CallsPresentation* m_presentation = nullptr;
    QTableView* m_view = nullptr;
    TimelineView* m_timeline = nullptr;
    QLineEdit* m_search = nullptr;
    QLineEdit* m_tool = nullptr;
    QComboBox* m_server = nullptr;
    QComboBox* m_outcome = nullptr;
    void showDetails(const QString& callId, const std::optional<CallRecord>& record);

    RecordLookup m_lookup;
    quint64 m_detailRequest = 0;
    bool m_followNewest = true; ///< the list showed its end when rows were about to arrive
    RawMessages m_raw;
};

} // namespace mcpscope
