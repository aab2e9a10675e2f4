#pragma once

// Closes the read-only log windows a GUI test opened (File › Open Call Log). They are top-level windows of
// their own, and so are the menus they own, which go with them: pointers first, then the deletes.

#include "calls/logviewerwindow.h"

#include <QApplication>
#include <QList>
#include <QPointer>

namespace mcpscope::test {

inline void closeLogViewers()
{
    QList<QPointer<LogViewerWindow>> viewers;
    const QList<QWidget*> windows = QApplication::topLevelWidgets();
    for (QWidget* window : windows) {
        if (auto* viewer = qobject_cast<LogViewerWindow*>(window))
            viewers.append(viewer);
    }
    for (const QPointer<LogViewerWindow>& viewer : std::as_const(viewers))
        delete viewer.data();
}

} // namespace mcpscope::test
