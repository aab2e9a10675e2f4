#include "conformancecontext.h"

namespace mcpscope {

void applyConformanceContext(const QJsonObject& context, OAuthClient::Options& options)
{
    options.clientId = context.value(QLatin1String("client_id")).toString();
    options.clientSecret = context.value(QLatin1String("client_secret")).toString();
}

} // namespace mcpscope
