#include "dpop.h"

#include "jwt.h"
#include "oauthwire.h"

#include <QCryptographicHash>

namespace mcpscope::Dpop {

namespace {
constexpr qsizetype MaxNonceBytes = 1024;
constexpr int JtiBytes = 16;
} // namespace

QString htu(const QUrl& url)
{
    return url.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemoveUserInfo).toString(QUrl::FullyEncoded);
}

QByteArray ath(const QString& accessToken)
{
    return OAuthWire::base64Url(QCryptographicHash::hash(accessToken.toLatin1(), QCryptographicHash::Sha256));
}

QByteArray proof(const QByteArray& keyPem, const QJsonObject& publicJwk, const QByteArray& method, const QUrl& url,
    const QByteArray& nonce, const QString& accessToken, qint64 nowSeconds, QString* error)
{
    QJsonObject claims {
        { QStringLiteral("jti"), QString::fromLatin1(OAuthWire::base64Url(OAuthWire::randomBytes(JtiBytes))) },
        { QStringLiteral("htm"), QString::fromLatin1(method) },
        { QStringLiteral("htu"), htu(url) },
        { QStringLiteral("iat"), nowSeconds },
    };
    if (!nonce.isEmpty())
        claims.insert(QStringLiteral("nonce"), QString::fromLatin1(nonce));
    if (!accessToken.isEmpty())
        claims.insert(QStringLiteral("ath"), QString::fromLatin1(ath(accessToken)));
    const QJsonObject header { { QStringLiteral("typ"), QStringLiteral("dpop+jwt") },
        { QStringLiteral("jwk"), publicJwk } };
    return Jwt::signEs256(header, claims, keyPem, error);
}

bool isNonce(const QByteArray& value)
{
    if (value.isEmpty() || value.size() > MaxNonceBytes)
        return false;
    for (const char c : value) {
        if (c < 0x21 || c > 0x7e)
            return false;
    }
    return true;
}

QString NonceStore::originOf(const QUrl& url)
{
    const int defaultPort = url.scheme().compare(QLatin1String("https"), Qt::CaseInsensitive) == 0 ? 443 : 80;
    return url.scheme().toLower() + QStringLiteral("://") + url.host().toLower() + QLatin1Char(':')
        + QString::number(url.port(defaultPort));
}

void NonceStore::note(const QUrl& url, const QByteArray& nonce)
{
    if (isNonce(nonce) && url.isValid())
        m_nonces.insert(originOf(url), nonce);
}

QByteArray NonceStore::nonceFor(const QUrl& url) const
{
    return m_nonces.value(originOf(url));
}

} // namespace mcpscope::Dpop
