// OAuthClient's DPoP side (RFC 9449, SEP-1932): the client's key pair, the proofs of token and resource
// requests, and the nonces servers hand out.

#include "jwt.h"
#include "oauthclient.h"
#include "oauthwire.h"

namespace mcpscope {

using OAuthWire::stringArray;

namespace {
const QString Es256 = QStringLiteral("ES256");
} // namespace

bool OAuthClient::wantsDpop() const
{
    // A grant bound to our key stays on it: a refresh must prove the same key (RFC 9449 §5).
    if (m_dpopBound && hasToken())
        return true;
    if (m_challenge.isDpop)
        return true;
    return m_options.preferDpop
        && stringArray(m_serverMetadata.value(QLatin1String("dpop_signing_alg_values_supported"))).contains(Es256);
}

QByteArray OAuthClient::tokenRequestProof(QString* error)
{
    // ES256 is the one algorithm we sign with; a server that names its algorithms must take it.
    const QJsonValue advertised = m_serverMetadata.value(QLatin1String("dpop_signing_alg_values_supported"));
    if ((advertised.isArray() && !stringArray(advertised).contains(Es256))
        || (!m_challenge.dpopAlgs.isEmpty() && !m_challenge.dpopAlgs.contains(Es256))) {
        *error = tr("the server takes no ES256 DPoP proofs, the only kind McpScope makes");
        return {};
    }
    if (m_dpopKeyPem.isEmpty() || m_dpopJwk.isEmpty()) {
        // One key pair per client, made when first needed and stored with the tokens it binds.
        const QByteArray pem = Jwt::generateEs256Key(error);
        const QJsonObject jwk = pem.isEmpty() ? QJsonObject() : Jwt::publicJwk(pem, error);
        if (jwk.isEmpty())
            return {};
        m_dpopKeyPem = pem;
        m_dpopJwk = jwk;
    }
    return Dpop::proof(m_dpopKeyPem, m_dpopJwk, QByteArrayLiteral("POST"), m_tokenEndpoint,
        m_nonces.nonceFor(m_tokenEndpoint), QString(), now() / 1000, error);
}

bool OAuthClient::isNonceRefusal(const Response& response)
{
    return response.status == 400
        && response.json.value(QLatin1String("error")).toString() == QLatin1String("use_dpop_nonce")
        && Dpop::isNonce(response.dpopNonce);
}

void OAuthClient::restoreDpopKey(const QString& stored)
{
    m_dpopKeyPem.clear();
    m_dpopJwk = {};
    if (stored.isEmpty())
        return;
    const QByteArray pem
        = QByteArray::fromBase64(stored.toLatin1(), QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    QString error;
    const QJsonObject jwk = Jwt::publicJwk(pem, &error);
    if (jwk.isEmpty())
        return;
    m_dpopKeyPem = pem;
    m_dpopJwk = jwk;
}

CredentialProvider::Headers OAuthClient::headersFor(
    const QUrl& credentialUrl, const QByteArray& method, const QUrl& requestUrl) const
{
    const QByteArray authorization = authorizationFor(credentialUrl);
    if (authorization.isEmpty())
        return {};
    Headers headers { { QByteArrayLiteral("Authorization"), authorization } };
    if (!m_dpopBound)
        return headers;
    // RFC 9449 §7: a fresh proof per request, for its method and URL, bound to the token by ath.
    QString error;
    const QByteArray proof = Dpop::proof(m_dpopKeyPem, m_dpopJwk, method, requestUrl, m_nonces.nonceFor(requestUrl),
        m_accessToken, now() / 1000, &error);
    // Without a proof the token is useless; the server's 401 then says so, and the recovery table decides.
    if (!proof.isEmpty())
        headers.append({ QByteArrayLiteral("DPoP"), proof });
    return headers;
}

void OAuthClient::noteNonce(const QUrl& requestUrl, const QByteArray& nonce) const
{
    m_nonces.note(requestUrl, nonce);
}

bool OAuthClient::takeNonceChallenge(const TransportFailure& failure)
{
    if (!isDpopBound() || failure.event != TransportEvent::HttpStatus || failure.httpStatus != 401)
        return false;
    const BearerChallenge challenge = BearerChallenge::parse(failure.header("WWW-Authenticate"));
    const QByteArray nonce = failure.header("DPoP-Nonce").trimmed();
    if (!challenge.isDpop || challenge.error != QLatin1String("use_dpop_nonce") || !Dpop::isNonce(nonce))
        return false;
    // The transport kept it already, under the origin the request went to; this covers a failure that
    // reached us some other way.
    m_nonces.note(m_options.serverUrl, nonce);
    Q_EMIT log(tr("Server '%1' asks for a DPoP nonce; the request may go again with it, on the same token.")
                   .arg(m_options.serverName));
    return true;
}

} // namespace mcpscope
