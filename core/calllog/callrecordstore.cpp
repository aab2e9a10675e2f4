#include "callrecordstore.h"

namespace mcpscope {

CallRecordStore::CallRecordStore(QObject* parent)
    : QObject(parent)
{ }

CallRecordStore::~CallRecordStore() = default;

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
