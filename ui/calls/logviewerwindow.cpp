#include "logviewerwindow.h"

#include "calls/callsexporter.h"
#include "calls/callspanel.h"
#include "models/callsmodel.h"

#include <QAction>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QVBoxLayout>

namespace mcpscope {

LogViewerWindow::LogViewerWindow(
    const QString& path, const CallLogReadResult& log, std::function<Redactor()> sessionRedactor, QWidget* parent)
    : QMainWindow(parent)
    , m_path(path)
    , m_records(log.records)
    , m_sessionRedactor(std::move(sessionRedactor))
{
    setObjectName(QStringLiteral("logViewer"));
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(tr("%1 — read-only call log — McpScope").arg(QFileInfo(path).fileName()));

    auto* host = new QWidget(this);
    auto* layout = new QVBoxLayout(host);
    layout->setContentsMargins(0, 0, 0, 0);
    m_banner = new QLabel(host);
    m_banner->setObjectName(QStringLiteral("logProblems"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setMargin(6);
    m_banner->setStyleSheet(QStringLiteral("background:#fff3cd;color:#664d03;border-bottom:1px solid #e0c873"));
    if (log.problems.isEmpty()) {
        m_banner->hide();
    } else {
        QStringList shown;
        for (const QString& problem : log.problems.mid(0, 5))
            shown.append(problem.toHtmlEscaped());
        if (log.problems.size() > 5)
            shown.append(tr("… and %n more (hover for the whole list)", nullptr, int(log.problems.size() - 5)));
        m_banner->setText(tr("<b>%n line(s) of %1 could not be read and are not shown;</b> every complete record "
                             "is.<br>%2",
            nullptr, int(log.problems.size()))
                              .arg(QFileInfo(path).fileName().toHtmlEscaped(), shown.join(QStringLiteral("<br>"))));
        m_banner->setToolTip(log.problems.join(QLatin1Char('\n')));
    }
    layout->addWidget(m_banner);
    m_panel = new CallsPanel(host);
    layout->addWidget(m_panel, 1);
    setCentralWidget(host);

    QStringList servers;
    m_index.reserve(m_records.size());
    for (qsizetype i = 0; i < m_records.size(); ++i) {
        const CallRecord& record = m_records.at(i);
        m_index.insert(record.callId, i);
        if (!servers.contains(record.server))
            servers.append(record.server);
        m_panel->model()->ingest(record);
    }
    m_panel->model()->flush();
    m_panel->setServerNames(servers);
    m_panel->setRecordLookup(
        [this](const QString& callId, const std::function<void(std::optional<CallRecord>)>& deliver) {
            const auto it = m_index.constFind(callId);
            if (it == m_index.cend()) {
                deliver(std::nullopt);
                return;
            }
            // Only the calls someone opens pay for it: the table's columns hold no secret text.
            CallRecord record = m_records.at(*it);
            redactor().scrubRecord(record);
            deliver(record);
        });

    m_exporter = new CallsExporter(m_panel, this, [this](ExportRequest& request, QString*) {
        // The file may hold a secret value in plain text (written before it was known): the exporters
        // redact every record with what is known now.
        request.redactor = redactor();
        request.records = m_records;
        return true;
    });
    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    m_status->setText(tr("%n call(s) from %1 (read-only)", nullptr, int(m_records.size())).arg(path));
    connect(m_exporter, &CallsExporter::finished, m_status,
        [this](bool, int, const QString& message) { m_status->setText(message); });

    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* exportAction = file->addAction(tr("&Export Calls…"), m_exporter, &CallsExporter::exportInteractively);
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction* close = file->addAction(tr("&Close"), this, &QWidget::close);
    close->setShortcut(QKeySequence::Close);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* find = view->addAction(tr("&Filter Calls"), m_panel, &CallsPanel::focusSearch);
    find->setShortcut(QKeySequence::Find);
    resize(1200, 700);
}

LogViewerWindow::~LogViewerWindow() = default;

void LogViewerWindow::addSecretValues(const QStringList& values)
{
    m_secretValues += values;
}

Redactor LogViewerWindow::redactor() const
{
    Redactor redactor = m_sessionRedactor ? m_sessionRedactor() : Redactor();
    for (const QString& value : m_secretValues)
        redactor.addSecretValue(value);
    return redactor;
}

QString LogViewerWindow::problemsText() const
{
    return m_banner->isHidden() ? QString() : m_banner->text();
}

} // namespace mcpscope
