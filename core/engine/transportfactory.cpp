#include "transportfactory.h"

#include "transport/httpcommon.h"
#include "transport/legacyssetransport.h"
#include "transport/stdiotransport.h"
#include "transport/streamablehttptransport.h"

#include <QCoreApplication>

namespace mcpscope {

namespace {
TransportFactory& factoryOverride()
{
    static TransportFactory factory;
    return factory;
}
} // namespace

void setTransportFactory(TransportFactory factory)
{
    factoryOverride() = std::move(factory);
}

std::unique_ptr<Transport> createTransport(
    const ServerConfig& config, QString* error, const CredentialProvider* credentials, const QUrl& credentialUrl)
{
    if (const TransportFactory& factory = factoryOverride())
        return factory(config, error);
    switch (config.transport) {
    case TransportKind::Stdio: {
        if (config.command.isEmpty()) {
            if (error)
                *error = QCoreApplication::translate("Engine", "Server '%1' has no command to start.").arg(config.name);
            return nullptr;
        }
        StdioTransport::Options options;
        options.serverName = config.name;
        options.command = config.command;
        options.args = config.args;
        options.env = config.env;
        options.cwd = config.cwd;
        options.maxMessageBytes = config.maxResponseBytes;
        if (config.exitWaitMs)
            options.exitWaitMs = *config.exitWaitMs;
        return std::make_unique<StdioTransport>(options);
    }
    case TransportKind::StreamableHttp:
    case TransportKind::LegacySse:
    case TransportKind::AutoHttp:
        break;
    }
    const QString scheme = config.url.scheme();
    if (!config.url.isValid() || config.url.host().isEmpty()
        || (scheme != QLatin1String("http") && scheme != QLatin1String("https"))) {
        if (error)
            *error = QCoreApplication::translate("Engine",
                "Server '%1' has no usable URL ('%2'): it must be http:// or "
                "https:// with a host.")
                         .arg(config.name, HttpCommon::displayUrl(config.url));
        return nullptr;
    }
    HttpTransportOptions options;
    options.serverName = config.name;
    options.url = config.url;
    options.headers = config.headers;
    options.tlsVerify = config.tlsVerify;
    options.maxResponseBytes = config.maxResponseBytes;
    options.credentials = credentials;
    options.credentialUrl = credentialUrl.isValid() ? credentialUrl : config.url;
    if (config.transport == TransportKind::LegacySse)
        return std::make_unique<LegacySseTransport>(options);
    return std::make_unique<StreamableHttpTransport>(options);
}

} // namespace mcpscope
