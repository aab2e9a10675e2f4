#pragma once

#include "calllog/exportjob.h"
#include "calls/callspanel.h"

#include <QObject>
#include <QPointer>

#include <functional>

class QProgressDialog;
class QWidget;

namespace mcpscope {

/// File › Export Calls for a CallsPanel: asks for the format (JSONL, HAR, CSV), the rows (the
/// visible ones, i.e. the current filter, or the selected ones) and the file, then runs an
/// ExportJob on a worker thread behind a progress dialog with Cancel.
///
/// The owner says where full records come from (fillSource: the log store's database, or an opened
/// log's records) and which secrets to redact.
class CallsExporter : public QObject
{
    Q_OBJECT
public:
    /// Fills request.storePath or request.records, and request.redactor. Returns false with *error
    /// when there is nothing to read from.
    using SourceFiller = std::function<bool(ExportRequest& request, QString* error)>;

    CallsExporter(CallsPanel* panel, QWidget* window, SourceFiller fillSource);
    ~CallsExporter() override;

    /// The dialog, then start(); failures are shown in a message box.
    void exportInteractively();
    /// Starts an export without asking. Returns nullptr (and emits finished) when it cannot start.
    /// The job is owned by the exporter and deleted after finished.
    ExportJob* start(ExportRequest::Format format, CallsPanel::Scope scope, const QString& path);
    bool isRunning() const { return m_job != nullptr; }

Q_SIGNALS:
    void finished(bool ok, int written, const QString& message);

private:
    void onFinished(bool ok, int written, const QString& message);

    CallsPanel* m_panel;
    QPointer<QWidget> m_window;
    SourceFiller m_fillSource;
    QPointer<ExportJob> m_job;
    QProgressDialog* m_progress = nullptr;
    bool m_interactive = false;
};

} // namespace mcpscope
