#pragma once

#include "auth/authstep.h"
#include "auth/oauthclient.h"
#include "config/serverconfig.h"
#include "transport/transportfailure.h"

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace mcpscope {

class Redactor;
class RedirectListener;
class TokenStore;

/// The OAuth side of one HTTP server (issue 13, RECOVERY.md R2/R3 and §4): its OAuthClient, the tokens and
/// client secret in the TokenStore, the loopback redirect listener for a browser flow, the refresh timer,
/// and the one deduplicated flow that every call waiting on a 401 joins. ServerConnection owns one per
/// HTTP server; the transports read its credentials() on every request.
///
/// Signals: stateChanged through setState() only; stepsChanged when steps() changed; browserNeeded when
/// the user must authorize in a browser (the app opens it with QDesktopServices); authorized after every
/// new token; problem with a message naming the server (a keychain that failed, a flow that failed).
class ServerAuth : public QObject, public CredentialProvider
{
    Q_OBJECT
public:
    enum class State {
        None, ///< no token and none needed so far
        Authorizing, ///< a flow or a refresh is running
        Authorized,
        Expiring, ///< authorized, within 60 s of expiry (a refresh is due)
        NeedsUser, ///< only the user can go on: a browser, client credentials, or a refused refresh
        Failed, ///< the last flow failed; lastError() says why
    };
    Q_ENUM(State)

    enum class Browser { None, External };

    /// Adjusts the OAuthClient options a config gives (the conformance client adds its Client ID Metadata
    /// Document URL and the cross-app context).
    using OptionsAdjuster = std::function<void(const ServerConfig&, OAuthClient::Options&)>;

    ServerAuth(const ServerConfig& config, std::shared_ptr<TokenStore> store, std::shared_ptr<Redactor> redactor,
        Browser browser, OptionsAdjuster adjust = {}, QObject* parent = nullptr);
    ~ServerAuth() override;

    State state() const { return m_state; }
    /// "none", "authorizing", "authorized", "expiring", "needs_auth", "failed".
    static QString stateName(State state);
    /// The steps of the last flow, refresh or revocation, redacted with the engine's redactor.
    QList<AuthStep> steps() const;
    QString lastError() const { return m_lastError; }
    qint64 expiresAt() const;
    /// What the transports read: this object, which asks the current OAuthClient (a new configuration may
    /// replace the client; the transports' pointer stays valid).
    const CredentialProvider* credentials() const { return this; }
    QByteArray authorizationFor(const QUrl& url) const override;
    Headers headersFor(const QUrl& credentialUrl, const QByteArray& method, const QUrl& requestUrl) const override;
    void noteNonce(const QUrl& requestUrl, const QByteArray& nonce) const override;
    OAuthClient* client() const { return m_client; }
    /// Whether tokens survive a restart, and the warning to show when they do not.
    bool storeIsPersistent() const;
    QString storeDescription() const;

    /// R2/R3: makes sure fresh credentials are being fetched for challenge (one flow per server: a caller
    /// that comes while one runs joins it), then calls done(ok, error) when it ended or waitMs passed,
    /// whichever is first. A wait that times out leaves the flow running. done is dropped when context
    /// goes away first.
    /// tokenGeneration: tokenGeneration() when the failed request went out; a token obtained since then
    /// answers a 401 at once, without another flow. So does a 401 that only asks a DPoP-bound token's
    /// proof for a nonce (RFC 9449 §9): the nonce is kept and the caller's one retry carries it.
    void ensure(const TransportFailure& challenge, qint64 waitMs, QObject* context,
        std::function<void(bool ok, const QString& error)> done, quint64 tokenGeneration = 0);
    /// Counts the access tokens obtained (flows and refreshes) since start.
    quint64 tokenGeneration() const { return m_tokenGeneration; }
    bool isFlowRunning() const { return m_flowRunning; }
    /// Whether the token store has been read (tokens of an earlier run are restored asynchronously).
    bool isLoaded() const { return m_loaded; }
    /// The last step of a flow (the Auth view's "retried request"): what was sent again with the new
    /// credentials, and how it went. The connection and the calls waiting on the flow report it.
    void noteRetried(const QString& what, bool ok, const QString& detail);
    /// A new configuration (the dialog): a changed URL, client or grant drops the client and its tokens.
    void setConfig(const ServerConfig& config);

    // The Auth view's buttons.
    void authorizeNow();
    void refreshNow();
    /// Revokes the tokens (RFC 7009) where the authorization server can, and removes them from the store.
    void forgetTokens();
    /// The dialog's client credentials: the id goes into the config, the secret and the private key into
    /// the token store under "client/<server>", never into the workspace.
    /// An unset secret or key keeps the stored one; an empty one removes it.
    void setClientCredentials(const QString& clientId, const std::optional<QString>& clientSecret,
        const std::optional<QByteArray>& clientKeyPem);
    /// Whether a client secret / private key is stored (the dialog shows "stored in the keychain").
    bool hasClientSecret() const;
    bool hasClientKey() const;

    /// The token store key of what the user gave for the server's client (its secret or key): "client/<name>".
    static QString clientKeyFor(const QString& serverName);
    /// The secret values in such an entry: the client secret.
    static QStringList secretsInClientEntry(const QByteArray& entry);

Q_SIGNALS:
    void stateChanged(mcpscope::ServerAuth::State state);
    void stepsChanged();
    void browserNeeded(const QUrl& authorizationUrl);
    void authorized();
    void problem(const QString& message);
    /// A secret the engine's redactor must learn (a new access or refresh token, a client secret).
    void secretLearned(const QString& value);
    void loaded();
    /// One line per OAuth step for people (OAuthClient::log, redacted).
    void log(const QString& line);

private:
    struct Waiter
    {
        QPointer<QObject> context;
        std::function<void(bool, const QString&)> done;
        QTimer* timer = nullptr;
    };

    void setState(State state);
    void buildClient();
    void load();
    void persistTokens();
    void persistClient();
    void startFlow(const TransportFailure& challenge);
    void startAuthorization(const std::optional<TransportFailure>& challenge);
    bool prepareBrowser();
    void finishWaiters(bool ok, const QString& error);
    void scheduleRefresh();
    void onAuthorized();
    void onFailed(const QString& message);
    QString redacted(const QString& text) const;
    QString clientKey() const;
    /// secretLearned for each secret in saved credentials (OAuthClient::saveCredentials) not learned before.
    void learnSecrets(const QByteArray& saved);

    ServerConfig m_config;
    std::shared_ptr<TokenStore> m_store;
    std::shared_ptr<Redactor> m_redactor;
    Browser m_browser;
    OAuthClient* m_client = nullptr;
    RedirectListener* m_listener = nullptr;
    OptionsAdjuster m_adjust;
    QTimer m_refreshTimer;
    State m_state = State::None;
    QString m_lastError;
    QList<Waiter> m_waiters;
    QList<std::function<void()>> m_afterLoad;
    bool m_loaded = false;
    bool m_flowRunning = false;
    bool m_refreshing = false;
    std::optional<TransportFailure>
        m_challenge; ///< of the flow in progress, for a re-authorization after a refused refresh
    quint64 m_tokenGeneration = 0;
    QSet<QString> m_learned; ///< the secrets of the credentials already given to secretLearned
    QString m_storedSecret;
    QByteArray m_storedKey;
    quint16 m_redirectPort = 0;
    std::optional<AuthStep> m_retryStep; ///< of the last flow; cleared when the next one starts
    bool m_retryPending = false; ///< a flow finished and its retry has not been reported yet
};

} // namespace mcpscope
