#pragma once

#include "callrecord.h"

#include <QHash>
#include <QObject>

#include <optional>

namespace mcpscope {

/// The newest full CallRecord of every call, by call id: what the call detail view (timeline, raw
/// messages) reads, while CallsModel keeps only the table's columns.
///
/// Everything stays in memory and nothing is ever evicted: a record is a few KiB, so a long session with
/// many calls grows without bound. The persistent call log is LogStore, not this store.
///
/// Records arrive through ingest(); the owner connects it to Engine::callUpdated, which carries the
/// calls of every server (the call log sits below the engine and never includes it).
///
/// Signals: recordUpdated after every ingest(), with the call id, so an open detail view can refresh.
class CallRecordStore : public QObject
{
    Q_OBJECT
public:
    explicit CallRecordStore(QObject* parent = nullptr);
    ~CallRecordStore() override;

    std::optional<CallRecord> record(const QString& callId) const;
    bool contains(const QString& callId) const { return m_records.contains(callId); }
    int count() const { return int(m_records.size()); }
    void clear() { m_records.clear(); }

public Q_SLOTS:
    /// Keeps the record, replacing an older version of the same call.
    void ingest(const mcpscope::CallRecord& record);

Q_SIGNALS:
    void recordUpdated(const QString& callId);

private:
    QHash<QString, CallRecord> m_records;
};

} // namespace mcpscope
