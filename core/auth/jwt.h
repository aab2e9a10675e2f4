#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace mcpscope::Jwt {

/// A JWS in compact form (RFC 7515) signed with ES256 (ECDSA P-256 with SHA-256, RFC 7518 §3.4) through
/// OpenSSL's EVP API: base64url(header).base64url(claims).base64url(r || s). header gets "alg": "ES256"
/// (and keeps what else it has, such as "typ"). pem: a PKCS#8 or SEC1 EC P-256 private key. On failure
/// returns an empty array and sets *error (never with key material in it).
QByteArray signEs256(QJsonObject header, const QJsonObject& claims, const QByteArray& pem, QString* error);

/// The RFC 7523 client assertion for private_key_jwt: iss = sub = clientId, aud = audience (the
/// authorization server's issuer), iat, exp (iat + 300 s), a random jti. nowSeconds: seconds since the epoch.
QByteArray clientAssertion(
    const QString& clientId, const QString& audience, const QByteArray& pem, qint64 nowSeconds, QString* error);

/// A new EC P-256 private key as PKCS#8 PEM (for a DPoP key pair, RFC 9449 §2). Empty on failure, with *error set.
QByteArray generateEs256Key(QString* error);
/// The public half of an EC P-256 private key (PEM) as a JWK (RFC 7518 §6.2.1): kty "EC", crv "P-256", x, y;
/// never the private "d". Empty on failure, with *error set (never with key material in it).
QJsonObject publicJwk(const QByteArray& pem, QString* error);
/// The RFC 7638 SHA-256 thumbprint of an EC public JWK, base64url: what a DPoP-bound token's cnf.jkt names.
QByteArray thumbprint(const QJsonObject& jwk);

/// The claims of a compact JWS, without checking its signature (for tests and step texts).
QJsonObject claimsOf(const QByteArray& jws);
QJsonObject headerOf(const QByteArray& jws);

} // namespace mcpscope::Jwt
