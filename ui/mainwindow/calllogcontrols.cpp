#include "calllogcontrols.h"

#include "calllog/calllogfile.h"
#include "calllog/jobtracker.h"
#include "calllog/logstore.h"
#include "calls/logviewerwindow.h"
#include "engine/engine.h"
#include "engine/storedsecrets.h"
#include "mainwindow/retentiondialog.h"
#include "mainwindow/workspacesession.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>

namespace mcpscope {

CallLogControls::CallLogControls(WorkspaceSession* session, QWidget* dialogParent)
    : QLabel(dialogParent)
    , m_session(session)
    , m_dialogParent(dialogParent)
{
    setObjectName(QStringLiteral("logStatus"));
    refresh();
    connect(session, &WorkspaceSession::logStatusChanged, this, &CallLogControls::refresh);
}

void CallLogControls::refresh()
{
    const WorkspaceSession::LogStatus status = m_session->logStatus();
    setText(status.text);
    setToolTip(status.toolTip);
    setStyleSheet(status.failing ? QStringLiteral("color:#b02a37;font-weight:bold") : QString());
}

void CallLogControls::editRetention()
{
    const LogStore* store = m_session->logStore();
    RetentionDialog dialog(store->retentionDays(), int(store->retentionBytes() / (1024 * 1024)),
        store->isOpen() ? store->path() : QString(), m_dialogParent);
    if (dialog.exec() == QDialog::Accepted)
        m_session->setLogRetention(dialog.maxAgeDays(), dialog.maxMegabytes());
}

void CallLogControls::chooseLogFile()
{
    const QString path = QFileDialog::getOpenFileName(m_dialogParent, tr("Open a call log (read-only)"),
        QSettings().value(QStringLiteral("export/dir")).toString(), tr("Call logs (*.jsonl);;All files (*)"));
    if (!path.isEmpty())
        openLogFile(path, true);
}

void CallLogControls::openLogFile(const QString& path, bool interactive)
{
    // Big logs are parsed on a worker thread; the window opens when they are read.
    Q_EMIT statusMessage(tr("Reading %1…").arg(path));
    JobTracker::run(
        nullptr, this, [path] { return CallLogReader::read(path); },
        [this, path, interactive](CallLogReadResult result) {
            if (result.ok && result.records.isEmpty() && !result.problems.isEmpty()) {
                // Lines, but not one this McpScope can show (e.g. all from a newer schema).
                result.ok = false;
                result.error = tr("%1: no call record could be read. %2")
                                   .arg(path, result.problems.mid(0, 3).join(QStringLiteral("; ")));
            }
            if (!result.ok) {
                Q_EMIT statusMessage(result.error);
                if (interactive)
                    QMessageBox::warning(m_dialogParent, tr("Cannot open call log"), result.error);
                Q_EMIT logOpenFailed(result.error);
                return;
            }
            // The session's redactor as it is at each export, not as it was now: a token learned meanwhile counts.
            auto* window = new LogViewerWindow(path, result, [session = QPointer<WorkspaceSession>(m_session)] {
                return session ? session->engine()->redactor() : Redactor();
            });
            // What the token store keeps for the file's own HTTP servers (their tokens may be in it in plain
            // text); the keychain is only asked when there are such servers.
            const QList<ServerConfig> servers = StoredSecrets::serversOf(result.records);
            if (!servers.isEmpty()) {
                StoredSecrets::read(m_session->engine()->tokenStore(), servers, window,
                    [window](const QStringList& secrets, const QStringList&) { window->addSecretValues(secrets); });
            }
            window->show();
            Q_EMIT statusMessage(tr("Opened %1: %n call(s)", nullptr, int(result.records.size())).arg(path)
                + (result.problems.isEmpty() ? QString()
                                             : tr(", %n line(s) skipped", nullptr, int(result.problems.size()))));
            Q_EMIT logOpened(window);
        });
}

} // namespace mcpscope
