#include "taskspage.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/tasktracker.h"
#include "models/tasksmodel.h"
#include "models/tasksmodeldefs.h"
#include "presentation/presentation.h"
#include "result/resultview.h"
#include "taskspresentation.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace mcpscope {

TasksPage::TasksPage(Engine* engine, QWidget* parent)
    : QSplitter(Qt::Vertical, parent)
    , m_engine(engine)
    , m_model(new TasksModel(this))
    , m_presentation(new TasksPresentation(this))
{
    setObjectName(QStringLiteral("tasksPage"));
    m_presentation->setSourceModel(m_model);

    auto* top = new QWidget(this);
    m_heading = new QLabel(top);
    m_list = new QPushButton(tr("List"), top);
    m_list->setObjectName(QStringLiteral("tasks.list"));
    m_list->setToolTip(tr("Ask the server for its tasks (tasks/list)"));
    m_cancel = new QPushButton(tr("Cancel task"), top);
    m_cancel->setObjectName(QStringLiteral("tasks.cancel"));
    m_cancel->setToolTip(tr("Ask the server to cancel the selected task (tasks/cancel)"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_heading, 1);
    bar->addWidget(m_list);
    bar->addWidget(m_cancel);

    m_view = Presentation::makeTable(top, QStringLiteral("tasks.table"));
    m_view->setModel(m_presentation);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TasksModelColumn::StatusMessage, QHeaderView::Stretch);
    auto* layout = new QVBoxLayout(top);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
    addWidget(top);

    m_result = new ResultView(this);
    addWidget(m_result);
    setStretchFactor(0, 1);
    setStretchFactor(1, 2);

    connect(m_list, &QPushButton::clicked, this, &TasksPage::refresh);
    connect(m_cancel, &QPushButton::clicked, this, &TasksPage::cancelSelected);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &TasksPage::showSelected);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
        const int row = m_view->currentIndex().row();
        if (row >= from.row() && row <= to.row())
            showSelected();
    });
    // A new task (the composer just created one) is selected, so its progress shows without a click.
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex&, int, int last) { m_view->setCurrentIndex(m_presentation->index(last, 0)); });
    connect(m_model, &QAbstractItemModel::modelReset, this, &TasksPage::showSelected);
    showConnection(nullptr);
}

void TasksPage::showConnection(ServerConnection* connection)
{
    if (connection == m_connection && m_model->server() == (connection ? connection->name() : QString()))
        return;
    m_connection = connection;
    m_model->setServer(m_engine->tasks(), connection ? connection->name() : QString());
    m_heading->setText(connection ? tr("Tasks of %1 (polled with tasks/get)").arg(connection->name())
                                  : tr("Select a server to see its tasks."));
    if (m_model->rowCount() > 0)
        m_view->setCurrentIndex(m_presentation->index(m_model->rowCount() - 1, 0));
    updateButtons();
}

QString TasksPage::selectedTaskId() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? current.data(TasksModelRole::TaskIdRole).toString() : QString();
}

bool TasksPage::selectTask(const QString& taskId)
{
    const int row = m_model->rowOf(taskId);
    if (row < 0)
        return false;
    m_view->setCurrentIndex(m_presentation->index(row, 0));
    return true;
}

void TasksPage::refresh()
{
    if (!m_connection) {
        Q_EMIT statusMessage(tr("Select a server first."));
        return;
    }
    const QString server = m_connection->name();
    QPointer<TasksPage> self(this);
    m_engine->tasks()->list(server, [self, server](const CallRecord& record) {
        if (self && record.outcome != CallOutcome::Success)
            Q_EMIT self->statusMessage(
                tr("tasks/list on %1 failed: %2").arg(server, record.error.value(QLatin1String("message")).toString()));
    });
}

void TasksPage::cancelSelected()
{
    const QString taskId = selectedTaskId();
    if (!m_connection || taskId.isEmpty()) {
        Q_EMIT statusMessage(tr("Select a task first."));
        return;
    }
    const QString server = m_connection->name();
    QPointer<TasksPage> self(this);
    m_engine->tasks()->cancel(server, taskId, [self, taskId](const CallRecord& record) {
        if (self && record.outcome != CallOutcome::Success)
            Q_EMIT self->statusMessage(tr("tasks/cancel of %1 failed: %2")
                                           .arg(taskId, record.error.value(QLatin1String("message")).toString()));
    });
}

void TasksPage::showSelected()
{
    updateButtons();
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid() || !m_connection) {
        m_result->showMessage(m_connection ? tr("No task selected. A tool whose task support is required, or one "
                                                "called with \"Run as task\", creates one; a 2026-07-28 server "
                                                "may answer any tool call with a task.")
                                           : tr("Select a server to see its tasks."));
        return;
    }
    const TaskInfo& task = m_model->task(current.row());
    const std::optional<CallRecord> record = m_engine->tasks()->record(task.server, task.taskId);
    if (!record) {
        m_result->showMessage(tr("Task %1 (%2): listed by the server, not created here, so it is not polled.")
                                  .arg(task.taskId, TaskInfo::statusName(task.status)));
        return;
    }
    ClientSession* session = m_connection->session();
    m_result->showRecord(*record, session ? session->tool(task.tool) : nullptr);
}

void TasksPage::updateButtons()
{
    // The 2026-07-28 tasks extension has no listing: the page shows the tasks McpScope follows.
    const bool modern = m_connection && m_connection->session() && m_connection->session()->isModern();
    m_list->setEnabled(m_connection != nullptr && !modern);
    m_list->setToolTip(modern ? tr("%1 speaks 2026-07-28: its tasks extension has no tasks/list; the tasks "
                                   "here are the ones its calls handed back")
                                    .arg(m_connection->name())
                              : tr("Ask the server for its tasks (tasks/list)"));
    const QModelIndex current = m_view->currentIndex();
    const bool live = current.isValid() && !m_model->task(current.row()).isTerminal()
        && m_model->task(current.row()).error.isEmpty();
    m_cancel->setEnabled(m_connection && live);
}

} // namespace mcpscope
