#include "callspanel.h"

#include "calls/timelineview.h"
#include "models/callsfilterproxy.h"
#include "models/callsmodel.h"
#include "models/callsmodeldefs.h"
#include "presentation/presentation.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QPointer>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace mcpscope {

namespace {
const QString SortColumnKey = QStringLiteral("calls/sortColumn");
const QString SortOrderKey = QStringLiteral("calls/sortOrder");
} // namespace

CallsPanel::CallsPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new CallsModel(this))
    , m_filter(new CallsFilterProxy(this))
    , m_presentation(new CallsPresentation(this))
{
    m_filter->setSourceModel(m_model);
    m_presentation->setSourceModel(m_filter);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* filterBar = new QHBoxLayout;
    m_search = new QLineEdit(this);
    m_search->setObjectName(QStringLiteral("callsSearch"));
    m_search->setPlaceholderText(tr("Filter calls: server, tool, rule, outcome, call id (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_server = new QComboBox(this);
    m_server->setObjectName(QStringLiteral("callsServer"));
    m_server->addItem(tr("All servers"));
    m_outcome = new QComboBox(this);
    m_outcome->setObjectName(QStringLiteral("callsOutcome"));
    m_outcome->addItem(tr("All outcomes"), -1);
    for (CallOutcome outcome :
        { CallOutcome::Success, CallOutcome::OutcomeUncertain, CallOutcome::ToolError, CallOutcome::ProtocolError,
            CallOutcome::Timeout, CallOutcome::TransportError, CallOutcome::BreakerOpen, CallOutcome::NotDispatched,
            CallOutcome::NeedsAuth, CallOutcome::Cancelled, CallOutcome::Interrupted, CallOutcome::Pending })
        m_outcome->addItem(Presentation::outcomeText(outcome), int(outcome));
    m_tool = new QLineEdit(this);
    m_tool->setObjectName(QStringLiteral("callsTool"));
    m_tool->setPlaceholderText(tr("Tool"));
    m_tool->setClearButtonEnabled(true);
    filterBar->addWidget(m_search, 3);
    filterBar->addWidget(m_server, 1);
    filterBar->addWidget(m_tool, 1);
    filterBar->addWidget(m_outcome, 1);
    layout->addLayout(filterBar);

    auto* split = new QSplitter(Qt::Horizontal, this);
    // Several rows can be selected, to export just those (File › Export Calls, "selected rows").
    m_view = Presentation::makeTable(split, QStringLiteral("callsView"), QAbstractItemView::ExtendedSelection);
    m_view->setModel(m_presentation);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // The names get the room: the figures and the rule are as wide as their headers, and Outcome takes the rest.
    Presentation::sizeColumns(m_view,
        { { CallsModelColumn::Time, u"00:00:00.000" }, { CallsModelColumn::Server, u"everything-stdio-00" },
            { CallsModelColumn::Tool, u"get-resource-reference" }, { CallsModelColumn::Duration, {} },
            { CallsModelColumn::Attempts, {} }, { CallsModelColumn::Rule, {} },
            { CallsModelColumn::Outcome, u"outcome uncertain" } });
    // A click on a column sorts by its typed value, ascending (durations as numbers, pending calls first), a second
    // reverses, a third goes back to arrival order, which costs the proxy nothing per row. Kept across runs.
    QHeaderView* header = m_view->horizontalHeader();
    header->setSortIndicatorClearable(true);
    const QSettings settings;
    const int sortColumn = settings.value(SortColumnKey, -1).toInt();
    header->setSortIndicator(sortColumn >= 0 && sortColumn < CallsModelColumn::Count ? sortColumn : -1,
        settings.value(SortOrderKey).toInt() == Qt::AscendingOrder ? Qt::AscendingOrder : Qt::DescendingOrder);
    m_view->setSortingEnabled(true);
    connect(header, &QHeaderView::sortIndicatorChanged, this, [](int column, Qt::SortOrder order) {
        QSettings settings;
        settings.setValue(SortColumnKey, column);
        settings.setValue(SortOrderKey, int(order));
    });
    m_timeline = new TimelineView(split);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);

    connect(m_search, &QLineEdit::textChanged, this, &CallsPanel::applyFilter);
    connect(m_tool, &QLineEdit::textChanged, this, &CallsPanel::applyFilter);
    connect(m_server, &QComboBox::currentIndexChanged, this, &CallsPanel::applyFilter);
    connect(m_outcome, &QComboBox::currentIndexChanged, this, &CallsPanel::applyFilter);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        showCurrentDetails();
        Q_EMIT currentCallChanged(currentCallId());
    });
    // New calls stay in view while the list shows its end; a user who scrolled up to read keeps the place.
    connect(m_presentation, &QAbstractItemModel::rowsAboutToBeInserted, this, [this] {
        const QScrollBar* bar = m_view->verticalScrollBar();
        m_followNewest = bar->value() >= bar->maximum() - 2;
    });
    connect(m_presentation, &QAbstractItemModel::rowsInserted, this, [this] {
        if (m_followNewest)
            m_view->scrollToBottom();
    });
}

CallsPanel::~CallsPanel() = default;

void CallsPanel::setRecordLookup(RecordLookup lookup)
{
    m_lookup = std::move(lookup);
}

void CallsPanel::setServerNames(const QStringList& names)
{
    const QString current = m_server->currentIndex() > 0 ? m_server->currentText() : QString();
    m_server->blockSignals(true);
    m_server->clear();
    m_server->addItem(tr("All servers"));
    m_server->addItems(names);
    const int index = current.isEmpty() ? 0 : m_server->findText(current);
    m_server->setCurrentIndex(std::max(index, 0));
    m_server->blockSignals(false);
    applyFilter();
}

void CallsPanel::addServerName(const QString& name)
{
    if (m_server->findText(name) < 1)
        m_server->addItem(name);
}

void CallsPanel::setFilter(
    const QString& text, const QString& server, const QString& tool, std::optional<CallOutcome> outcome)
{
    for (QWidget* w : std::initializer_list<QWidget*> { m_search, m_server, m_tool, m_outcome })
        w->blockSignals(true);
    m_search->setText(text);
    m_server->setCurrentIndex(server.isEmpty() ? 0 : std::max(0, m_server->findText(server)));
    m_tool->setText(tool);
    m_outcome->setCurrentIndex(outcome ? std::max(0, m_outcome->findData(int(*outcome))) : 0);
    for (QWidget* w : std::initializer_list<QWidget*> { m_search, m_server, m_tool, m_outcome })
        w->blockSignals(false);
    applyFilter();
}

QString CallsPanel::filterDescription() const
{
    QStringList parts;
    if (!m_search->text().isEmpty())
        parts.append(tr("text '%1'").arg(m_search->text()));
    if (m_server->currentIndex() > 0)
        parts.append(tr("server '%1'").arg(m_server->currentText()));
    if (!m_tool->text().trimmed().isEmpty())
        parts.append(tr("tool '%1'").arg(m_tool->text().trimmed()));
    if (m_outcome->currentIndex() > 0)
        parts.append(tr("outcome %1").arg(m_outcome->currentText()));
    return parts.join(QStringLiteral(", "));
}

void CallsPanel::applyFilter()
{
    m_filter->setSearchText(m_search->text());
    QSet<QString> servers;
    if (m_server->currentIndex() > 0)
        servers.insert(m_server->currentText());
    m_filter->setServers(servers);
    QSet<QString> tools;
    if (!m_tool->text().trimmed().isEmpty())
        tools.insert(m_tool->text().trimmed());
    m_filter->setTools(tools);
    QList<CallOutcome> outcomes;
    if (m_outcome->currentData().toInt() >= 0)
        outcomes.append(CallOutcome(m_outcome->currentData().toInt()));
    m_filter->setOutcomes(outcomes);
}

void CallsPanel::selectCall(const QString& callId)
{
    m_model->flush();
    const int sourceRow = m_model->rowOfCall(callId);
    if (sourceRow < 0)
        return;
    const QModelIndex index = m_presentation->mapFromSource(m_filter->mapFromSource(m_model->index(sourceRow, 0)));
    if (!index.isValid())
        return;
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
}

QString CallsPanel::currentCallId() const
{
    const QModelIndex index = m_view->currentIndex();
    return index.isValid() ? index.data(CallsModelRole::CallIdRole).toString() : QString();
}

void CallsPanel::focusSearch()
{
    m_search->setFocus();
    m_search->selectAll();
}

void CallsPanel::updateRecord(const CallRecord& record)
{
    if (record.callId != currentCallId())
        return;
    m_timeline->setRecord(record, m_raw ? m_raw(record) : recordedMessages(record));
}

void CallsPanel::showCurrentDetails()
{
    const QString callId = currentCallId();
    const quint64 request = ++m_detailRequest;
    if (callId.isEmpty()) {
        m_timeline->clearRecord();
        return;
    }
    if (!m_lookup) {
        showDetails(callId, std::nullopt);
        return;
    }
    QPointer<CallsPanel> self(this);
    m_lookup(callId, [self, request, callId](std::optional<CallRecord> record) {
        if (self && self->m_detailRequest == request)
            self->showDetails(callId, record);
    });
}

void CallsPanel::showDetails(const QString& callId, const std::optional<CallRecord>& record)
{
    if (!record) {
        m_timeline->setHtml(tr("<p>The details of call <code>%1</code> are not available: it is not in the call "
                               "log (it may have been pruned by the retention setting).</p>")
                                .arg(callId.toHtmlEscaped()));
        return;
    }
    m_timeline->setRecord(*record, m_raw ? m_raw(*record) : recordedMessages(*record));
}

QList<int> CallsPanel::sourceRows(Scope scope) const
{
    m_model->flush();
    QList<int> rows;
    if (scope == Scope::Selection) {
        // In table order: sort the shown rows, then map each once.
        QModelIndexList selected = m_view->selectionModel()->selectedRows();
        std::sort(selected.begin(), selected.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
        rows.reserve(selected.size());
        for (const QModelIndex& index : std::as_const(selected))
            rows.append(m_filter->mapToSource(m_presentation->mapToSource(index)).row());
        return rows;
    }
    const int count = m_presentation->rowCount();
    rows.reserve(count);
    for (int row = 0; row < count; ++row)
        rows.append(m_filter->mapToSource(m_presentation->mapToSource(m_presentation->index(row, 0))).row());
    return rows;
}

QStringList CallsPanel::callIds(Scope scope) const
{
    QStringList ids;
    const QList<int> rows = sourceRows(scope);
    ids.reserve(rows.size());
    for (int row : rows)
        ids.append(m_model->callId(row));
    return ids;
}

QList<CallSummary> CallsPanel::rows(Scope scope) const
{
    QList<CallSummary> result;
    const QList<int> rows = sourceRows(scope);
    result.reserve(rows.size());
    for (int row : rows) {
        const CallsModel::Row& r = m_model->callRow(row);
        CallSummary out;
        out.callId = m_model->callId(row);
        out.server = m_model->string(r.server);
        // The model keeps the label only: a tools/call's tool, or the method.
        if (r.isToolCall()) {
            out.method = QStringLiteral("tools/call");
            out.tool = m_model->string(r.tool);
        } else {
            out.method = m_model->string(r.tool);
        }
        out.rule = m_model->string(r.rule);
        out.startedAt = r.startedAt;
        out.endedAt = r.isPending() ? 0 : r.startedAt + r.durationMs;
        out.outcome = r.callOutcome();
        out.attempts = r.attempts;
        out.healed = r.flags & CallsModel::Row::Healed;
        result.append(out);
    }
    return result;
}

int CallsPanel::selectedCount() const
{
    return int(m_view->selectionModel()->selectedRows().size());
}

QList<QByteArray> CallsPanel::recordedMessages(const CallRecord& record)
{
    QList<QByteArray> raw;
    for (const CallAttempt& attempt : record.attempts) {
        for (const StdioLine& line : attempt.exchange.stdio)
            raw.append(line.line);
        for (const HttpExchange& http : attempt.exchange.http) {
            if (!http.requestBody.isEmpty())
                raw.append(http.requestBody);
            if (!http.answerOnStream.isEmpty())
                raw.append(http.answerOnStream);
            else if (!http.responseBody.isEmpty())
                raw.append(http.responseBody);
        }
    }
    return raw;
}

} // namespace mcpscope
