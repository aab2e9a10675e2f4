#pragma once

#include "httpclient.h"
#include "transportfailure.h"
#include "wireexchange.h"

#include <QByteArray>

namespace mcpscope {

struct HttpTransportOptions;

/// Pieces both HTTP transports share: request set-up and turning a finished reply into evidence.
namespace HttpCommon {
/// A request to url with the configured headers, the per-server TLS choice and same-origin redirects.
HttpRequest makeRequest(const QByteArray& method, const QUrl& url, const HttpTransportOptions& options);
/// Hands a DPoP-Nonce header of reply (any status) to the credential provider, which remembers it for the
/// next proof to that origin (RFC 9449 §9). Nothing is sent again because of it.
void noteNonce(const HttpTransportOptions& options, const HttpReply* reply);
/// The evidence of a reply that did not succeed: what the wire showed, never a failure kind (the
/// classifier decides that). body: what arrived of the response body (an excerpt is kept).
TransportFailure failureFor(const HttpReply* reply, const QByteArray& body, const QString& sessionIdSent,
    const QString& serverName, const QString& what);
bool isEventStream(const HttpReply* reply);
/// The request side of a wire exchange, plus Content-Length and the body when there is one.
HttpExchange startExchange(const HttpRequest& request);
/// Status, reason, headers and MIME type of reply, once, when it has a status.
void noteResponse(HttpExchange& exchange, const HttpReply* reply);
/// The URL for people, in texts, records and views: never its userinfo (user:password).
QString displayUrl(const QUrl& url);
} // namespace HttpCommon

} // namespace mcpscope
