#include "jwt.h"

#include "oauthwire.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QUuid>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

namespace mcpscope::Jwt {

namespace {
constexpr int P256CoordinateBytes = 32;
constexpr qint64 AssertionLifetimeSeconds = 300;

struct BioFree
{
    void operator()(BIO* bio) const { BIO_free(bio); }
};
struct KeyFree
{
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct ContextFree
{
    void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
struct SignatureFree
{
    void operator()(ECDSA_SIG* signature) const { ECDSA_SIG_free(signature); }
};

QByteArray segment(const QJsonObject& object)
{
    return OAuthWire::base64Url(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

QJsonObject decodeSegment(const QByteArray& part)
{
    return QJsonDocument::fromJson(
        QByteArray::fromBase64(part, QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals))
        .object();
}

std::unique_ptr<EVP_PKEY, KeyFree> readPrivateKey(const QByteArray& pem)
{
    std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.constData(), int(pem.size())));
    return std::unique_ptr<EVP_PKEY, KeyFree>(
        bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

bool isP256(EVP_PKEY* key)
{
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC && EVP_PKEY_get_bits(key) == 256;
}

/// r and s of a DER ECDSA signature, each left-padded to 32 bytes (JWS wants them raw, RFC 7518 §3.4).
QByteArray rawSignature(const QByteArray& der)
{
    const auto* bytes = reinterpret_cast<const unsigned char*>(der.constData());
    std::unique_ptr<ECDSA_SIG, SignatureFree> signature(d2i_ECDSA_SIG(nullptr, &bytes, der.size()));
    if (!signature)
        return {};
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(signature.get(), &r, &s);
    QByteArray raw(2 * P256CoordinateBytes, '\0');
    auto* out = reinterpret_cast<unsigned char*>(raw.data());
    if (BN_bn2binpad(r, out, P256CoordinateBytes) != P256CoordinateBytes
        || BN_bn2binpad(s, out + P256CoordinateBytes, P256CoordinateBytes) != P256CoordinateBytes)
        return {};
    return raw;
}
} // namespace

QByteArray signEs256(QJsonObject header, const QJsonObject& claims, const QByteArray& pem, QString* error)
{
    auto fail = [error](const QString& message) {
        if (error)
            *error = message;
        return QByteArray();
    };
    std::unique_ptr<EVP_PKEY, KeyFree> key = readPrivateKey(pem);
    if (!key)
        return fail(QStringLiteral("the private key is not a PEM private key OpenSSL can read"));
    if (!isP256(key.get()))
        return fail(QStringLiteral("the private key is not an EC P-256 key, which ES256 needs"));

    header.insert(QStringLiteral("alg"), QStringLiteral("ES256"));
    const QByteArray input = segment(header) + '.' + segment(claims);
    std::unique_ptr<EVP_MD_CTX, ContextFree> context(EVP_MD_CTX_new());
    size_t length = 0;
    if (!context || EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1
        || EVP_DigestSign(context.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(input.constData()),
               size_t(input.size()))
            != 1)
        return fail(QStringLiteral("OpenSSL could not sign with the private key"));
    QByteArray der(qsizetype(length), '\0');
    if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(der.data()), &length,
            reinterpret_cast<const unsigned char*>(input.constData()), size_t(input.size()))
        != 1)
        return fail(QStringLiteral("OpenSSL could not sign with the private key"));
    der.truncate(qsizetype(length));
    const QByteArray raw = rawSignature(der);
    if (raw.isEmpty())
        return fail(QStringLiteral("OpenSSL returned a signature that is not ECDSA P-256"));
    return input + '.' + OAuthWire::base64Url(raw);
}

QByteArray clientAssertion(
    const QString& clientId, const QString& audience, const QByteArray& pem, qint64 nowSeconds, QString* error)
{
    const QJsonObject claims {
        { QStringLiteral("iss"), clientId },
        { QStringLiteral("sub"), clientId },
        { QStringLiteral("aud"), audience },
        { QStringLiteral("iat"), nowSeconds },
        { QStringLiteral("exp"), nowSeconds + AssertionLifetimeSeconds },
        { QStringLiteral("jti"), QUuid::createUuid().toString(QUuid::WithoutBraces) },
    };
    return signEs256({ { QStringLiteral("typ"), QStringLiteral("JWT") } }, claims, pem, error);
}

QByteArray generateEs256Key(QString* error)
{
    std::unique_ptr<EVP_PKEY, KeyFree> key(EVP_EC_gen("P-256"));
    std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
    if (!key || !bio || PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        if (error)
            *error = QStringLiteral("OpenSSL could not generate an EC P-256 key");
        return {};
    }
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    QByteArray pem(data, qsizetype(size));
    return pem;
}

QJsonObject publicJwk(const QByteArray& pem, QString* error)
{
    std::unique_ptr<EVP_PKEY, KeyFree> key = readPrivateKey(pem);
    // The uncompressed point: 0x04 || x || y, each coordinate 32 bytes for P-256.
    unsigned char point[1 + 2 * P256CoordinateBytes] = {};
    size_t length = 0;
    if (!key || !isP256(key.get())
        || EVP_PKEY_get_octet_string_param(key.get(), OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof(point), &length)
            != 1
        || length != sizeof(point) || point[0] != 0x04) {
        if (error)
            *error = QStringLiteral("the private key is not an EC P-256 key whose public point OpenSSL can read");
        return {};
    }
    const auto* bytes = reinterpret_cast<const char*>(point);
    return {
        { QStringLiteral("kty"), QStringLiteral("EC") },
        { QStringLiteral("crv"), QStringLiteral("P-256") },
        { QStringLiteral("x"), QString::fromLatin1(OAuthWire::base64Url(QByteArray(bytes + 1, P256CoordinateBytes))) },
        { QStringLiteral("y"),
            QString::fromLatin1(
                OAuthWire::base64Url(QByteArray(bytes + 1 + P256CoordinateBytes, P256CoordinateBytes))) },
    };
}

QByteArray thumbprint(const QJsonObject& jwk)
{
    // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
    const QByteArray canonical = QByteArrayLiteral("{\"crv\":\"") + jwk.value(QLatin1String("crv")).toString().toUtf8()
        + QByteArrayLiteral("\",\"kty\":\"") + jwk.value(QLatin1String("kty")).toString().toUtf8()
        + QByteArrayLiteral("\",\"x\":\"") + jwk.value(QLatin1String("x")).toString().toUtf8()
        + QByteArrayLiteral("\",\"y\":\"") + jwk.value(QLatin1String("y")).toString().toUtf8()
        + QByteArrayLiteral("\"}");
    return OAuthWire::base64Url(QCryptographicHash::hash(canonical, QCryptographicHash::Sha256));
}

QJsonObject claimsOf(const QByteArray& jws)
{
    const QList<QByteArray> parts = jws.split('.');
    return parts.size() == 3 ? decodeSegment(parts.at(1)) : QJsonObject();
}

QJsonObject headerOf(const QByteArray& jws)
{
    const QList<QByteArray> parts = jws.split('.');
    return parts.size() == 3 ? decodeSegment(parts.at(0)) : QJsonObject();
}

} // namespace mcpscope::Jwt
