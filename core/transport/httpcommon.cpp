#include "httpcommon.h"

#include "streamablehttptransport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QNetworkProxyFactory>
#include <QRegularExpression>
#include <QSslConfiguration>

namespace mcpscope {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("HttpTransport", text);
}
constexpr qsizetype BodyExcerptBytes = 512;
} // namespace

void HttpCommon::prepare(QNetworkRequest& request, const HttpTransportOptions& options)
{
    // HTTP(S) proxies come from the environment, as users expect from command-line tools.
    static const bool proxySetUp = [] {
        QNetworkProxyFactory::setUseSystemConfiguration(true);
        return true;
    }();
    Q_UNUSED(proxySetUp)
    for (const auto& [name, value] : options.headers)
        request.setRawHeader(name.toUtf8(), value.toUtf8());
    // A redirect to another origin would carry our headers (and credentials) to a stranger.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::SameOriginRedirectPolicy);
#if QT_CONFIG(ssl)
    if (!options.tlsVerify && request.url().scheme() == QLatin1String("https")) {
        QSslConfiguration ssl = request.sslConfiguration();
        ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
        request.setSslConfiguration(ssl);
    }
#endif
}

int HttpCommon::status(QNetworkReply* reply)
{
    return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
}

bool HttpCommon::isSuccess(QNetworkReply* reply)
{
    const int code = status(reply);
    return code >= 200 && code < 300;
}

bool HttpCommon::isEventStream(QNetworkReply* reply)
{
    return reply->header(QNetworkRequest::ContentTypeHeader).toString().startsWith(QLatin1String("text/event-stream"));
}

HttpExchange HttpCommon::startExchange(const QString& method, const QNetworkRequest& request, const QByteArray* body)
{
    HttpExchange exchange;
    exchange.startedAt = QDateTime::currentMSecsSinceEpoch();
    exchange.method = method;
    exchange.url = request.url().toString(QUrl::RemovePassword);
    const QList<QByteArray> names = request.rawHeaderList();
    exchange.requestHeaders.reserve(names.size() + 1);
    for (const QByteArray& name : names)
        exchange.requestHeaders.append({ name, request.rawHeader(name) });
    if (body) {
        exchange.requestHeaders.append({ QByteArrayLiteral("Content-Length"), QByteArray::number(body->size()) });
        exchange.setRequestBody(*body);
    }
    return exchange;
}

void HttpCommon::noteResponse(HttpExchange& exchange, QNetworkReply* reply)
{
    if (exchange.status != 0 || !reply)
        return;
    const int code = status(reply);
    if (code == 0)
        return;
    exchange.firstByteAt = QDateTime::currentMSecsSinceEpoch();
    exchange.status = code;
    exchange.statusText = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
    exchange.httpVersion = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool()
        ? QStringLiteral("HTTP/2")
        : QStringLiteral("HTTP/1.1");
    exchange.responseHeaders = reply->rawHeaderPairs();
    exchange.mimeType = QString::fromLatin1(reply->rawHeader("Content-Type"));
}

TransportFailure HttpCommon::failureFor(QNetworkReply* reply, const QByteArray& body, bool uploaded,
    const QString& sessionIdSent, const QString& serverName, const QString& what)
{
    TransportFailure failure;
    failure.httpStatus = status(reply);
    failure.headers = reply->rawHeaderPairs();
    failure.bodyExcerpt = body.left(BodyExcerptBytes);
    failure.sessionId = sessionIdSent;
    failure.networkError = reply->errorString();
    failure.requestWritten = uploaded;

    if (failure.httpStatus == 0) {
        switch (reply->error()) {
        case QNetworkReply::ConnectionRefusedError:
        case QNetworkReply::HostNotFoundError:
        case QNetworkReply::SslHandshakeFailedError:
        case QNetworkReply::ProxyConnectionRefusedError:
        case QNetworkReply::ProxyNotFoundError:
        case QNetworkReply::UnknownProxyError:
            failure.kind = FailureKind::NotSent;
            failure.requestWritten = false;
            break;
        default:
            failure.kind = uploaded ? FailureKind::TransportLost : FailureKind::NotSent;
            break;
        }
        failure.message = tr("HTTP server '%1': %2 failed: %3 (%4).")
                              .arg(serverName, what, reply->errorString(), reply->url().toString());
        return failure;
    }

    // The request reached the server and was answered: whatever the status, the body went out.
    failure.requestWritten = true;
    const QString reason = reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
    const QString statusText
        = QString::number(failure.httpStatus) + (reason.isEmpty() ? QString() : QLatin1Char(' ') + reason);
    static const QRegularExpression sessionPattern(
        QStringLiteral("session"), QRegularExpression::CaseInsensitiveOption);
    const QString bodyText = QString::fromUtf8(failure.bodyExcerpt);
    if (!sessionIdSent.isEmpty()
        && (failure.httpStatus == 404 || (failure.httpStatus == 400 && sessionPattern.match(bodyText).hasMatch()))) {
        failure.kind = FailureKind::SessionExpired;
        failure.message = tr("HTTP server '%1' answered %2 with %3: session %4 has expired or is unknown.")
                              .arg(serverName, what, statusText, sessionIdSent);
        return failure;
    }
    const QByteArray challenge = failure.header("WWW-Authenticate");
    if (failure.httpStatus == 401) {
        failure.kind = FailureKind::AuthRequired;
        failure.message
            = tr("HTTP server '%1' answered %2 with %3: authorization is required.").arg(serverName, what, statusText);
        return failure;
    }
    if (failure.httpStatus == 403 && challenge.contains("insufficient_scope")) {
        failure.kind = FailureKind::InsufficientScope;
        failure.message = tr("HTTP server '%1' answered %2 with %3: the token lacks a required scope.")
                              .arg(serverName, what, statusText);
        return failure;
    }
    failure.kind = FailureKind::HttpError;
    QString excerpt = bodyText.simplified();
    if (excerpt.size() > 160)
        excerpt = excerpt.left(160) + QStringLiteral("…");
    failure.message
        = tr("HTTP server '%1' answered %2 with %3%4.")
              .arg(serverName, what, statusText, excerpt.isEmpty() ? QString() : QStringLiteral(": ") + excerpt);
    return failure;
}

} // namespace mcpscope
