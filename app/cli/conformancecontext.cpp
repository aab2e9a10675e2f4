#include "conformancecontext.h"

namespace mcpscope {

void applyConformanceContext(const QString& scenario, const QJsonObject& context, OAuthClient::Options& options)
{
    options.clientId = context.value(QLatin1String("client_id")).toString();
    options.clientSecret = context.value(QLatin1String("client_secret")).toString();
    const QString key = context.value(QLatin1String("private_key_pem")).toString();
    if (!key.isEmpty()) {
        // auth/client-credentials-jwt: private_key_jwt (the context's signing_algorithm is ES256).
        options.grant = OAuthClient::Grant::ClientCredentials;
        options.clientKeyPem = key.toUtf8();
    } else if (context.contains(QLatin1String("idp_id_token"))) {
        // auth/cross-app-access-complete-flow (SEP-990).
        options.grant = OAuthClient::Grant::CrossApp;
        options.crossApp = context;
    } else if (context.contains(QLatin1String("valid_jwt"))) {
        // auth/wif-jwt-bearer (SEP-1933): the workload JWT is the jwt-bearer assertion itself.
        options.grant = OAuthClient::Grant::JwtBearer;
        options.workloadJwt = context.value(QLatin1String("valid_jwt")).toString();
    } else if (scenario.startsWith(QLatin1String("auth/client-credentials"))) {
        // The same pre-registered id and secret as auth/pre-registration, for a machine-to-machine grant.
        options.grant = OAuthClient::Grant::ClientCredentials;
    }
}

} // namespace mcpscope
