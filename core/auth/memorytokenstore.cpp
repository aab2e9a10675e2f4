#include "auth/memorytokenstore.h"

#include "auth/tokenstoredelivery.h"

namespace mcpscope {

MemoryTokenStore::MemoryTokenStore(const QString& why, QObject* parent)
    : TokenStore(parent)
    , m_why(why)
{ }

void MemoryTokenStore::read(const QString& key, QObject* context, ReadDone done)
{
    const auto it = m_entries.constFind(key);
    const bool found = it != m_entries.constEnd();
    const QByteArray value = found ? *it : QByteArray();
    TokenStoreDelivery::post(this, context, [done = std::move(done), found, value] {
        if (done)
            done(found, value, QString());
    });
}

void MemoryTokenStore::write(const QString& key, const QByteArray& value, QObject* context, WriteDone done)
{
    m_entries.insert(key, value);
    TokenStoreDelivery::post(this, context, [done = std::move(done)] {
        if (done)
            done(true, QString());
    });
}

void MemoryTokenStore::remove(const QString& key, QObject* context, WriteDone done)
{
    m_entries.remove(key);
    TokenStoreDelivery::post(this, context, [done = std::move(done)] {
        if (done)
            done(true, QString());
    });
}

QString MemoryTokenStore::description() const
{
    return tr("memory only: %1").arg(m_why);
}

} // namespace mcpscope
