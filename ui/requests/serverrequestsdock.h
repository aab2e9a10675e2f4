#pragma once

#include "requests/elicitationeditor.h"

#include <QDockWidget>
#include <QHash>

class QLabel;
class QListWidget;
class QListWidgetItem;
class QScrollArea;
class QStackedWidget;

namespace mcpscope {

class ServerRequestQueue;
struct PendingServerRequest;

/// The server requests panel: every sampling/createMessage and elicitation/create a server sent that
/// waits for the user, queued with a count in the title, each answered in its own editor
/// (SamplingEditor, ElicitationEditor) that keeps what was typed while another one is shown. The panel
/// is non-modal and comes forward when a request arrives, so the call that caused it stays in view.
///
/// Signals: statusMessage for what arrived and what was sent.
class ServerRequestsDock : public QDockWidget
{
    Q_OBJECT
public:
    ServerRequestsDock(ServerRequestQueue* queue, QWidget* parent = nullptr);

    /// Replaces the system browser (tests, screenshots): nothing is ever opened without it.
    void setUrlOpener(UrlOpener opener) { m_opener = std::move(opener); }
    /// Shows the request with this id (the newest waiting one is shown when it arrives).
    void showRequest(quint64 id);
    quint64 currentRequest() const;
    /// The editor of the request shown (SamplingEditor or ElicitationEditor), or nullptr.
    QWidget* currentEditor() const;
    QListWidget* list() const { return m_list; }

Q_SIGNALS:
    void statusMessage(const QString& text);

private:
    void onAdded(quint64 id);
    void onChanged(quint64 id);
    void onRemoved(quint64 id, const QString& why);
    QWidget* createEditor(const PendingServerRequest& request);
    void updateItem(QListWidgetItem* item, const PendingServerRequest& request);
    void updateCount();
    QListWidgetItem* itemOf(quint64 id) const;

    ServerRequestQueue* m_queue = nullptr;
    UrlOpener m_opener;
    QLabel* m_count = nullptr;
    QListWidget* m_list = nullptr;
    QLabel* m_origin = nullptr;
    QScrollArea* m_scroll = nullptr;
    QStackedWidget* m_editors = nullptr;
    QLabel* m_empty = nullptr;
    QHash<quint64, QWidget*> m_editorOf;
};

} // namespace mcpscope
