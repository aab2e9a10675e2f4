#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace mcpscope::Dpop {

/// The htu claim of a proof for url (RFC 9449 §4.2): the request URI without query and fragment (and
/// without user info, which is never part of the target a server sees).
QString htu(const QUrl& url);
/// The ath claim (RFC 9449 §4.2): base64url of the SHA-256 of the access token's ASCII bytes.
QByteArray ath(const QString& accessToken);

/// A DPoP proof JWT (RFC 9449 §4.2) signed with ES256: header typ "dpop+jwt", alg "ES256" and the public
/// jwk; claims jti (random, so no two proofs are alike), htm, htu, iat, nonce when a server gave one,
/// and ath when accessToken is set (requests to a resource server). keyPem: the EC P-256 private key.
/// Empty on failure, with *error set (never with key material in it).
QByteArray proof(const QByteArray& keyPem, const QJsonObject& publicJwk, const QByteArray& method, const QUrl& url,
    const QByteArray& nonce, const QString& accessToken, qint64 nowSeconds, QString* error);

/// Whether a DPoP-Nonce header value can be sent back in a proof: 1 to 1024 visible ASCII characters
/// (RFC 9449 §8.1 says NQCHAR; a longer one is no nonce we keep).
bool isNonce(const QByteArray& value);

/// The nonces servers handed out in DPoP-Nonce headers (RFC 9449 §8 for authorization servers, §9 for
/// resource servers), one per origin: a server's newest nonce replaces the one before.
class NonceStore
{
public:
    /// Keeps nonce for url's origin; anything that is not a nonce (isNonce) is ignored.
    void note(const QUrl& url, const QByteArray& nonce);
    QByteArray nonceFor(const QUrl& url) const;
    void clear() { m_nonces.clear(); }

private:
    static QString originOf(const QUrl& url);
    QHash<QString, QByteArray> m_nonces;
};

} // namespace mcpscope::Dpop
