#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QUrl>

namespace mcpscope {

/// Where the HTTP transports get the credential headers of each request they send (MCP-NOTES
/// "Authorization" §9). Read for every request, so a refreshed token needs no reconnect (RECOVERY.md §4).
/// The provider lives in the auth layer (OAuthClient); a transport only holds a pointer to it, which its
/// owner keeps alive for the transport's lifetime.
class CredentialProvider
{
public:
    using Headers = QList<QPair<QByteArray, QByteArray>>;

    virtual ~CredentialProvider() = default;
    /// The header value ("Bearer abc") for a request to url, or empty to send none. A provider returns
    /// a token only for the server it was issued for.
    virtual QByteArray authorizationFor(const QUrl& url) const = 0;
    /// Every credential header of one request: Authorization, and for a DPoP-bound token (RFC 9449) the
    /// DPoP proof made for exactly this method and requestUrl. credentialUrl: the server the token is for
    /// (the configured URL, also behind a local proxy). The default is authorizationFor(credentialUrl)
    /// alone.
    virtual Headers headersFor(const QUrl& credentialUrl, const QByteArray& method, const QUrl& requestUrl) const
    {
        Q_UNUSED(method)
        Q_UNUSED(requestUrl)
        const QByteArray authorization = authorizationFor(credentialUrl);
        if (authorization.isEmpty())
            return {};
        return { { QByteArrayLiteral("Authorization"), authorization } };
    }
    /// A response from requestUrl carried a DPoP-Nonce header (RFC 9449 §9): the next proof to that
    /// origin sends it. Only remembered, never a reason to send anything again: whether a refused
    /// request is retried is the recovery table's decision alone (RECOVERY.md §1).
    virtual void noteNonce(const QUrl& requestUrl, const QByteArray& nonce) const
    {
        Q_UNUSED(requestUrl)
        Q_UNUSED(nonce)
    }
};

} // namespace mcpscope
