#include "toolspage.h"

#include "composer/callcomposer.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/tasktracker.h"
#include "models/toolsmodeldefs.h"
#include "presentation/presentation.h"
#include "result/resultview.h"

#include <QAction>
#include <QHeaderView>
#include <QJsonObject>
#include <QScopedValueRollback>
#include <QShortcut>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace mcpscope {

ToolsPage::ToolsPage(
    Engine* engine, QAbstractItemModel* tools, std::function<ServerConnection*()> currentConnection, QWidget* parent)
    : QSplitter(Qt::Vertical, parent)
    , m_engine(engine)
    , m_tools(tools)
    , m_currentConnection(std::move(currentConnection))
{
    m_toolsView = Presentation::makeTable(this, QStringLiteral("toolsView"));
    m_toolsView->setModel(m_tools);
    // Fitted to the contents when a list arrives and when the table's width changes, not on every change (the
    // per-tool figures change per call). Where the columns are wider than the table, the free-text Title and
    // then the tool name give way (elided, with the whole text as the tooltip), so that On expiry and the
    // figures stay in view. Once the user sized a column by hand, only a new list fits them again.
    m_toolsView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    auto* refit = new QTimer(this);
    refit->setSingleShot(true);
    refit->setInterval(100);
    connect(refit, &QTimer::timeout, this, &ToolsPage::fitColumns);
    connect(m_tools, &QAbstractItemModel::modelReset, this, &ToolsPage::fitColumns);
    connect(m_tools, &QAbstractItemModel::rowsInserted, this, &ToolsPage::fitColumns);
    connect(m_toolsView->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column) {
        // The last column stretches with the table: only another one moved means a hand did it.
        if (!m_fittingColumns && column != ToolsModelColumn::Count - 1)
            m_columnsSizedByHand = true;
    });
    Presentation::whenWidthChanges(m_toolsView->viewport(), [this, refit] {
        if (!m_columnsSizedByHand)
            refit->start();
    });
    auto* callArea = new QSplitter(Qt::Horizontal, this);
    m_composer = new CallComposer(callArea);
    m_composer->setObjectName(QStringLiteral("composer"));
    m_result = new ResultView(callArea);
    m_result->setObjectName(QStringLiteral("resultView"));
    callArea->setStretchFactor(0, 2);
    callArea->setStretchFactor(1, 3);
    setStretchFactor(0, 1);
    setStretchFactor(1, 1);
    // Enough of the tools table to compare annotations at a glance, and room for the composer.
    setSizes({ 360, 420 });

    connect(m_toolsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ToolsPage::onToolSelected);
    // A reconnect or heal lists the tools again (a model reset): the composer keeps its tool and
    // arguments while the new list is on its way, and the tool is selected again when it is back.
    connect(m_tools, &QAbstractItemModel::modelAboutToBeReset, this,
        [this] { m_keptTool = m_composer->tool().value(QLatin1String("name")).toString(); });
    connect(m_tools, &QAbstractItemModel::modelReset, this, &ToolsPage::reselectKeptTool);
    // Ctrl+Return calls the selected tool from the table too (the composer has its own shortcut).
    for (const QKeySequence& keys :
        { QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter) }) {
        auto* shortcut = new QShortcut(keys, m_toolsView);
        shortcut->setContext(Qt::WidgetShortcut);
        connect(shortcut, &QShortcut::activated, this, [this] {
            if (!m_composer->isRunning())
                callSelectedTool();
        });
    }
    auto* load = new QAction(tr("Load…"), m_toolsView);
    load->setObjectName(QStringLiteral("loadToolAction"));
    load->setToolTip(tr("Call this tool many times at once and see the latencies"));
    connect(load, &QAction::triggered, this, &ToolsPage::requestLoad);
    m_toolsView->addAction(load);
    m_toolsView->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_composer, &CallComposer::callRequested, this, [this] { callSelectedTool(); });
    connect(m_composer, &CallComposer::cancelRequested, this, [this] {
        if (m_runningOn && !m_runningCall.isEmpty())
            m_runningOn->cancelCall(m_runningCall);
    });
    connect(m_engine, &Engine::callUpdated, this, &ToolsPage::onCallUpdated);
}

bool ToolsPage::selectTool(const QString& name)
{
    for (int row = 0; row < m_tools->rowCount(); ++row) {
        const QModelIndex index = m_tools->index(row, 0);
        if (index.data(ToolsModelRole::ToolNameRole).toString() == name) {
            m_toolsView->setCurrentIndex(index);
            return true;
        }
    }
    return false;
}

void ToolsPage::clearTool()
{
    m_keptTool.clear();
    m_composer->setTool({});
    m_result->clear();
    m_shownCall.clear();
}

void ToolsPage::onToolSelected(const QModelIndex& index)
{
    if (!index.isValid()) {
        // The list went away for a re-list: keep what the user typed until it is back.
        if (m_keptTool.isEmpty())
            m_composer->setTool({});
        return;
    }
    const QJsonObject tool = index.data(ToolsModelRole::ToolRole).toJsonObject();
    const QString excluded = index.data(ToolsModelRole::ExcludedReasonRole).toString();
    const QJsonObject shown = m_composer->tool();
    m_keptTool.clear();
    // The same tool with the same schema (it came back after a reconnect): the arguments stay.
    if (!shown.isEmpty() && shown.value(QLatin1String("name")) == tool.value(QLatin1String("name"))
        && shown.value(QLatin1String("inputSchema")) == tool.value(QLatin1String("inputSchema"))
        && m_composer->excludedReason() == excluded)
        return;
    m_composer->setTool(tool, excluded);
    // Another tool: the last result belongs to the one before it.
    if (m_runningCall.isEmpty()) {
        m_result->clear();
        m_shownCall.clear();
        if (!excluded.isEmpty())
            m_result->showMessage(tr("No result: %1 is excluded. The server lists it, but a 2026-07-28 client "
                                     "leaves a tool with invalid x-mcp-header annotations out and never calls it.")
                                      .arg(tool.value(QLatin1String("name")).toString()));
    }
}

void ToolsPage::fitColumns()
{
    const QScopedValueRollback fitting(m_fittingColumns, true);
    m_columnsSizedByHand = false;
    m_toolsView->resizeColumnsToContents();
    const int chars = m_toolsView->fontMetrics().averageCharWidth();
    m_toolsView->setColumnWidth(
        ToolsModelColumn::Title, std::min(m_toolsView->columnWidth(ToolsModelColumn::Title), 170));
    Presentation::shrinkToFit(m_toolsView->horizontalHeader(), m_toolsView->viewport()->width(),
        { { ToolsModelColumn::Title, 10 * chars }, { ToolsModelColumn::Name, 18 * chars } });
}

void ToolsPage::reselectKeptTool()
{
    if (m_keptTool.isEmpty() || m_tools->rowCount() == 0)
        return;
    if (!selectTool(m_keptTool)) {
        // The server no longer lists the tool.
        m_keptTool.clear();
        m_composer->setTool({});
    }
}

std::optional<QJsonObject> ToolsPage::selectedCall(QString* name)
{
    const QModelIndex tool = m_toolsView->currentIndex();
    if (!m_currentConnection() || !tool.isValid()) {
        Q_EMIT statusMessage(tr("Select a server and a tool first."));
        return std::nullopt;
    }
    *name = tool.data(ToolsModelRole::ToolNameRole).toString();
    if (const QString excluded = tool.data(ToolsModelRole::ExcludedReasonRole).toString(); !excluded.isEmpty()) {
        Q_EMIT statusMessage(tr("%1 is excluded and not callable: %2").arg(*name, excluded));
        return std::nullopt;
    }
    std::optional<QJsonObject> arguments = m_composer->arguments();
    if (!arguments)
        Q_EMIT statusMessage(tr("The arguments for %1 are not valid yet; see the composer.").arg(*name));
    return arguments;
}

void ToolsPage::callSelectedTool()
{
    QString name;
    const std::optional<QJsonObject> arguments = selectedCall(&name);
    if (!arguments)
        return;
    ServerConnection* c = m_currentConnection();
    CallOptions options;
    QPointer<CallComposer> composer(m_composer);
    options.onProgress = [composer](const ProgressUpdate& update) {
        if (composer)
            composer->setProgress(update.progress, update.total, update.message);
    };
    m_result->presentMessage(tr("Calling %1 on %2…").arg(name, c->name()));
    m_composer->setRunning(true);
    m_runningOn = c;
    m_runningCall.clear();
    // A call refused at once (breaker open) finishes before the id comes back.
    auto atOnce = std::make_shared<std::optional<CallRecord>>();
    const QModelIndex tool = m_toolsView->currentIndex();
    const bool asTask
        = ToolInfo::fromJson(tool.data(ToolsModelRole::ToolRole).toJsonObject()).callsAsTask(m_composer->runAsTask());
    m_runningCall
        = m_engine->call(c->name(), QStringLiteral("tools/call"), TaskTracker::toolCallParams(name, *arguments, asTask),
            options, [atOnce](const CallRecord& record) { *atOnce = record; });
    if (const auto& record = *atOnce; record && record->callId == m_runningCall && record->isFinished()) {
        m_composer->setRunning(false);
        m_result->presentRecord(*record, c->session() ? c->session()->tool(name) : nullptr);
        m_runningCall.clear();
    }
}

void ToolsPage::requestLoad()
{
    QString name;
    if (const std::optional<QJsonObject> arguments = selectedCall(&name))
        Q_EMIT loadRequested(name, *arguments);
}

void ToolsPage::onCallUpdated(const CallRecord& record)
{
    if (record.callId == m_runningCall && record.isFinished()) {
        m_composer->setRunning(false);
        ServerConnection* c = m_runningOn;
        m_result->presentRecord(record, c && c->session() ? c->session()->tool(record.tool) : nullptr);
        m_runningCall.clear();
        m_shownCall = record.callId;
        if (const QString taskId = m_engine->tasks()->follow(record); !taskId.isEmpty())
            Q_EMIT statusMessage(tr("Task %1 created: the Tasks tab follows it; its result shows here.").arg(taskId));
    } else if (record.callId == m_shownCall) {
        // A task's record, published again as its status changes and when its result arrives.
        ServerConnection* c = m_runningOn;
        m_result->showRecord(record, c && c->session() ? c->session()->tool(record.tool) : nullptr);
    }
}

} // namespace mcpscope
