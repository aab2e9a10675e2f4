#include "httpcommon.h"

#include "jsonrpc/translation.h"
#include "streamablehttptransport.h"

#include <QDateTime>

namespace mcpscope {

namespace {
constexpr qsizetype BodyExcerptBytes = 512;
} // namespace

HttpRequest HttpCommon::makeRequest(const QByteArray& method, const QUrl& url, const HttpTransportOptions& options)
{
    HttpRequest request;
    request.method = method;
    request.url = url;
    request.tlsVerify = options.tlsVerify;
    request.redirects = HttpRequest::Redirects::SameOrigin; // another origin would get our headers (credentials)
    request.headers.reserve(options.headers.size() + 4);
    bool configuredAuthorization = false;
    for (const auto& [name, value] : options.headers) {
        request.headers.append({ name.toUtf8(), value.toUtf8() });
        configuredAuthorization
            = configuredAuthorization || name.compare(QLatin1String("Authorization"), Qt::CaseInsensitive) == 0;
    }
    // An Authorization header the user configured wins over OAuth: it is what they asked to send.
    if (options.credentials && !configuredAuthorization) {
        // A DPoP proof names the URL the request goes to (htu), so it is made here, per request.
        request.headers.append(options.credentials->headersFor(
            options.credentialUrl.isValid() ? options.credentialUrl : url, method, url));
    }
    return request;
}

void HttpCommon::noteNonce(const HttpTransportOptions& options, const HttpReply* reply)
{
    if (!options.credentials || !reply)
        return;
    const QByteArray nonce = reply->header("DPoP-Nonce");
    if (!nonce.isEmpty())
        options.credentials->noteNonce(reply->url(), nonce.trimmed());
}

bool HttpCommon::isEventStream(const HttpReply* reply)
{
    return reply && reply->header("Content-Type").trimmed().toLower().startsWith("text/event-stream");
}

QString HttpCommon::displayUrl(const QUrl& url)
{
    // Every request's exchange names its URL, and a connection sends them all to the same one: the text
    // of the last URL is kept (QUrl::toString was 3,000 instructions, 3% of an HTTP call, bench_httpecho
    // under callgrind). Per thread, as transports may run on any.
    thread_local QUrl last;
    thread_local QString shown;
    if (shown.isNull() || url != last) {
        shown = url.toString(QUrl::RemoveUserInfo);
        last = url;
    }
    return shown;
}

HttpExchange HttpCommon::startExchange(const HttpRequest& request)
{
    HttpExchange exchange;
    exchange.startedAt = QDateTime::currentMSecsSinceEpoch();
    exchange.method = QString::fromLatin1(request.method);
    exchange.url = displayUrl(request.url);
    exchange.requestHeaders = request.headers;
    if (!request.body.isEmpty() || request.method == "POST") {
        exchange.requestHeaders.append({ QByteArrayLiteral("Content-Length"), HttpWire::decimal(request.body.size()) });
        exchange.setRequestBody(request.body);
    }
    return exchange;
}

void HttpCommon::noteResponse(HttpExchange& exchange, const HttpReply* reply)
{
    if (exchange.status != 0 || !reply || reply->status() == 0)
        return;
    const HttpEvidence& evidence = reply->evidence();
    exchange.firstByteAt = evidence.firstByteAt;
    exchange.connectedAt = evidence.connectedAt;
    exchange.connectionReused = evidence.connectionReused;
    exchange.status = evidence.status;
    exchange.statusText = QString::fromLatin1(evidence.reason);
    exchange.httpVersion = QString::fromLatin1(evidence.httpVersion);
    exchange.responseHeaders = evidence.headers;
    exchange.mimeType = QString::fromLatin1(reply->header("Content-Type"));
}

TransportFailure HttpCommon::failureFor(const HttpReply* reply, const QByteArray& body, const QString& sessionIdSent,
    const QString& serverName, const QString& what)
{
    const HttpEvidence& evidence = reply->evidence();
    TransportFailure failure;
    failure.httpStatus = evidence.responseComplete || evidence.status != 0 ? evidence.status : 0;
    failure.headers = evidence.headers;
    failure.bodyExcerpt = body.left(BodyExcerptBytes);
    failure.sessionId = sessionIdSent;
    failure.networkError = evidence.errorString;
    failure.requestWritten = evidence.anyRequestByteWritten();
    failure.connectionReused = evidence.connectionReused;
    failure.responseStarted = evidence.responseStarted;
    const QString url = displayUrl(reply->url());

    if (evidence.error != HttpClientError::None || evidence.status == 0 || !evidence.responseComplete) {
        switch (evidence.error) {
        case HttpClientError::ConnectionRefused:
        case HttpClientError::HostNotFound:
        case HttpClientError::TlsFailed:
        case HttpClientError::ProxyFailed:
        case HttpClientError::ConnectTimeout:
            failure.event = failure.requestWritten ? TransportEvent::ConnectionLost : TransportEvent::ConnectFailed;
            break;
        case HttpClientError::MalformedResponse:
            failure.event = TransportEvent::Malformed;
            break;
        default:
            failure.event = TransportEvent::ConnectionLost;
            break;
        }
        const QString written = !failure.requestWritten ? McpScope::tr("nothing of the request was sent")
            : !failure.responseStarted                  ? McpScope::tr("the request was sent, no response byte arrived")
                                                        : McpScope::tr("the response was incomplete");
        failure.message = McpScope::tr("HTTP server '%1': %2 failed: %3 (%4; %5).")
                              .arg(serverName, what, evidence.errorString, written, url);
        return failure;
    }

    failure.event = TransportEvent::HttpStatus;
    const QString statusText = QString::number(failure.httpStatus)
        + (evidence.reason.isEmpty() ? QString() : QLatin1Char(' ') + QString::fromLatin1(evidence.reason));
    // What the answer says in words; which failure kind that is stays the classifier's to name.
    if (failure.sessionRefused()) {
        failure.message = McpScope::tr("HTTP server '%1' answered %2 with %3: session %4 has expired or is unknown.")
                              .arg(serverName, what, statusText, sessionIdSent);
        return failure;
    }
    if (failure.httpStatus == 401) {
        failure.message = McpScope::tr("HTTP server '%1' answered %2 with %3: authorization is required.")
                              .arg(serverName, what, statusText);
        return failure;
    }
    if (failure.scopeChallenged()) {
        failure.message = McpScope::tr("HTTP server '%1' answered %2 with %3: the token lacks a required scope.")
                              .arg(serverName, what, statusText);
        return failure;
    }
    QString excerpt = QString::fromUtf8(failure.bodyExcerpt).simplified();
    if (excerpt.size() > 160)
        excerpt = excerpt.left(160) + QStringLiteral("…");
    failure.message
        = McpScope::tr("HTTP server '%1' answered %2 with %3%4.")
              .arg(serverName, what, statusText, excerpt.isEmpty() ? QString() : QStringLiteral(": ") + excerpt);
    return failure;
}

} // namespace mcpscope
