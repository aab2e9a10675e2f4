#include "serverdialog.h"

#include "calllog/redactor.h"
#include "config/commandline.h"
#include "dialogs/autoreplyeditor.h"
#include "dialogs/rootseditor.h"
#include "dialogs/secretmask.h"
#include "presentation/presentation.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpacerItem>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <utility>

namespace mcpscope {

namespace {
enum Page { StdioPage, HttpPage };

QString joinPairs(const QList<QPair<QString, QString>>& pairs, const QString& separator)
{
    QStringList lines;
    for (const auto& [key, value] : pairs)
        lines.append(key + separator + value);
    return lines.join(QLatin1Char('\n'));
}

QList<QPair<QString, QString>> splitPairs(const QString& text, QChar separator)
{
    QList<QPair<QString, QString>> pairs;
    for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const qsizetype at = line.indexOf(separator);
        if (at > 0)
            pairs.append({ line.left(at).trimmed(), line.mid(at + 1).trimmed() });
    }
    return pairs;
}

/// Names separated by commas or spaces ("API_KEY, TOKEN").
QStringList splitNames(const QString& text)
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

QLineEdit* secretNamesEdit(QWidget* parent, const QString& objectName, const QString& placeholder, const QString& tip)
{
    auto* edit = new QLineEdit(parent);
    edit->setObjectName(objectName);
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(tip);
    return edit;
}

QSpinBox* spin(int min, int max, const QString& suffix, QWidget* parent)
{
    auto* box = new QSpinBox(parent);
    box->setRange(min, max);
    box->setSuffix(suffix);
    return box;
}
} // namespace

ServerDialog::ServerDialog(const QStringList& takenNames, QWidget* parent)
    : QDialog(parent)
    , m_taken(takenNames)
{
    setWindowTitle(tr("Server"));
    auto* layout = new QVBoxLayout(this);
    auto* top = new QFormLayout;
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("name"));
    m_transport = new QComboBox(this);
    m_transport->setObjectName(QStringLiteral("transport"));
    m_transport->addItem(tr("stdio (a local command)"), int(TransportKind::Stdio));
    m_transport->addItem(tr("HTTP (Streamable HTTP, falling back to legacy SSE)"), int(TransportKind::AutoHttp));
    m_transport->addItem(tr("Streamable HTTP only"), int(TransportKind::StreamableHttp));
    m_transport->addItem(tr("Legacy HTTP+SSE only"), int(TransportKind::LegacySse));
    m_era = new QComboBox(this);
    m_era->setObjectName(QStringLiteral("era"));
    for (const ProtocolEra era : { ProtocolEra::Auto, ProtocolEra::Legacy, ProtocolEra::Modern }) {
        m_era->addItem(Presentation::eraChoiceText(era), int(era));
        m_era->setItemData(m_era->count() - 1, Presentation::eraChoiceToolTip(era), Qt::ToolTipRole);
    }
    const auto eraTip
        = [this] { m_era->setToolTip(Presentation::eraChoiceToolTip(ProtocolEra(m_era->currentData().toInt()))); };
    connect(m_era, &QComboBox::currentIndexChanged, this, eraTip);
    top->addRow(tr("&Name:"), m_name);
    top->addRow(tr("&Transport:"), m_transport);
    top->addRow(tr("Protocol &era:"), m_era);
    layout->addLayout(top);

    m_pages = new QStackedWidget(this);
    auto* stdio = new QWidget(m_pages);
    auto* stdioForm = new QFormLayout(stdio);
    m_command = new QLineEdit(stdio);
    m_command->setObjectName(QStringLiteral("command"));
    m_command->setPlaceholderText(tr("npx"));
    m_args = new QLineEdit(stdio);
    m_args->setObjectName(QStringLiteral("args"));
    m_args->setPlaceholderText(tr("-y @modelcontextprotocol/server-everything"));
    m_args->setToolTip(
        tr("Split like a shell: put an argument that contains spaces in 'single' or \"double\" quotes."));
    m_env = new QPlainTextEdit(stdio);
    m_env->setObjectName(QStringLiteral("env"));
    m_env->setPlaceholderText(tr("KEY=value, one per line"));
    m_env->setMaximumHeight(80);
    m_secretEnv = secretNamesEdit(stdio, QStringLiteral("secretEnv"), tr("API_KEY, TOKEN"),
        tr("Variables whose values are secret: McpScope never shows, logs or exports them."));
    m_cwd = new QLineEdit(stdio);
    m_cwd->setObjectName(QStringLiteral("cwd"));
    stdioForm->addRow(tr("&Command:"), m_command);
    stdioForm->addRow(tr("&Arguments:"), m_args);
    stdioForm->addRow(tr("&Environment:"), m_env);
    stdioForm->addRow(tr("&Secret variables:"), m_secretEnv);
    stdioForm->addRow(tr("&Working directory:"), m_cwd);
    m_exitWait = spin(-1, 600000, tr(" ms"), stdio);
    m_exitWait->setObjectName(QStringLiteral("exitWait"));
    m_exitWait->setSingleStep(250);
    m_exitWait->setSpecialValueText(tr("default (2 s; 250 ms in mcpscope-cli)"));
    m_exitWait->setToolTip(tr("When the server is stopped, McpScope closes its stdin and waits this long for it to "
                              "exit by itself, then sends SIGTERM to its process group, and SIGKILL 2 s later."));
    stdioForm->addRow(tr("E&xit wait:"), m_exitWait);
    // The stack is as tall as the HTTP page: the spare height goes below the last row, not between the rows.
    stdioForm->addItem(new QSpacerItem(0, 0, QSizePolicy::Minimum, QSizePolicy::Expanding));
    m_pages->addWidget(stdio);

    auto* http = new QWidget(m_pages);
    auto* httpForm = new QFormLayout(http);
    m_url = new QLineEdit(http);
    m_url->setObjectName(QStringLiteral("url"));
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:3000/mcp"));
    m_headers = new QPlainTextEdit(http);
    m_headers->setObjectName(QStringLiteral("headers"));
    m_headers->setPlaceholderText(tr("Name: value, one per line"));
    m_headers->setMaximumHeight(80);
    m_secretHeaders = secretNamesEdit(http, QStringLiteral("secretHeaders"), tr("X-Api-Key"),
        tr("Headers whose values are secret, besides Authorization, Proxy-Authorization and Cookie: McpScope "
           "never shows, logs or exports them."));
    m_tlsVerify = new QCheckBox(tr("Verify the server's TLS certificate"), http);
    m_tlsVerify->setObjectName(QStringLiteral("tlsVerify"));
    m_launch = new QLineEdit(http);
    m_launch->setObjectName(QStringLiteral("launchCommand"));
    m_launch->setToolTip(tr("Started before connecting and stopped when McpScope exits. Split like a shell: put an "
                            "argument that contains spaces in 'single' or \"double\" quotes."));
    m_viaProxy = new QCheckBox(tr("Route through the fault proxy"), http);
    m_viaProxy->setObjectName(QStringLiteral("viaFaultProxy"));
    httpForm->addRow(tr("&URL:"), m_url);
    httpForm->addRow(tr("&Headers:"), m_headers);
    httpForm->addRow(tr("Secret h&eaders:"), m_secretHeaders);
    httpForm->addRow(QString(), m_tlsVerify);
    httpForm->addRow(tr("&Launch command:"), m_launch);
    httpForm->addRow(QString(), m_viaProxy);

    auto* auth = new QGroupBox(tr("Authorization (OAuth)"), http);
    auth->setObjectName(QStringLiteral("authorizationGroup"));
    auto* authForm = new QFormLayout(auth);
    m_grant = new QComboBox(auth);
    m_grant->setObjectName(QStringLiteral("oauthGrant"));
    m_grant->addItem(tr("Authorization code (a user signs in in the browser)"), QStringLiteral("authorization_code"));
    m_grant->addItem(tr("Client credentials (machine to machine)"), QStringLiteral("client_credentials"));
    m_clientId = new QLineEdit(auth);
    m_clientId->setObjectName(QStringLiteral("oauthClientId"));
    m_clientId->setPlaceholderText(tr("empty: McpScope registers itself"));
    m_clientId->setToolTip(tr("A client registered beforehand with the authorization server. Without one McpScope uses "
                              "a Client ID Metadata Document or dynamic client registration."));
    auto* secretRow = new QHBoxLayout;
    m_clientSecret = new QLineEdit(auth);
    m_clientSecret->setObjectName(QStringLiteral("oauthClientSecret"));
    m_clientSecret->setEchoMode(QLineEdit::Password);
    m_clientSecret->setPlaceholderText(tr("optional; stored in the keychain"));
    m_secretStored = new QLabel(tr("••• stored in the keychain"), auth);
    m_secretStored->setObjectName(QStringLiteral("oauthSecretStored"));
    m_clearSecret = new QPushButton(tr("Clear"), auth);
    m_clearSecret->setObjectName(QStringLiteral("oauthClearSecret"));
    m_clearSecret->setAutoDefault(false);
    secretRow->addWidget(m_clientSecret, 1);
    secretRow->addWidget(m_secretStored, 1);
    secretRow->addWidget(m_clearSecret);
    auto* keyRow = new QHBoxLayout;
    m_keyState = new QLabel(auth);
    m_keyState->setObjectName(QStringLiteral("oauthKeyState"));
    m_chooseKey = new QPushButton(tr("Choose PEM File…"), auth);
    m_chooseKey->setObjectName(QStringLiteral("oauthChooseKey"));
    m_chooseKey->setAutoDefault(false);
    m_chooseKey->setToolTip(tr("An EC P-256 private key for private_key_jwt. Its contents are stored in the keychain, "
                               "not the file's path."));
    m_clearKey = new QPushButton(tr("Clear"), auth);
    m_clearKey->setObjectName(QStringLiteral("oauthClearKey"));
    m_clearKey->setAutoDefault(false);
    keyRow->addWidget(m_keyState, 1);
    keyRow->addWidget(m_chooseKey);
    keyRow->addWidget(m_clearKey);
    auto* note = new QLabel(
        tr("The client id is saved in the workspace; the secret and the key only in the keychain, never shown again."),
        auth);
    note->setWordWrap(true);
    note->setEnabled(false);
    authForm->addRow(tr("&Grant:"), m_grant);
    authForm->addRow(tr("Client &id:"), m_clientId);
    authForm->addRow(tr("Client se&cret:"), secretRow);
    authForm->addRow(tr("Private &key:"), keyRow);
    authForm->addRow(note);
    httpForm->addRow(auth);
    connect(m_grant, &QComboBox::currentIndexChanged, this, &ServerDialog::updateState);
    connect(m_clientId, &QLineEdit::textChanged, this, &ServerDialog::updateState);
    connect(m_clientSecret, &QLineEdit::textChanged, this, &ServerDialog::updateState);
    connect(m_clearSecret, &QPushButton::clicked, this, [this] {
        m_secretCleared = true;
        m_clientSecret->clear();
        updateState();
    });
    connect(m_clearKey, &QPushButton::clicked, this, [this] {
        m_keyCleared = true;
        m_newKey.clear();
        m_keyProblem.clear();
        updateState();
    });
    connect(m_chooseKey, &QPushButton::clicked, this, &ServerDialog::chooseKeyFile);
    m_pages->addWidget(http);
    layout->addWidget(m_pages);
    // Secret values (secret variables and headers, Authorization, the URL's password) show as dots until
    // asked for, so that a screen share or a screenshot of the dialog does not give them away.
    m_revealSecrets = new QCheckBox(tr("Show secret values"), this);
    m_revealSecrets->setObjectName(QStringLiteral("revealSecrets"));
    m_revealSecrets->setToolTip(tr("Secret variables, secret headers, Authorization, Proxy-Authorization, Cookie "
                                   "and the URL's password show as %1 until this is checked.")
                                    .arg(secretmask::token()));
    layout->addWidget(m_revealSecrets);
    connect(m_revealSecrets, &QCheckBox::toggled, this, [this](bool reveal) {
        if (reveal)
            revealSecrets();
        else
            hideSecrets();
    });
    for (QLineEdit* names : { m_secretEnv, m_secretHeaders })
        connect(names, &QLineEdit::editingFinished, this, [this] {
            if (!m_revealSecrets->isChecked())
                hideSecrets();
        });

    m_roots = new RootsEditor(this);
    layout->addWidget(m_roots);
    m_autoReply = new AutoReplyEditor(this);
    layout->addWidget(m_autoReply);
    connect(m_autoReply, &AutoReplyEditor::changed, this, &ServerDialog::updateState);

    auto* policy = new QGroupBox(tr("Requests and recovery"), this);
    auto* policyForm = new QFormLayout(policy);
    m_timeout = spin(1, 3600, tr(" s"), policy);
    m_timeout->setObjectName(QStringLiteral("timeout"));
    m_keepalive = spin(0, 3600, tr(" s"), policy);
    m_keepalive->setObjectName(QStringLiteral("keepalive"));
    m_keepalive->setSpecialValueText(tr("off"));
    m_keepalive->setToolTip(tr("A ping this often while no request is in flight. Legacy (2025-11-25) servers only: the "
                               "2026-07-28 revision has no ping, so a modern server is never pinged."));
    m_threshold = spin(1, 100, tr(" failures"), policy);
    m_threshold->setObjectName(QStringLiteral("breakerThreshold"));
    m_cooldown = spin(1, 3600, tr(" s"), policy);
    m_cooldown->setObjectName(QStringLiteral("breakerCooldown"));
    m_countToolErrors = new QCheckBox(tr("Tool errors count as breaker strikes"), policy);
    m_countToolErrors->setObjectName(QStringLiteral("countToolErrors"));
    m_idempotentReplay
        = new QCheckBox(tr("Replay idempotent tools after an expiry (idempotent-replay policy)"), policy);
    m_idempotentReplay->setObjectName(QStringLiteral("idempotentReplay"));
    policyForm->addRow(tr("Request &timeout:"), m_timeout);
    policyForm->addRow(tr("&Keepalive ping every:"), m_keepalive);
    policyForm->addRow(tr("Breaker opens after:"), m_threshold);
    policyForm->addRow(tr("Breaker &cooldown:"), m_cooldown);
    policyForm->addRow(QString(), m_countToolErrors);
    policyForm->addRow(QString(), m_idempotentReplay);
    layout->addWidget(policy);

    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("problem"));
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    for (QLineEdit* edit : { m_name, m_command, m_args, m_cwd, m_url, m_launch })
        connect(edit, &QLineEdit::textChanged, this, &ServerDialog::updateState);
    connect(m_headers, &QPlainTextEdit::textChanged, this, &ServerDialog::updateState);
    connect(m_env, &QPlainTextEdit::textChanged, this, &ServerDialog::updateState);
    connect(m_transport, &QComboBox::currentIndexChanged, this, &ServerDialog::updateState);
    setConfig(ServerConfig());
}

void ServerDialog::setConfig(const ServerConfig& c)
{
    m_loaded = c;
    m_name->setText(c.name);
    m_transport->setCurrentIndex(m_transport->findData(int(c.transport)));
    m_era->setCurrentIndex(m_era->findData(int(c.era)));
    m_era->setToolTip(Presentation::eraChoiceToolTip(c.era));
    m_command->setText(c.command);
    m_args->setText(CommandLine::join(c.args));
    QList<QPair<QString, QString>> env;
    for (auto it = c.env.cbegin(); it != c.env.cend(); ++it)
        env.append({ it.key(), it.value() });
    m_env->setPlainText(joinPairs(env, QStringLiteral("=")));
    m_secretEnv->setText(c.secretEnv.join(QStringLiteral(", ")));
    m_cwd->setText(c.cwd);
    m_exitWait->setValue(c.exitWaitMs.value_or(m_exitWait->minimum()));
    m_url->setText(c.url.toString());
    m_headers->setPlainText(joinPairs(c.headers, QStringLiteral(": ")));
    m_secretHeaders->setText(c.secretHeaders.join(QStringLiteral(", ")));
    m_tlsVerify->setChecked(c.tlsVerify);
    m_launch->setText(c.launchCommand);
    m_viaProxy->setChecked(c.viaFaultProxy);
    m_timeout->setValue(c.requestTimeoutMs / 1000);
    m_keepalive->setValue(c.keepaliveIntervalSec);
    m_threshold->setValue(c.breakerThreshold);
    m_cooldown->setValue(c.breakerCooldownSec);
    m_countToolErrors->setChecked(c.countToolErrors);
    m_idempotentReplay->setChecked(c.idempotentReplay);
    m_roots->setRoots(c.roots);
    m_autoReply->setScript(c.autoReply);
    m_hiddenEnv.clear();
    m_hiddenHeaders.clear();
    m_hiddenPassword.clear();
    if (!m_revealSecrets->isChecked())
        hideSecrets();
    m_originalGrant = c.oauthGrant;
    m_grant->setCurrentIndex(c.oauthGrant == QLatin1String("client_credentials") ? 1 : 0);
    m_clientId->setText(c.oauthClientId);
    m_clientSecret->clear();
    m_newKey.clear();
    m_keyProblem.clear();
    m_secretCleared = m_keyCleared = false;
    updateState();
}

void ServerDialog::setStoredCredentials(bool secretStored, bool keyStored)
{
    m_secretStoredFlag = secretStored;
    m_keyStoredFlag = keyStored;
    m_secretCleared = m_keyCleared = false;
    updateState();
}

ServerDialog::CredentialChange ServerDialog::credentialChange() const
{
    CredentialChange change;
    // Only what the user touched changes: a new secret keeps a stored key, and the reverse.
    if (!m_clientSecret->text().isEmpty())
        change.clientSecret = m_clientSecret->text();
    else if (m_secretCleared && m_secretStoredFlag)
        change.clientSecret = QString();
    if (!m_newKey.isEmpty())
        change.clientKeyPem = m_newKey;
    else if (m_keyCleared && m_keyStoredFlag)
        change.clientKeyPem = QByteArray();
    change.changed = change.clientSecret.has_value() || change.clientKeyPem.has_value();
    return change;
}

bool ServerDialog::loadKeyFile(const QString& path, QString* error)
{
    QFile file(path);
    if (file.size() > 64 * 1024) {
        *error = tr("%1 is too big for a private key.").arg(QFileInfo(path).fileName());
        return false;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("%1 cannot be read: %2").arg(QFileInfo(path).fileName(), file.errorString());
        return false;
    }
    const QByteArray pem = file.readAll();
    if (!pem.contains("-----BEGIN") || !pem.contains("PRIVATE KEY-----")) {
        *error
            = tr("%1 is not a PEM private key (it has no BEGIN … PRIVATE KEY line).").arg(QFileInfo(path).fileName());
        return false;
    }
    m_newKey = pem;
    m_keyProblem.clear();
    m_keyState->setProperty("fileName", QFileInfo(path).fileName());
    updateState();
    return true;
}

void ServerDialog::chooseKeyFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Private key for private_key_jwt"), QString(), tr("PEM files (*.pem *.key);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loadKeyFile(path, &error)) {
        m_keyProblem = error;
        updateState();
    }
}

void ServerDialog::focusCredentials()
{
    m_clientId->setFocus(Qt::OtherFocusReason);
}

void ServerDialog::updateCredentialRows()
{
    const bool secretShown = m_secretStoredFlag && !m_secretCleared && m_clientSecret->text().isEmpty();
    m_secretStored->setVisible(secretShown);
    m_clientSecret->setVisible(!secretShown);
    m_clearSecret->setVisible(secretShown);
    const bool clientCredentials = m_grant->currentData().toString() == QLatin1String("client_credentials");
    m_chooseKey->setEnabled(clientCredentials);
    const bool keyStored = m_keyStoredFlag && !m_keyCleared;
    if (!m_newKey.isEmpty())
        m_keyState->setText(tr("%1 (stored in the keychain on OK)").arg(m_keyState->property("fileName").toString()));
    else if (keyStored)
        m_keyState->setText(tr("••• stored in the keychain"));
    else
        m_keyState->setText(
            clientCredentials ? tr("none (client_secret_basic with the secret)") : tr("only for client credentials"));
    m_clearKey->setVisible(keyStored || !m_newKey.isEmpty());
}

ServerConfig ServerDialog::config() const
{
    ServerConfig c;
    c.name = m_name->text().trimmed();
    c.transport = TransportKind(m_transport->currentData().toInt());
    if (c.transport == TransportKind::Stdio) {
        c.command = m_command->text().trimmed();
        c.args = CommandLine::split(m_args->text());
        for (const auto& [key, value] :
            splitPairs(secretmask::reveal(m_env->toPlainText(), QLatin1Char('='), m_hiddenEnv), QLatin1Char('=')))
            c.env.insert(key, value);
        c.secretEnv = splitNames(m_secretEnv->text());
        c.cwd = m_cwd->text().trimmed();
        if (m_exitWait->value() != m_exitWait->minimum())
            c.exitWaitMs = m_exitWait->value();
    } else {
        c.url = QUrl(secretmask::revealUrlPassword(m_url->text().trimmed(), m_hiddenPassword));
        c.headers = splitPairs(
            secretmask::reveal(m_headers->toPlainText(), QLatin1Char(':'), m_hiddenHeaders), QLatin1Char(':'));
        c.secretHeaders = splitNames(m_secretHeaders->text());
        c.tlsVerify = m_tlsVerify->isChecked();
        c.launchCommand = m_launch->text().trimmed();
        c.viaFaultProxy = m_viaProxy->isChecked();
        c.oauthClientId = m_clientId->text().trimmed();
        const QString grant = m_grant->currentData().toString();
        // An unset grant stays unset (the default), so the workspace file does not change by itself.
        c.oauthGrant = grant == QLatin1String("authorization_code") && m_originalGrant.isEmpty() ? QString() : grant;
    }
    c.requestTimeoutMs = m_timeout->value() * 1000;
    c.keepaliveIntervalSec = m_keepalive->value();
    c.breakerThreshold = m_threshold->value();
    c.breakerCooldownSec = m_cooldown->value();
    c.countToolErrors = m_countToolErrors->isChecked();
    c.idempotentReplay = m_idempotentReplay->isChecked();
    c.roots = m_roots->roots();
    c.autoReply = m_autoReply->script();
    c.era = ProtocolEra(m_era->currentData().toInt());
    // What a probe found is kept while it still describes this server: auto, and the same endpoint.
    const bool sameEndpoint = c.transport == m_loaded.transport && c.command == m_loaded.command
        && c.args == m_loaded.args && c.url == m_loaded.url;
    if (c.era == ProtocolEra::Auto && m_loaded.era == ProtocolEra::Auto && sameEndpoint)
        c.knownEra = m_loaded.knownEra;
    return c;
}

QString ServerDialog::problem() const
{
    const ServerConfig c = config();
    if (c.name.isEmpty())
        return tr("Give the server a name.");
    if (m_taken.contains(c.name))
        return tr("Another server is already named '%1'.").arg(c.name);
    if (const QString canned = m_autoReply->problem(); !canned.isEmpty())
        return canned;
    if (c.transport == TransportKind::Stdio) {
        if (c.command.isEmpty())
            return tr("Enter the command that starts the server.");
        return {};
    }
    if (!c.url.isValid() || c.url.host().isEmpty()
        || (c.url.scheme() != QLatin1String("http") && c.url.scheme() != QLatin1String("https")))
        return tr("Enter an http:// or https:// URL with a host.");
    if (!m_keyProblem.isEmpty())
        return m_keyProblem;
    if (c.oauthGrant == QLatin1String("client_credentials")) {
        if (c.oauthClientId.isEmpty())
            return tr("The client credentials grant needs a client id.");
        const bool secret = !m_clientSecret->text().isEmpty() || (m_secretStoredFlag && !m_secretCleared);
        const bool key = !m_newKey.isEmpty() || (m_keyStoredFlag && !m_keyCleared);
        if (!secret && !key)
            return tr("The client credentials grant needs a client secret or a private key.");
    }
    return {};
}

void ServerDialog::hideSecrets()
{
    const QStringList secretEnv = splitNames(m_secretEnv->text());
    QStringList secretHeaders = Redactor::defaultSensitiveHeaders() + splitNames(m_secretHeaders->text());
    const auto isSecretHeader = [&](const QString& name) { return secretHeaders.contains(name, Qt::CaseInsensitive); };
    const auto isSecretEnv = [&](const QString& name) { return secretEnv.contains(name); };
    const QSignalBlocker blockEnv(m_env);
    const QSignalBlocker blockHeaders(m_headers);
    m_env->setPlainText(secretmask::hide(m_env->toPlainText(), QLatin1Char('='), isSecretEnv, &m_hiddenEnv));
    m_headers->setPlainText(
        secretmask::hide(m_headers->toPlainText(), QLatin1Char(':'), isSecretHeader, &m_hiddenHeaders));
    m_url->setText(secretmask::hideUrlPassword(m_url->text(), &m_hiddenPassword));
}

void ServerDialog::revealSecrets()
{
    const QSignalBlocker blockEnv(m_env);
    const QSignalBlocker blockHeaders(m_headers);
    m_env->setPlainText(secretmask::reveal(m_env->toPlainText(), QLatin1Char('='), m_hiddenEnv));
    m_headers->setPlainText(secretmask::reveal(m_headers->toPlainText(), QLatin1Char(':'), m_hiddenHeaders));
    m_url->setText(secretmask::revealUrlPassword(m_url->text(), m_hiddenPassword));
}

void ServerDialog::updateState()
{
    updateCredentialRows();
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
    const int page = TransportKind(m_transport->currentData().toInt()) == TransportKind::Stdio ? StdioPage : HttpPage;
    if (std::exchange(m_shownPage, page) != page) {
        m_pages->setCurrentIndex(page);
        // Only the shown page counts for the dialog's height: the stdio page does not keep the taller HTTP
        // page's height as a gap. The width the user gave the dialog stays.
        for (int i = 0; i < m_pages->count(); ++i)
            m_pages->widget(i)->setSizePolicy(
                QSizePolicy::Preferred, i == page ? QSizePolicy::Preferred : QSizePolicy::Ignored);
        m_pages->updateGeometry();
        if (isVisible()) {
            layout()->activate();
            resize(width(), sizeHint().height());
        }
    }
}

} // namespace mcpscope
