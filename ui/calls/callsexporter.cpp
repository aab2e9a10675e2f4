#include "callsexporter.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QVBoxLayout>

namespace mcpscope {

CallsExporter::CallsExporter(CallsPanel* panel, QWidget* window, SourceFiller fillSource)
    : QObject(panel)
    , m_panel(panel)
    , m_window(window)
    , m_fillSource(std::move(fillSource))
{ }

CallsExporter::~CallsExporter()
{
    delete m_job;
}

void CallsExporter::exportInteractively()
{
    if (m_job) {
        if (m_progress)
            m_progress->raise();
        return;
    }
    QSettings settings;
    QDialog dialog(m_window);
    dialog.setWindowTitle(tr("Export Calls"));
    auto* form = new QFormLayout;
    auto* format = new QComboBox(&dialog);
    format->addItem(
        tr("JSONL: every record, attempts, decisions and wire exchanges"), int(ExportRequest::Format::Jsonl));
    format->addItem(tr("HAR 1.2: the HTTP traffic, for browser developer tools"), int(ExportRequest::Format::Har));
    format->addItem(tr("CSV: the calls table as shown"), int(ExportRequest::Format::Csv));
    format->setCurrentIndex(std::max(0, format->findData(settings.value(QStringLiteral("export/format"), 0).toInt())));
    form->addRow(tr("&Format:"), format);

    const int visible = int(m_panel->callIds(CallsPanel::Scope::Visible).size());
    const int selected = m_panel->selectedCount();
    const QString filter = m_panel->filterDescription();
    auto* visibleRows
        = new QRadioButton(filter.isEmpty() ? tr("All %n call(s) in the table", nullptr, visible)
                                            : tr("The %n call(s) the filter shows (%1)", nullptr, visible).arg(filter),
            &dialog);
    auto* selectedRows = new QRadioButton(tr("The %n selected call(s)", nullptr, selected), &dialog);
    selectedRows->setEnabled(selected > 0);
    (selected > 1 ? selectedRows : visibleRows)->setChecked(true);
    auto* scope = new QVBoxLayout;
    scope->addWidget(visibleRows);
    scope->addWidget(selectedRows);
    auto* scopeLabel = new QLabel(tr("&Calls:"), &dialog);
    scopeLabel->setBuddy(visibleRows);
    form->addRow(scopeLabel, scope);

    auto* pathRow = new QHBoxLayout;
    auto* path = new QLineEdit(&dialog);
    const QString dir = settings.value(QStringLiteral("export/dir"), QDir::homePath()).toString();
    const auto suggest = [&] {
        const auto f = ExportRequest::Format(format->currentData().toInt());
        const QFileInfo current(path->text());
        const QString base = path->text().isEmpty() ? QDir(dir).filePath(QStringLiteral("calls"))
                                                    : current.dir().filePath(current.completeBaseName());
        path->setText(base + ExportRequest::suffix(f));
    };
    suggest();
    connect(format, &QComboBox::currentIndexChanged, &dialog, suggest);
    auto* browse = new QPushButton(tr("&Browse…"), &dialog);
    connect(browse, &QPushButton::clicked, &dialog, [&] {
        const QString chosen = QFileDialog::getSaveFileName(&dialog, tr("Export calls to"), path->text());
        if (!chosen.isEmpty())
            path->setText(chosen);
    });
    pathRow->addWidget(path, 1);
    pathRow->addWidget(browse);
    auto* pathLabel = new QLabel(tr("F&ile:"), &dialog);
    pathLabel->setBuddy(path);
    form->addRow(pathLabel, pathRow);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addLayout(form);
    layout->addWidget(buttons);
    if (dialog.exec() != QDialog::Accepted || path->text().trimmed().isEmpty())
        return;
    const auto chosenFormat = ExportRequest::Format(format->currentData().toInt());
    settings.setValue(QStringLiteral("export/format"), int(chosenFormat));
    settings.setValue(QStringLiteral("export/dir"), QFileInfo(path->text()).absolutePath());
    m_interactive = true;
    start(chosenFormat, selectedRows->isChecked() ? CallsPanel::Scope::Selection : CallsPanel::Scope::Visible,
        path->text().trimmed());
}

ExportJob* CallsExporter::start(ExportRequest::Format format, CallsPanel::Scope scope, const QString& path)
{
    if (m_job) {
        onFinished(false, 0, tr("An export is already running; wait for it or cancel it first."));
        return nullptr;
    }
    ExportRequest request;
    request.format = format;
    request.path = path;
    QString error;
    if (!m_fillSource(request, &error)) {
        onFinished(false, 0, tr("Cannot export to %1: %2").arg(path, error));
        return nullptr;
    }
    qint64 total = 0;
    if (format == ExportRequest::Format::Csv) {
        request.rows = m_panel->rows(scope);
        total = request.rows.size();
    } else {
        const QStringList ids = m_panel->callIds(scope);
        request.callIds = QSet<QString>(ids.cbegin(), ids.cend());
        total = ids.size();
    }
    m_job = new ExportJob(std::move(request), this);
    m_progress
        = new QProgressDialog(tr("Exporting %n call(s) to %1…", nullptr, int(total)).arg(QFileInfo(path).fileName()),
            tr("Cancel"), 0, int(std::min<qint64>(total, INT_MAX)), m_window);
    m_progress->setObjectName(QStringLiteral("exportProgress"));
    m_progress->setWindowTitle(tr("Export Calls"));
    m_progress->setWindowModality(Qt::WindowModal);
    m_progress->setMinimumDuration(300);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    m_progress->setValue(0);
    connect(m_progress, &QProgressDialog::canceled, m_job, &ExportJob::cancel);
    connect(m_job, &ExportJob::progress, m_progress, [this](qint64 done, qint64 jobTotal) {
        if (jobTotal > 0)
            m_progress->setMaximum(int(std::min<qint64>(jobTotal, INT_MAX)));
        m_progress->setValue(int(std::min<qint64>(done, m_progress->maximum())));
    });
    connect(m_job, &ExportJob::finished, this, &CallsExporter::onFinished);
    ExportJob* job = m_job;
    job->start();
    return job;
}

void CallsExporter::onFinished(bool ok, int written, const QString& message)
{
    const bool cancelled = !ok && m_job && m_job->wasCancelled();
    if (m_progress) {
        m_progress->hide();
        m_progress->deleteLater();
        m_progress = nullptr;
    }
    if (m_job) {
        m_job->deleteLater();
        m_job = nullptr;
    }
    if (!ok && !cancelled && m_interactive && m_window)
        QMessageBox::warning(m_window, tr("Export failed"), message);
    m_interactive = false;
    Q_EMIT finished(ok, written, message);
}

} // namespace mcpscope
