#pragma once

#include "calllog/callrecord.h"

#include <QHash>
#include <QJsonObject>
#include <QPointer>
#include <QSplitter>

#include <functional>

class QCompleter;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QStringListModel;
class QTextBrowser;

namespace mcpscope {

class Engine;
class PromptsModel;
class ServerConnection;

/// The Prompts tab: the selected server's prompts (prompts/list through Engine::list), a form with one
/// field per argument (required ones marked) whose suggestions come from completion/complete
/// (ref/prompt) as the user types, and the rendered result of prompts/get. Every request goes through
/// Engine, so each has a call record.
///
/// Signals: statusMessage(text) when a request cannot start or fails, saying why; promptRendered
/// when a prompts/get result is shown; completionsShown(argument, values) when suggestions arrive.
class PromptsPage : public QSplitter
{
    Q_OBJECT
public:
    PromptsPage(Engine* engine, std::function<ServerConnection*()> currentConnection, QWidget* parent = nullptr);

    /// Follows the selected server: lists its prompts now if it is ready, and again whenever it becomes ready.
    void showConnection(ServerConnection* connection);
    /// Lists the prompts of the selected server again.
    void refresh();
    /// Selects a prompt by name and builds its form; false when there is no such prompt.
    bool selectPrompt(const QString& name);
    /// Gets the selected prompt with the form's arguments.
    void getPrompt();
    /// Asks for completions of one argument's current text.
    void requestCompletion(const QString& argument);

    PromptsModel* model() const { return m_model; }
    QListView* promptsView() const { return m_list; }
    QLineEdit* argumentField(const QString& name) const { return m_fields.value(name); }
    QTextBrowser* messagesView() const { return m_messages; }
    /// The plain text of the last rendered prompt ("role: text" per block).
    QString renderedText() const { return m_renderedText; }

Q_SIGNALS:
    void statusMessage(const QString& text);
    void promptsListed(int count);
    void promptRendered();
    void completionsShown(const QString& argument, const QStringList& values);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void buildForm(const QJsonObject& prompt);
    QJsonObject formArguments() const;

    Engine* m_engine;
    std::function<ServerConnection*()> m_currentConnection;
    PromptsModel* m_model = nullptr;
    QListView* m_list = nullptr;
    QLabel* m_title = nullptr;
    QWidget* m_formArea = nullptr;
    QFormLayout* m_form = nullptr;
    QPushButton* m_get = nullptr;
    QTextBrowser* m_messages = nullptr;
    QHash<QString, QLineEdit*> m_fields;
    QHash<QString, QStringListModel*> m_suggestions;
    QString m_prompt;
    QString m_renderedText;
    QPointer<ServerConnection> m_connection;
    QMetaObject::Connection m_readyConnection;
    /// Bumped on each list/selection change: a late answer for an older one is dropped.
    quint64 m_generation = 0;
    bool m_stale = false; ///< the server (re)connected since the last listing; listed when shown
    QHash<QString, quint64> m_completionGeneration;
};

} // namespace mcpscope
