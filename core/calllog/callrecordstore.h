#pragma once

#include "callrecord.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <optional>

namespace mcpscope {

class Engine;
class ServerConnection;

/// The newest full CallRecord of every call, by call id: what the call detail view (timeline, raw
/// messages) reads, while CallsModel keeps only the table's columns.
///
/// Everything stays in memory and nothing is ever evicted: a record is a few KiB, so a long session with
/// many calls grows without bound. The persistent call log is LogStore, not this store.
///
/// Signals: recordUpdated after every ingest(), with the call id, so an open detail view can refresh.
class CallRecordStore : public QObject
{
    Q_OBJECT
public:
    explicit CallRecordStore(QObject* parent = nullptr);
    ~CallRecordStore() override;

    /// Follows callUpdated of every connection of engine, present and future. nullptr detaches.
    void setEngine(Engine* engine);

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
    void attachConnection(ServerConnection* connection);

    QPointer<Engine> m_engine;
    QHash<QString, CallRecord> m_records;
};

} // namespace mcpscope
