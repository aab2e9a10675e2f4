#pragma once

#include "calllog/calllogfile.h"
#include "calllog/redactor.h"

#include <QHash>
#include <QMainWindow>

#include <functional>

class QLabel;

namespace mcpscope {

class CallsExporter;
class CallsPanel;

/// A call log file (JSONL, from this or another machine) opened read-only: the same calls table,
/// filters and timelines as the live window, without any server. Lines that could not be read are
/// listed in a banner above the table; every complete record is shown.
///
/// The file may be older than the secrets McpScope knows now: a call's details and every export pass
/// through the session's redactor (sessionRedactor, asked each time: every secret value the workspace
/// knows by then) plus the values given to addSecretValues (what the token store keeps for the file's
/// own servers).
class LogViewerWindow : public QMainWindow
{
    Q_OBJECT
public:
    LogViewerWindow(const QString& path, const CallLogReadResult& log, std::function<Redactor()> sessionRedactor = {},
        QWidget* parent = nullptr);
    ~LogViewerWindow() override;

    QString path() const { return m_path; }
    CallsPanel* panel() const { return m_panel; }
    CallsExporter* exporter() const { return m_exporter; }
    int recordCount() const { return int(m_records.size()); }
    /// The banner's text: the problems met while reading, or empty.
    QString problemsText() const;
    void addSecretValues(const QStringList& values);
    /// What a call's details and exports are redacted with now.
    Redactor redactor() const;

private:
    QString m_path;
    QList<CallRecord> m_records;
    QHash<QString, qsizetype> m_index;
    std::function<Redactor()> m_sessionRedactor;
    QStringList m_secretValues;
    CallsPanel* m_panel = nullptr;
    CallsExporter* m_exporter = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace mcpscope
