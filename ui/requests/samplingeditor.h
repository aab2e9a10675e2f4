#pragma once

#include <QJsonObject>
#include <QWidget>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace mcpscope {

/// One sampling/createMessage request as the user answers it: the request in full (messages with their
/// images, the system prompt, model preferences, maxTokens, tools and toolChoice, includeContext), and
/// the reply being written (role, text, model, stopReason).
///
/// Signals: approved(result) with the CreateMessageResult to send; rejected().
class SamplingEditor : public QWidget
{
    Q_OBJECT
public:
    explicit SamplingEditor(const QJsonObject& params, QWidget* parent = nullptr);

    /// The CreateMessageResult the reply fields make.
    QJsonObject result() const;
    /// The request as the panel shows it (HTML; images are resources of the browser's document).
    static QString requestHtml(const QJsonObject& params);

Q_SIGNALS:
    void approved(const QJsonObject& result);
    void rejected();

private:
    QTextBrowser* m_request = nullptr;
    QComboBox* m_role = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QLineEdit* m_model = nullptr;
    QComboBox* m_stopReason = nullptr;
    QPushButton* m_approve = nullptr;
};

} // namespace mcpscope
