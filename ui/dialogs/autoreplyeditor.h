#pragma once

#include <QGroupBox>
#include <QJsonObject>

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace mcpscope {

/// A server's canned answers to its own requests (ServerConfig::autoReply), for scripted testing: a
/// sampling reply (text and model) and an elicitation answer (action, and for accept the content as a
/// JSON object). What is not checked waits for the user in the Server Requests panel. A script with
/// more than the fields shown (a full CreateMessageResult) is kept as it is until one of them is edited.
class AutoReplyEditor : public QGroupBox
{
    Q_OBJECT
public:
    explicit AutoReplyEditor(QWidget* parent = nullptr);

    void setScript(const QJsonObject& script);
    QJsonObject script() const;
    /// Empty when the fields make a script, else why not (the content is not a JSON object).
    QString problem() const;

Q_SIGNALS:
    void changed();

private:
    void updateEnabled();
    QJsonObject shownScript() const;

    QCheckBox* m_sampling = nullptr;
    QLineEdit* m_text = nullptr;
    QLineEdit* m_model = nullptr;
    QCheckBox* m_elicitation = nullptr;
    QComboBox* m_action = nullptr;
    QLineEdit* m_content = nullptr;
    QJsonObject m_loaded;
    QJsonObject m_loadedShown;
};

} // namespace mcpscope
