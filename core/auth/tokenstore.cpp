#include "auth/tokenstore.h"

#include "auth/keychaintokenstore.h"
#include "auth/memorytokenstore.h"

#include <QCoreApplication>

namespace mcpscope {

std::shared_ptr<TokenStore> TokenStore::createDefault(int probeTimeoutMs)
{
    if (qEnvironmentVariable("MCPSCOPE_TOKEN_STORE") == QLatin1String("memory"))
        return createMemory(tr("MCPSCOPE_TOKEN_STORE=memory is set"));
    // The probe waits in a local event loop, and the keychain's answers arrive through it.
    if (!QCoreApplication::instance())
        return createMemory(tr("no keychain is available (the keychain was not asked: there is no application "
                               "object yet)"));
    QString why;
    if (!KeychainTokenStore::probe(probeTimeoutMs, &why))
        return createMemory(tr("no keychain is available (%1)").arg(why));
    return std::make_shared<KeychainTokenStore>(KeychainTokenStore::detectDescription());
}

std::shared_ptr<TokenStore> TokenStore::createMemory(const QString& why)
{
    return std::make_shared<MemoryTokenStore>(why);
}

} // namespace mcpscope
