#pragma once

#include "config/serverconfig.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QStackedWidget;
class QDialogButtonBox;

namespace mcpscope {

/// Adds or edits one server: stdio (command, args, env, cwd) or HTTP (URL, headers, transport,
/// TLS, a launch command), plus the per-server recovery policy. OK stays disabled until the
/// configuration is usable, and the reason is shown in words.
class ServerDialog : public QDialog
{
    Q_OBJECT
public:
    /// takenNames: names of other servers, which this one may not reuse.
    explicit ServerDialog(const QStringList& takenNames, QWidget* parent = nullptr);

    void setConfig(const ServerConfig& config);
    ServerConfig config() const;
    /// Empty when the configuration is usable, else why not.
    QString problem() const;

private:
    void updateState();

    QStringList m_taken;
    QLineEdit* m_name = nullptr;
    QComboBox* m_transport = nullptr;
    QStackedWidget* m_pages = nullptr;
    QLineEdit* m_command = nullptr;
    QLineEdit* m_args = nullptr;
    QPlainTextEdit* m_env = nullptr;
    QLineEdit* m_secretEnv = nullptr;
    QLineEdit* m_cwd = nullptr;
    QLineEdit* m_url = nullptr;
    QPlainTextEdit* m_headers = nullptr;
    QLineEdit* m_secretHeaders = nullptr;
    QCheckBox* m_tlsVerify = nullptr;
    QLineEdit* m_launch = nullptr;
    QCheckBox* m_viaProxy = nullptr;
    QSpinBox* m_timeout = nullptr;
    QSpinBox* m_keepalive = nullptr;
    QSpinBox* m_threshold = nullptr;
    QSpinBox* m_cooldown = nullptr;
    QCheckBox* m_countToolErrors = nullptr;
    QCheckBox* m_idempotentReplay = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace mcpscope
