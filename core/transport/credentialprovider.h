#pragma once

#include <QByteArray>
#include <QUrl>

namespace mcpscope {

/// Where the HTTP transports get the Authorization header of each request they send (MCP-NOTES
/// "Authorization" §9). Read for every request, so a refreshed token needs no reconnect (RECOVERY.md §4).
/// The provider lives in the auth layer (OAuthClient); a transport only holds a pointer to it, which its
/// owner keeps alive for the transport's lifetime.
class CredentialProvider
{
public:
    virtual ~CredentialProvider() = default;
    /// The header value ("Bearer abc") for a request to url, or empty to send none. A provider returns
    /// a token only for the server it was issued for.
    virtual QByteArray authorizationFor(const QUrl& url) const = 0;
};

} // namespace mcpscope
