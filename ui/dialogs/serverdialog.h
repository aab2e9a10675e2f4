#pragma once

#include <optional>

#include "config/serverconfig.h"

#include <QDialog>
#include <QHash>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QDialogButtonBox;

namespace mcpscope {

class AutoReplyEditor;
class RootsEditor;

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

    /// Whether the token store already holds a client secret / private key for this server: the dialog
    /// then shows "stored" (never the value) with a Clear button.
    void setStoredCredentials(bool secretStored, bool keyStored);
    /// What OK should hand to ServerAuth::setClientCredentials: changed is false when the user neither
    /// entered a secret, loaded a key nor cleared one. The id is in config().oauthClientId.
    struct CredentialChange
    {
        bool changed = false;
        std::optional<QString> clientSecret; ///< unset: keep what is stored; empty: cleared
        std::optional<QByteArray> clientKeyPem; ///< the PEM file's bytes, never its path; unset: keep
    };
    CredentialChange credentialChange() const;
    /// Reads a PEM private key for private_key_jwt; false with *error when it is not one.
    bool loadKeyFile(const QString& path, QString* error);
    /// Puts the focus on the Authorization group (the Auth view's Edit Client Credentials).
    void focusCredentials();

private:
    void updateState();
    void updateCredentialRows();
    void chooseKeyFile();
    /// Shows each secret value as secretmask::token(), keeping it for config(); revealSecrets() puts them back.
    void hideSecrets();
    void revealSecrets();

    QStringList m_taken;
    QLineEdit* m_name = nullptr;
    QComboBox* m_transport = nullptr;
    QComboBox* m_era = nullptr;
    /// The configuration setConfig() loaded: its knownEra stays while the era is auto and the endpoint the same.
    ServerConfig m_loaded;
    QStackedWidget* m_pages = nullptr;
    int m_shownPage = -1; ///< the page updateState() last showed and sized the dialog for
    QLineEdit* m_command = nullptr;
    QLineEdit* m_args = nullptr;
    QPlainTextEdit* m_env = nullptr;
    QLineEdit* m_secretEnv = nullptr;
    QLineEdit* m_cwd = nullptr;
    QSpinBox* m_exitWait = nullptr; ///< ServerConfig::exitWaitMs; its minimum (-1) means unset
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
    QComboBox* m_grant = nullptr;
    QLineEdit* m_clientId = nullptr;
    QLineEdit* m_clientSecret = nullptr;
    QLabel* m_secretStored = nullptr;
    QPushButton* m_clearSecret = nullptr;
    QLabel* m_keyState = nullptr;
    QPushButton* m_chooseKey = nullptr;
    QPushButton* m_clearKey = nullptr;
    QString m_originalGrant;
    bool m_secretStoredFlag = false;
    bool m_keyStoredFlag = false;
    bool m_secretCleared = false;
    bool m_keyCleared = false;
    QByteArray m_newKey;
    QString m_keyProblem;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    RootsEditor* m_roots = nullptr;
    AutoReplyEditor* m_autoReply = nullptr;
    QCheckBox* m_revealSecrets = nullptr;
    QHash<QString, QString> m_hiddenEnv; ///< secret variable → its value, while it shows as dots
    QHash<QString, QString> m_hiddenHeaders;
    QString m_hiddenPassword; ///< the URL's password, while it shows as dots
};

} // namespace mcpscope
