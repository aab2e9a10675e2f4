#pragma once

// Verifies a compact ES256 JWS (RFC 7515, RFC 7518 §3.4) with OpenSSL, as an authorization server or a
// resource server would: the client assertions and DPoP proofs the tests check are signed by our Jwt code,
// so the check must not use it.

#include <QByteArray>
#include <QList>

#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

namespace mcpscope::test {

/// jws verified with the public half of key.
inline bool verifyEs256(const QByteArray& jws, EVP_PKEY* key)
{
    const QList<QByteArray> parts = jws.split('.');
    if (!key || parts.size() != 3)
        return false;
    const QByteArray input = parts.at(0) + '.' + parts.at(1);
    const QByteArray raw
        = QByteArray::fromBase64(parts.at(2), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    if (raw.size() != 64)
        return false;
    // JWS carries r and s as 32 bytes each; OpenSSL verifies the DER form.
    ECDSA_SIG* signature = ECDSA_SIG_new();
    ECDSA_SIG_set0(signature, BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.constData()), 32, nullptr),
        BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.constData()) + 32, 32, nullptr));
    unsigned char* der = nullptr;
    const int derSize = i2d_ECDSA_SIG(signature, &der);
    ECDSA_SIG_free(signature);
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    const bool ok = EVP_DigestVerifyInit(context, nullptr, EVP_sha256(), nullptr, key) == 1
        && EVP_DigestVerify(context, der, size_t(derSize), reinterpret_cast<const unsigned char*>(input.constData()),
               size_t(input.size()))
            == 1;
    EVP_MD_CTX_free(context);
    OPENSSL_free(der);
    return ok;
}

/// jws verified with the public half of a PEM private key.
inline bool verifyEs256(const QByteArray& jws, const QByteArray& pem)
{
    BIO* bio = BIO_new_mem_buf(pem.constData(), int(pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    const bool ok = verifyEs256(jws, key);
    EVP_PKEY_free(key);
    return ok;
}

} // namespace mcpscope::test
