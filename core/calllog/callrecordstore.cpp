#include "callrecordstore.h"

#include "engine/engine.h"

namespace mcpscope {

CallRecordStore::CallRecordStore(QObject* parent)
    : QObject(parent)
{ }

CallRecordStore::~CallRecordStore() = default;

void CallRecordStore::setEngine(Engine* engine)
{
    if (m_engine == engine)
        return;
    if (m_engine)
        m_engine->unfollow(this);
    m_engine = engine;
    if (engine)
        engine->follow(this, [this](ServerConnection* connection) { attachConnection(connection); });
}

void CallRecordStore::attachConnection(ServerConnection* connection)
{
    connect(connection, &ServerConnection::callUpdated, this, &CallRecordStore::ingest, Qt::UniqueConnection);
}

std::optional<CallRecord> CallRecordStore::record(const QString& callId) const
{
    const auto it = m_records.constFind(callId);
    if (it == m_records.constEnd())
        return std::nullopt;
    return *it;
}

void CallRecordStore::ingest(const CallRecord& record)
{
    m_records.insert(record.callId, record);
    Q_EMIT recordUpdated(record.callId);
}

} // namespace mcpscope
