#pragma once

// OAuth secrets planted in the real token store (the Secret Service that make test starts) for one server,
// the way ServerAuth keeps them after a flow: the tokens and a dynamic registration's client secret under
// "oauth/<resource>" (OAuthClient::saveCredentials, version 1), a client secret the user gave under
// "client/<name>". They are removed again when the object goes.

#include "auth/oauthclient.h"
#include "auth/tokenstore.h"
#include "engine/serverauth.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QUuid>

#include <memory>
#include <optional>
#include <utility>

namespace mcpscope::test {

struct PlantedTokens
{
    QString accessToken = QStringLiteral("planted-access-") + QUuid::createUuid().toString(QUuid::Id128);
    QString refreshToken = QStringLiteral("planted-refresh-") + QUuid::createUuid().toString(QUuid::Id128);
    QString registeredSecret = QStringLiteral("planted-dcr-") + QUuid::createUuid().toString(QUuid::Id128);
    QString clientSecret = QStringLiteral("planted-client-") + QUuid::createUuid().toString(QUuid::Id128);

    QStringList all() const { return { accessToken, refreshToken, registeredSecret, clientSecret }; }

    /// Writes the two entries of the server at url; false with *why when no keychain answers or a write fails.
    bool plant(const QString& serverName, const QUrl& url, QString* why)
    {
        m_store = TokenStore::createDefault();
        if (!m_store->isPersistent()) {
            *why = m_store->description();
            return false;
        }
        const QJsonObject saved { { QStringLiteral("version"), 1 },
            { QStringLiteral("resource"), OAuthClient::canonicalResource(url) },
            { QStringLiteral("issuer"), QStringLiteral("http://127.0.0.1:9") }, { QStringLiteral("discovered"), true },
            { QStringLiteral("registration"),
                QJsonObject { { QStringLiteral("source"), 1 },
                    { QStringLiteral("clientId"), QStringLiteral("planted") },
                    { QStringLiteral("clientSecret"), registeredSecret } } },
            { QStringLiteral("discovery"), QJsonObject {} },
            { QStringLiteral("tokens"),
                QJsonObject { { QStringLiteral("accessToken"), accessToken },
                    { QStringLiteral("refreshToken"), refreshToken },
                    { QStringLiteral("expiresAt"), QDateTime::currentMSecsSinceEpoch() + 3600000 },
                    { QStringLiteral("scope"), QString() } } } };
        const QJsonObject client { { QStringLiteral("clientSecret"), clientSecret } };
        return write(OAuthClient::credentialsKeyFor(url), QJsonDocument(saved).toJson(QJsonDocument::Compact), why)
            && write(ServerAuth::clientKeyFor(serverName), QJsonDocument(client).toJson(QJsonDocument::Compact), why);
    }

    /// Removes what was planted (also done by the destructor).
    void remove()
    {
        for (const QString& key : std::exchange(m_keys, {})) {
            bool done = false;
            m_store->remove(key, &m_context, [&done](bool, const QString&) { done = true; });
            if (!QTest::qWaitFor([&done] { return done; }, 10000))
                qWarning("the keychain did not answer the removal of %s", qPrintable(key));
        }
    }

    ~PlantedTokens() { remove(); }

private:
    bool write(const QString& key, const QByteArray& value, QString* why)
    {
        std::optional<bool> written;
        m_store->write(key, value, &m_context, [&written, why](bool ok, const QString& error) {
            written = ok;
            if (!ok)
                *why = error;
        });
        if (!QTest::qWaitFor([&written] { return written.has_value(); }, 10000))
            *why = QStringLiteral("the keychain did not answer a write of %1").arg(key);
        if (written.value_or(false))
            m_keys.append(key);
        return written.value_or(false);
    }

    std::shared_ptr<TokenStore> m_store;
    QObject m_context;
    QStringList m_keys;
};

/// For the test function that calls it: plants for serverName at url, or skips the test without a keychain
/// (fails instead when MCPSCOPE_REQUIRE_SECRET_SERVICE is set, as make test sets it).
#define PLANT_TOKENS_OR_SKIP(planted, serverName, url)                                                                 \
    do {                                                                                                               \
        QString why_;                                                                                                  \
        if (!(planted).plant((serverName), (url), &why_)) {                                                            \
            if (qEnvironmentVariableIsSet("MCPSCOPE_REQUIRE_SECRET_SERVICE"))                                          \
                QFAIL(qPrintable(QStringLiteral("no keychain to plant tokens in: ") + why_));                          \
            QSKIP(qPrintable(QStringLiteral("no keychain to plant tokens in (run through make test): ") + why_));      \
        }                                                                                                              \
    } while (false)

} // namespace mcpscope::test
