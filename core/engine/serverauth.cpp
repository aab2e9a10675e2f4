#include "serverauth.h"

#include "auth/redirectlistener.h"
#include "auth/tokenstore.h"
#include "calllog/redactor.h"
#include "jsonrpc/enumnames.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace mcpscope {

namespace {
constexpr EnumName<ServerAuth::State> StateEntries[] = {
    { ServerAuth::State::None, u"none" },
    { ServerAuth::State::Authorizing, u"authorizing" },
    { ServerAuth::State::Authorized, u"authorized" },
    { ServerAuth::State::Expiring, u"expiring" },
    { ServerAuth::State::NeedsUser, u"needs_auth" },
    { ServerAuth::State::Failed, u"failed" },
};
constexpr EnumNames<ServerAuth::State> StateNames(StateEntries);

constexpr qint64 RefreshMarginMs = 60000; // RECOVERY.md §4: refresh starts 60 s before expiry
constexpr qint64 RefreshRetryMs = 30000; // after a network error while refreshing (the token is kept)
constexpr int MaxOAuthRequestMs = 30000;

qint64 now()
{
    return QDateTime::currentMSecsSinceEpoch();
}

/// Whether the client configuration that OAuthClient was built from changed.
bool sameClient(const ServerConfig& a, const ServerConfig& b)
{
    return a.url == b.url && a.oauthClientId == b.oauthClientId && a.oauthGrant == b.oauthGrant
        && a.oauthClientSecret == b.oauthClientSecret && a.oauthClientKeyPem == b.oauthClientKeyPem
        && a.tlsVerify == b.tlsVerify;
}
} // namespace

ServerAuth::ServerAuth(const ServerConfig& config, std::shared_ptr<TokenStore> store,
    std::shared_ptr<Redactor> redactor, Browser browser, OptionsAdjuster adjust, QObject* parent)
    : QObject(parent)
    , m_config(config)
    , m_store(std::move(store))
    , m_redactor(std::move(redactor))
    , m_browser(browser)
    , m_adjust(std::move(adjust))
{
    m_refreshTimer.setSingleShot(true);
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] {
        if (m_flowRunning || !m_client->hasToken())
            return;
        setState(State::Expiring);
        if (m_client->canRefresh())
            refreshNow();
    });
    if (m_store)
        connect(m_store.get(), &TokenStore::problem, this,
            [this](const QString& message) { Q_EMIT problem(tr("Server '%1': %2").arg(m_config.name, message)); });
    buildClient();
    load();
}

ServerAuth::~ServerAuth()
{
    for (const Waiter& waiter : std::as_const(m_waiters))
        delete waiter.timer;
}

QString ServerAuth::stateName(State state)
{
    return StateNames.name(state);
}

void ServerAuth::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

QString ServerAuth::redacted(const QString& text) const
{
    return m_redactor ? m_redactor->redactText(text) : text;
}

QString ServerAuth::clientKey() const
{
    return clientKeyFor(m_config.name);
}

QString ServerAuth::clientKeyFor(const QString& serverName)
{
    return QStringLiteral("client/") + serverName;
}

QStringList ServerAuth::secretsInClientEntry(const QByteArray& entry)
{
    const QString secret = QJsonDocument::fromJson(entry).object().value(QLatin1String("clientSecret")).toString();
    return secret.isEmpty() ? QStringList() : QStringList { secret };
}

void ServerAuth::learnSecrets(const QByteArray& saved)
{
    // The access token reaches the redactor in its header form as well (secretLearned of the header); the
    // refresh token and a dynamic registration's client secret are never sent to the MCP server, but an
    // authorization server's answer or a server's own echo may still carry them into a log.
    const QStringList secrets = OAuthClient::secretsIn(saved);
    for (const QString& secret : secrets) {
        if (!m_learned.contains(secret)) {
            m_learned.insert(secret);
            Q_EMIT secretLearned(secret);
        }
    }
}

QList<AuthStep> ServerAuth::steps() const
{
    QList<AuthStep> steps = m_client->steps();
    if (m_retryStep)
        steps.append(*m_retryStep);
    for (AuthStep& step : steps) {
        step.detail = redacted(step.detail);
        step.request = redacted(step.request);
        step.response = redacted(step.response);
        for (QString& url : step.urlsTried)
            url = redacted(url);
    }
    return steps;
}

qint64 ServerAuth::expiresAt() const
{
    return m_client->expiresAt();
}

QByteArray ServerAuth::authorizationFor(const QUrl& url) const
{
    return m_client ? m_client->authorizationFor(url) : QByteArray();
}

CredentialProvider::Headers ServerAuth::headersFor(
    const QUrl& credentialUrl, const QByteArray& method, const QUrl& requestUrl) const
{
    return m_client ? m_client->headersFor(credentialUrl, method, requestUrl) : Headers();
}

void ServerAuth::noteNonce(const QUrl& requestUrl, const QByteArray& nonce) const
{
    if (m_client)
        m_client->noteNonce(requestUrl, nonce);
}

bool ServerAuth::storeIsPersistent() const
{
    return m_store && m_store->isPersistent();
}

QString ServerAuth::storeDescription() const
{
    return m_store ? m_store->description() : tr("memory only: no token store is set");
}

bool ServerAuth::hasClientSecret() const
{
    return !m_config.oauthClientSecret.isEmpty() || !m_storedSecret.isEmpty();
}

bool ServerAuth::hasClientKey() const
{
    return !m_config.oauthClientKeyPem.isEmpty() || !m_storedKey.isEmpty();
}

void ServerAuth::buildClient()
{
    QByteArray saved;
    if (m_client) {
        saved = m_client->saveCredentials();
        m_client->disconnect(this);
        m_client->deleteLater();
    }
    OAuthClient::Options options;
    options.serverName = m_config.name;
    options.serverUrl = m_config.url;
    options.clientId = m_config.oauthClientId;
    options.clientSecret = m_config.oauthClientSecret.isEmpty() ? m_storedSecret : m_config.oauthClientSecret;
    options.clientKeyPem = m_config.oauthClientKeyPem.isEmpty() ? m_storedKey : m_config.oauthClientKeyPem;
    options.grant = m_config.oauthGrant == QLatin1String("client_credentials") ? OAuthClient::Grant::ClientCredentials
                                                                               : OAuthClient::Grant::AuthorizationCode;
    options.browser = m_browser == Browser::External ? OAuthClient::Browser::External : OAuthClient::Browser::None;
    options.tlsVerify = m_config.tlsVerify;
    options.requestTimeoutMs = std::min(m_config.requestTimeoutMs, MaxOAuthRequestMs);
    if (m_listener && m_listener->isListening())
        options.redirectUri = m_listener->redirectUri();
    if (m_adjust)
        m_adjust(m_config, options);
    if (!options.clientSecret.isEmpty())
        Q_EMIT secretLearned(options.clientSecret);
    m_client = new OAuthClient(options, this);
    if (!saved.isEmpty())
        m_client->restoreCredentials(saved);
    connect(m_client, &OAuthClient::authorized, this, &ServerAuth::onAuthorized);
    connect(m_client, &OAuthClient::failed, this, &ServerAuth::onFailed);
    connect(m_client, &OAuthClient::expired, this, [this](const QString& message) {
        m_refreshing = false;
        persistTokens();
        // The authorization server refused the refresh token: a call waiting on a 401 needs a whole new
        // authorization, which only runs by itself without a browser.
        if (m_flowRunning) {
            startAuthorization(m_challenge);
            return;
        }
        m_lastError = redacted(message);
        setState(State::NeedsUser);
        Q_EMIT problem(m_lastError);
    });
    connect(m_client, &OAuthClient::browserNeeded, this, [this](const QUrl& url) {
        // Only the redirect that carries this request's state is taken (RedirectListener).
        if (m_listener)
            m_listener->expectState(QUrlQuery(url).queryItemValue(QStringLiteral("state"), QUrl::FullyDecoded));
        setState(State::NeedsUser);
        Q_EMIT browserNeeded(url);
    });
    connect(m_client, &OAuthClient::credentialsChanged, this, [this] {
        learnSecrets(m_client->saveCredentials());
        persistTokens();
    });
    connect(m_client, &OAuthClient::revoked, this, [this] {
        m_refreshTimer.stop();
        if (m_store)
            m_store->remove(m_client->credentialsKey(), this, {});
        m_lastError.clear();
        setState(State::None);
    });
    connect(m_client, &OAuthClient::stepsChanged, this, &ServerAuth::stepsChanged);
    connect(m_client, &OAuthClient::log, this, [this](const QString& line) { Q_EMIT log(redacted(line)); });
}

void ServerAuth::load()
{
    if (!m_store) {
        m_loaded = true;
        return;
    }
    // The client entry first (it may change how the client is built), then the tokens.
    m_store->read(clientKey(), this, [this](bool found, const QByteArray& value, const QString& error) {
        if (!error.isEmpty())
            Q_EMIT problem(tr("Server '%1': %2").arg(m_config.name, error));
        if (found) {
            const QJsonObject entry = QJsonDocument::fromJson(value).object();
            m_storedSecret = entry.value(QLatin1String("clientSecret")).toString();
            m_storedKey = QByteArray::fromBase64(entry.value(QLatin1String("clientKeyPem")).toString().toLatin1());
            m_redirectPort = quint16(entry.value(QLatin1String("redirectPort")).toInt());
            if (!m_storedSecret.isEmpty() || !m_storedKey.isEmpty())
                buildClient();
        }
        m_store->read(m_client->credentialsKey(), this,
            [this](bool foundTokens, const QByteArray& tokens, const QString& readError) {
                if (!readError.isEmpty())
                    Q_EMIT problem(tr("Server '%1': %2").arg(m_config.name, readError));
                // What the entry holds, even what the client does not take back (a registration made for
                // another redirect): it may be in any log written since.
                if (foundTokens)
                    learnSecrets(tokens);
                if (foundTokens && m_client->restoreCredentials(tokens) && m_client->hasToken()) {
                    ++m_tokenGeneration;
                    const QByteArray header = m_client->authorizationHeader();
                    Q_EMIT secretLearned(QString::fromLatin1(header));
                    setState(m_client->isExpiring(RefreshMarginMs) ? State::Expiring : State::Authorized);
                    scheduleRefresh();
                }
                m_loaded = true;
                for (const auto& next : std::exchange(m_afterLoad, {}))
                    next();
                Q_EMIT loaded();
            });
    });
}

void ServerAuth::persistTokens()
{
    if (!m_store)
        return;
    if (!m_client->hasToken() && !m_client->registration().isValid()) {
        m_store->remove(m_client->credentialsKey(), this, {});
        return;
    }
    m_store->write(
        m_client->credentialsKey(), m_client->saveCredentials(), this, [this](bool ok, const QString& error) {
            if (!ok)
                Q_EMIT problem(tr("Server '%1': the tokens could not be stored: %2").arg(m_config.name, error));
        });
}

void ServerAuth::persistClient()
{
    if (!m_store)
        return;
    QJsonObject entry;
    if (!m_storedSecret.isEmpty())
        entry.insert(QStringLiteral("clientSecret"), m_storedSecret);
    if (!m_storedKey.isEmpty())
        entry.insert(QStringLiteral("clientKeyPem"), QString::fromLatin1(m_storedKey.toBase64()));
    if (m_redirectPort)
        entry.insert(QStringLiteral("redirectPort"), int(m_redirectPort));
    if (entry.isEmpty()) {
        m_store->remove(clientKey(), this, {});
        return;
    }
    m_store->write(
        clientKey(), QJsonDocument(entry).toJson(QJsonDocument::Compact), this, [this](bool ok, const QString& error) {
            if (!ok)
                Q_EMIT problem(
                    tr("Server '%1': the client credentials could not be stored: %2").arg(m_config.name, error));
        });
}

void ServerAuth::setConfig(const ServerConfig& config)
{
    const bool rebuild = !sameClient(m_config, config);
    m_config = config;
    if (rebuild)
        buildClient();
}

void ServerAuth::ensure(const TransportFailure& challenge, qint64 waitMs, QObject* context,
    std::function<void(bool ok, const QString& error)> done, quint64 tokenGeneration)
{
    if (!m_loaded) {
        // Tokens of an earlier run may still be on their way out of the keychain.
        QPointer<QObject> guard(context);
        m_afterLoad.append([this, challenge, waitMs, guard, done = std::move(done), tokenGeneration] {
            if (guard)
                ensure(challenge, waitMs, guard, done, tokenGeneration);
        });
        return;
    }
    const bool scopeChallenge = challenge.scopeChallenged();
    // Another call fetched a token after this request went out: that one may be good. Or the server only
    // wants a DPoP nonce in the proof (RFC 9449 §9): the token is good, and the nonce is known now. Either
    // way the caller's bounded retry (R2, or the initialize attempts) is all that is sent again.
    if (!scopeChallenge && m_client->hasToken() && !m_flowRunning
        && (tokenGeneration < m_tokenGeneration || m_client->takeNonceChallenge(challenge))) {
        QTimer::singleShot(0, context, [done] { done(true, QString()); });
        return;
    }
    Waiter waiter;
    waiter.context = context;
    waiter.done = std::move(done);
    waiter.timer = new QTimer(this);
    waiter.timer->setSingleShot(true);
    QTimer* timer = waiter.timer;
    connect(timer, &QTimer::timeout, this, [this, timer] {
        // RECOVERY.md §4: the wait ends, the flow carries on.
        for (qsizetype i = 0; i < m_waiters.size(); ++i) {
            if (m_waiters.at(i).timer != timer)
                continue;
            const Waiter expired = m_waiters.takeAt(i);
            expired.timer->deleteLater();
            const QString why = m_state == State::NeedsUser
                ? tr("Server '%1' needs authorization by the user: %2")
                      .arg(m_config.name,
                          m_lastError.isEmpty() ? tr("finish it in the browser, or use Authorize in the Auth view")
                                                : m_lastError)
                : tr("Server '%1': the authorization did not finish in time; it goes on in the background.")
                      .arg(m_config.name);
            if (expired.context && expired.done)
                expired.done(false, why);
            return;
        }
    });
    timer->start(int(std::clamp<qint64>(waitMs, 1, 24 * 3600 * 1000)));
    m_waiters.append(std::move(waiter));
    if (!m_flowRunning)
        startFlow(challenge);
}

void ServerAuth::noteRetried(const QString& what, bool ok, const QString& detail)
{
    // Only the first retry after a flow is its last step; later requests are ordinary traffic.
    if (!std::exchange(m_retryPending, false))
        return;
    AuthStep step;
    step.kind = AuthStep::Kind::Retry;
    step.status = ok ? AuthStep::Status::Ok : AuthStep::Status::Failed;
    step.title = tr("Retried request");
    step.detail = redacted(ok ? tr("%1 was sent again with the new token and succeeded.").arg(what)
                              : tr("%1 was sent again with the new token and failed: %2").arg(what, detail));
    step.startedAt = step.endedAt = now();
    m_retryStep = step;
    Q_EMIT stepsChanged();
}

void ServerAuth::startFlow(const TransportFailure& challenge)
{
    m_retryStep.reset();
    m_flowRunning = true;
    m_challenge = challenge;
    setState(State::Authorizing);
    const bool scopeChallenge = challenge.scopeChallenged();
    if (!scopeChallenge && m_client->hasToken() && m_client->canRefresh()) {
        m_refreshing = true;
        m_client->refresh();
        return;
    }
    startAuthorization(challenge);
}

bool ServerAuth::prepareBrowser()
{
    if (m_browser != Browser::External || m_config.oauthGrant == QLatin1String("client_credentials"))
        return true;
    if (m_listener && m_listener->isListening())
        return true;
    if (!m_listener) {
        m_listener = new RedirectListener(this);
        connect(m_listener, &RedirectListener::callbackReceived, this,
            [this](const QUrlQuery& query) { m_client->completeAuthorization(query); });
        connect(m_listener, &RedirectListener::rejected, this,
            [this](const QString& reason) { Q_EMIT problem(tr("Server '%1': %2").arg(m_config.name, reason)); });
    }
    QString error;
    if (!m_listener->listen(m_redirectPort, &error)) {
        onFailed(tr("Server '%1': the loopback listener for the authorization callback could not listen: %2")
                     .arg(m_config.name, error));
        return false;
    }
    const quint16 port = quint16(m_listener->redirectUri().port());
    if (port != m_redirectPort) {
        m_redirectPort = port;
        persistClient();
    }
    m_client->setRedirectUri(m_listener->redirectUri());
    return true;
}

void ServerAuth::startAuthorization(const std::optional<TransportFailure>& challenge)
{
    m_flowRunning = true;
    m_refreshing = false;
    m_retryStep.reset();
    setState(State::Authorizing);
    if (!prepareBrowser())
        return;
    if (challenge && challenge->httpStatus != 0)
        m_client->authorize(*challenge);
    else
        m_client->authorize();
}

void ServerAuth::onAuthorized()
{
    m_flowRunning = false;
    m_refreshing = false;
    m_challenge.reset();
    ++m_tokenGeneration;
    m_lastError.clear();
    m_retryPending = true;
    if (m_listener)
        m_listener->close();
    Q_EMIT secretLearned(QString::fromLatin1(m_client->authorizationHeader()));
    persistTokens();
    setState(State::Authorized);
    scheduleRefresh();
    finishWaiters(true, QString());
    Q_EMIT authorized();
}

void ServerAuth::onFailed(const QString& message)
{
    const bool wasRefresh = m_refreshing;
    m_refreshing = false;
    m_lastError = redacted(message);
    if (wasRefresh && m_client->hasToken()) {
        // Only the authorization server's verdict ends credentials (expired()); a network error keeps them.
        m_flowRunning = false;
        setState(m_client->isExpiring(RefreshMarginMs) ? State::Expiring : State::Authorized);
        m_refreshTimer.start(int(RefreshRetryMs));
        finishWaiters(false, m_lastError);
        Q_EMIT problem(m_lastError);
        return;
    }
    m_flowRunning = false;
    m_challenge.reset();
    if (m_listener)
        m_listener->close();
    setState(State::Failed);
    finishWaiters(false, m_lastError);
    Q_EMIT problem(m_lastError);
}

void ServerAuth::finishWaiters(bool ok, const QString& error)
{
    for (const Waiter& waiter : std::exchange(m_waiters, {})) {
        delete waiter.timer;
        if (waiter.context && waiter.done)
            waiter.done(ok, error);
    }
}

void ServerAuth::scheduleRefresh()
{
    m_refreshTimer.stop();
    const qint64 expiresAt = m_client->expiresAt();
    if (expiresAt <= 0 || !m_client->canRefresh())
        return;
    const qint64 due = std::max<qint64>(0, expiresAt - RefreshMarginMs - now());
    m_refreshTimer.start(int(std::min<qint64>(due, 24LL * 3600 * 1000)));
}

void ServerAuth::authorizeNow()
{
    if (m_flowRunning && m_state == State::Authorizing)
        return;
    m_flowRunning = true;
    m_challenge.reset();
    startAuthorization(std::nullopt);
}

void ServerAuth::refreshNow()
{
    if (m_flowRunning)
        return;
    if (!m_client->hasToken() || !m_client->canRefresh()) {
        authorizeNow();
        return;
    }
    m_flowRunning = true;
    m_refreshing = true;
    setState(State::Authorizing);
    m_client->refresh();
}

void ServerAuth::forgetTokens()
{
    m_refreshTimer.stop();
    m_flowRunning = false;
    m_refreshing = false;
    finishWaiters(false, tr("Server '%1': the tokens were forgotten.").arg(m_config.name));
    m_client->forgetTokens();
}

void ServerAuth::setClientCredentials(
    const QString& clientId, const std::optional<QString>& clientSecret, const std::optional<QByteArray>& clientKeyPem)
{
    m_config.oauthClientId = clientId;
    if (clientSecret)
        m_storedSecret = *clientSecret;
    if (clientKeyPem)
        m_storedKey = *clientKeyPem;
    if (!m_storedSecret.isEmpty())
        Q_EMIT secretLearned(m_storedSecret);
    persistClient();
    buildClient();
}

} // namespace mcpscope
