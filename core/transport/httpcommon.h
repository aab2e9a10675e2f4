#pragma once

#include "transportfailure.h"
#include "wireexchange.h"

#include <QByteArray>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace mcpscope {

struct HttpTransportOptions;

/// Pieces both HTTP transports share: request set-up and turning a finished reply into evidence.
namespace HttpCommon {
/// Configured headers, same-origin-only redirects and the per-server TLS choice.
void prepare(QNetworkRequest& request, const HttpTransportOptions& options);
/// Kind and message for a reply that did not succeed. uploaded: the body was fully sent.
TransportFailure failureFor(QNetworkReply* reply, const QByteArray& body, bool uploaded, const QString& sessionIdSent,
    const QString& serverName, const QString& what);
bool isSuccess(QNetworkReply* reply);
int status(QNetworkReply* reply);
bool isEventStream(QNetworkReply* reply);
/// The request side of a wire exchange: what we set on request (Content-Type among it), plus
/// Content-Length and the body when there is one.
HttpExchange startExchange(const QString& method, const QNetworkRequest& request, const QByteArray* body);
/// Status, reason, headers and MIME type of reply, once, when it has a status.
void noteResponse(HttpExchange& exchange, QNetworkReply* reply);
} // namespace HttpCommon

} // namespace mcpscope
