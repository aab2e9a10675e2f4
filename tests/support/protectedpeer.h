#pragma once

// Test support: the OAuth-protected peer (tests/peers/protected-peer.mjs) and its control API.

#include "peerprocess.h"
#include "transport/httpclient.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTimer>

namespace mcpscope::test {

/// Starts the protected peer on a random port; its MCP endpoint goes to *url.
inline bool startProtectedPeer(PeerProcess& peer, QUrl* url)
{
    if (!peer.start(peersDir() + QStringLiteral("/protected-peer.mjs"), { QStringLiteral("0") },
            QStringLiteral("listening http")))
        return false;
    const QRegularExpressionMatch match
        = QRegularExpression(QStringLiteral("listening (http://127\\.0\\.0\\.1:\\d+/mcp)"))
              .match(QString::fromUtf8(peer.output()));
    if (!match.hasMatch())
        return false;
    *url = QUrl(match.captured(1));
    return true;
}

/// One request to the peer's control API (/control/…, relative to its MCP URL); returns the JSON body.
inline QJsonObject peerControl(const QUrl& base, const QByteArray& method, const QString& path)
{
    HttpClient client;
    HttpRequest request;
    request.method = method;
    request.url = base.resolved(QUrl(path));
    request.headers.append({ QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json") });
    if (method == "POST")
        request.body = "{}";
    HttpReply* reply = client.send(std::move(request));
    QByteArray body;
    QEventLoop loop;
    QObject::connect(reply, &HttpReply::readyRead, &loop, [&] { body += reply->readAll(); });
    QObject::connect(reply, &HttpReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    body += reply->readAll();
    reply->deleteLater();
    return QJsonDocument::fromJson(body).object();
}

/// The peer's /control/state.
inline QJsonObject peerState(const QUrl& base)
{
    return peerControl(base, "GET", QStringLiteral("/control/state"));
}

/// Successful token requests of one grant type (authorization_code, refresh_token).
inline int peerGrants(const QUrl& base, const char* type)
{
    return peerState(base).value(QLatin1String("grants")).toObject().value(QLatin1String(type)).toInt();
}

} // namespace mcpscope::test
