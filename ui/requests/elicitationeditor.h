#pragma once

#include <QJsonObject>
#include <QUrl>
#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QStackedWidget;

namespace mcpscope {

class SchemaForm;

/// Opens a URL outside McpScope (the system browser); tests put a recorder in its place.
using UrlOpener = std::function<bool(const QUrl&)>;

/// One elicitation/create request as the user answers it.
///
/// Form mode: the server's message and its requestedSchema as a form (SchemaForm, the tool composer's
/// fields: every primitive type and format, single- and multi-select enums with or without titles,
/// defaults filled in, required fields marked); Accept validates first. URL mode: the server's message
/// and the URL in full with its host highlighted; nothing is fetched, and the browser opens only after
/// the user confirmed in a second step. After that the editor waits for the server's
/// notifications/elicitation/complete, which the panel turns into its removal.
///
/// Signals: answered(result) with the ElicitResult to send; dismissed() to forget a request without
/// answering (one that only awaits completion, or a -32042 URL).
class ElicitationEditor : public QWidget
{
    Q_OBJECT
public:
    /// fromError: a URL named by a tool call's -32042 error, which nobody waits an answer for.
    ElicitationEditor(const QJsonObject& params, bool fromError, UrlOpener opener, QWidget* parent = nullptr);

    /// A URL elicitation the user accepted: now waits for the server to say it is complete.
    void showAwaitingCompletion();
    SchemaForm* form() const { return m_form; }

    /// The URL as rich text with its host highlighted.
    static QString highlightedUrl(const QUrl& url);
    /// What the user should know about a URL before opening it: not https, an IP address, a punycode host.
    static QStringList urlWarnings(const QUrl& url);

Q_SIGNALS:
    void answered(const QJsonObject& result);
    void dismissed();

private:
    QWidget* buildForm(const QJsonObject& params);
    QWidget* buildUrl(const QJsonObject& params);
    QWidget* buildButtons(bool accept);
    void acceptForm();
    void openUrl();

    bool m_fromError = false;
    UrlOpener m_opener;
    QUrl m_url;
    SchemaForm* m_form = nullptr;
    QLabel* m_problems = nullptr;
    QStackedWidget* m_urlSteps = nullptr;
    QWidget* m_answerButtons = nullptr;
};

} // namespace mcpscope
