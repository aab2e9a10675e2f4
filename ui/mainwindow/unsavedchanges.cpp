#include "unsavedchanges.h"

#include "mainwindow/workspacesession.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMessageBox>

namespace mcpscope {

bool confirmCloseWorkspace(QWidget* parent, const WorkspaceSession* session, const std::function<bool()>& save)
{
    if (!session->isModified())
        return true;
    const auto tr = [](const char* text) { return QCoreApplication::translate("mcpscope::MainWindow", text); };
    const QString file = session->workspace().filePath;
    QMessageBox box(QMessageBox::Warning, tr("Unsaved workspace"),
        file.isEmpty() ? tr("The servers of this workspace were never saved.")
                       : tr("The workspace %1 has changes that were not saved.").arg(QFileInfo(file).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setObjectName(QStringLiteral("unsavedChangesBox"));
    box.setInformativeText(tr("Save the servers before quitting? Discarding loses the servers added, edited, "
                              "imported or removed since the workspace was last saved."));
    box.setDefaultButton(QMessageBox::Save);
    box.setEscapeButton(QMessageBox::Cancel);
    switch (box.exec()) {
    case QMessageBox::Save:
        return save();
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

} // namespace mcpscope
