#pragma once

#include "calllog/calllogfile.h"
#include "calllog/callrecord.h"
#include "callsmodeldefs.h"
#include "stringtable.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QTimer>
#include <QUuid>

#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

namespace mcpscope {

class Engine;

/// One row per call across all servers (DESIGN.md "Calls"), with raw values only: see
/// callsmodeldefs.h for the columns and roles, and ui/ for the proxy that formats them.
///
/// Calls arrive through ingest(), which setEngine() connects to Engine::callUpdated.
/// Changes are coalesced (STYLE.md "Live data at scale"): new calls wait in a pending batch and an
/// update to a shown call marks its row dirty; the first change schedules a single-shot flush, due
/// at once (on the next event-loop turn) but never sooner than flushInterval() after the last one,
/// which inserts the whole batch with one beginInsertRows(first, last) and then emits one
/// dataChanged per contiguous run of dirty rows. Above flushThreshold() pending rows (or dirty
/// rows) the flush happens at once, inside ingest(). A call that is inserted and updated within
/// the same batch causes no dataChanged. Rows are never removed except by clear() (a model reset).
///
/// The model keeps only what the table shows (Row, 48 bytes, no heap per row when the call id is a
/// UUID); the full CallRecord for the detail view comes from the lookup set with setRecordLookup(),
/// e.g. a CallRecordStore.
class CallsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    /// One call as the table shows it. Strings are indices into the model's StringTable (string()).
    struct Row
    {
        enum Flag : quint8 {
            IsToolCall = 0x1,
            Healed = 0x2,
            Dirty = 0x4, ///< shown and changed since the last flush
            ForeignId = 0x8, ///< the call id is not a canonical UUID; it is kept on the side
            InputDeclined = 0x10, ///< McpScope declined an elicitation the server sent during the call
        };

        QUuid id; ///< the call id; null when ForeignId is set
        qint64 startedAt = 0; ///< ms since the epoch
        qint32 durationMs = -1; ///< -1 while pending
        quint32 server = 0;
        quint32 tool = 0; ///< the tool of a tools/call, otherwise the method
        quint32 rule = 0;
        quint8 attempts = 0;
        quint8 outcome = 0; ///< a CallOutcome
        quint8 flags = 0;

        CallOutcome callOutcome() const { return CallOutcome(outcome); }
        bool isToolCall() const { return flags & IsToolCall; }
        bool isPending() const { return durationMs < 0; }
    };

    using RecordLookup = std::function<std::optional<CallRecord>(const QString& callId)>;

    static constexpr int DefaultFlushThreshold = 5000;

    explicit CallsModel(QObject* parent = nullptr);
    ~CallsModel() override;

    /// Follows Engine::callUpdated, which carries the calls of every server, present and future.
    /// nullptr detaches; rows already shown stay.
    void setEngine(Engine* engine);
    Engine* engine() const;

    /// Where recordFor() finds full records; the model keeps none itself.
    void setRecordLookup(RecordLookup lookup) { m_lookup = std::move(lookup); }
    /// The full record of a shown row, or nullopt when there is no lookup or it does not know the call.
    std::optional<CallRecord> recordFor(int row) const;

    void setFlushThreshold(int rows) { m_flushThreshold = qMax(1, rows); }
    int flushThreshold() const { return m_flushThreshold; }
    /// The least time between two scheduled flushes; 0 (the default) flushes on every event-loop turn.
    /// A view showing hundreds of calls a second sets ~100 ms: each flush repaints the table.
    void setFlushInterval(int ms) { m_flushInterval = qMax(0, ms); }
    int flushInterval() const { return m_flushInterval; }
    /// Delivers the pending batch and the dirty rows now instead of on the next event-loop turn.
    void flush();
    /// Forgets every row (one model reset), including those not yet delivered.
    void clear();

    /// Typed access for CallsFilterProxy and other core code. row is a shown row (< rowCount()).
    const Row& callRow(int row) const { return m_rows[size_t(row)]; }
    QString callId(int row) const;
    /// The text behind a Row's server, tool and rule indices.
    const QString& string(quint32 index) const { return m_strings.at(index); }
    /// The shown row of a call, or -1 when it is unknown or still in the pending batch.
    int rowOfCall(const QString& callId) const;

    /// A UUID call id as a hash key. QUuid's own qHash is 32 bits of XORed fields: the high bits of its
    /// size_t are the seed's alone (so they cannot pick a shard: every id went to one, which then
    /// rehashed half a million ids at once, bench_calllog), and ids that differ in a counter cluster
    /// in the low bits a QHash picks its bucket by. mix() spreads all 128 bits over all 64.
    struct CallKey
    {
        QUuid id;
        static quint64 mix(const QUuid& id);
        bool operator==(const CallKey& other) const { return id == other.id; }
        friend size_t qHash(const CallKey& key, size_t seed = 0) noexcept { return size_t(mix(key.id)) ^ seed; }
    };
    /// Which of the 64 shards of the call-id index holds a UUID call id.
    static int shardOf(const QUuid& uuid) { return int(CallKey::mix(uuid) >> (64 - 6)); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

public Q_SLOTS:
    /// Adds the call, or updates its row when the call id is known. Cheap: no signal is emitted here
    /// unless the pending batch reached flushThreshold().
    void ingest(const mcpscope::CallRecord& record);

public:
    /// What a row is made of: the table's columns of a call, from a CallRecord or from a stored
    /// summary (calls of earlier sessions, loaded from the log store without their payloads).
    using Columns = CallSummary;
    static Columns columnsOf(const CallRecord& record) { return CallSummary::of(record); }
    /// Adds or updates one call from its columns (what ingest() does with a record).
    void ingestColumns(const Columns& columns);

private:
    void scheduleFlush();
    void growShard(int shard);
    int findRow(const QString& callId, QUuid* uuid) const;
    void fill(Row& row, const Columns& columns);

    QPointer<Engine> m_engine;
    RecordLookup m_lookup;
    StringTable m_strings;
    /// Shown rows are [0, m_shown); the rest is the pending batch.
    /// A deque: growing never moves (or copies) the rows already there.
    std::deque<Row> m_rows;
    int m_shown = 0;
    std::vector<int> m_dirty;
    /// Call id -> row, in shards: one growing hash would rehash every row at once (tens of ms at half
    /// a million rows); a shard rehashes a 64th of them. The shard comes from the top bits of the
    /// mixed id, a QHash bucket from its low bits (seeded): the two are independent.
    static constexpr int UuidShards = 64;
    std::array<QHash<CallKey, int>, UuidShards> m_uuidRows;
    static_assert(UuidShards == 1 << 6);
    const QHash<CallKey, int>& uuidShard(const QUuid& uuid) const { return m_uuidRows[size_t(shardOf(uuid))]; }
    QHash<QString, int> m_foreignRows;
    QHash<int, QString> m_foreignIds;
    QTimer m_flushTimer;
    QElapsedTimer m_lastFlush;
    int m_flushThreshold = DefaultFlushThreshold;
    int m_flushInterval = 0;
};

} // namespace mcpscope
