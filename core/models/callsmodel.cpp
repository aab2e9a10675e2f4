#include "callsmodel.h"

#include "engine/engine.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mcpscope {

namespace {
/// The length of QUuid::toString(QUuid::WithoutBraces), the form ServerConnection gives call ids.
constexpr qsizetype UuidTextLength = 36;
} // namespace

CallsModel::CallsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, &CallsModel::flush);
}

CallsModel::~CallsModel() = default;

quint64 CallsModel::CallKey::mix(const QUuid& id)
{
    // Two rounds of splitmix64's finalizer over the two halves of the 16 bytes.
    static_assert(sizeof(QUuid) == 16 && std::is_trivially_copyable_v<QUuid>);
    const auto finalize = [](quint64 h) {
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
        return h ^ (h >> 31);
    };
    quint64 halves[2];
    std::memcpy(halves, &id, sizeof halves);
    return finalize(halves[0] ^ finalize(halves[1]));
}

Engine* CallsModel::engine() const
{
    return m_engine;
}

void CallsModel::setEngine(Engine* engine)
{
    if (m_engine == engine)
        return;
    if (m_engine)
        disconnect(m_engine, nullptr, this, nullptr);
    m_engine = engine;
    if (engine)
        connect(engine, &Engine::callUpdated, this, &CallsModel::ingest);
}

std::optional<CallRecord> CallsModel::recordFor(int row) const
{
    if (!m_lookup || row < 0 || row >= m_shown)
        return std::nullopt;
    return m_lookup(callId(row));
}

QString CallsModel::callId(int row) const
{
    const Row& r = m_rows[size_t(row)];
    if (r.flags & Row::ForeignId)
        return m_foreignIds.value(row);
    return r.id.toString(QUuid::WithoutBraces);
}

int CallsModel::findRow(const QString& callId, QUuid* uuid) const
{
    // Canonical UUID text round-trips exactly through QUuid, so those ids need no string per row.
    if (callId.size() == UuidTextLength) {
        const QUuid parsed = QUuid::fromString(callId);
        if (!parsed.isNull() && parsed.toString(QUuid::WithoutBraces) == callId) {
            *uuid = parsed;
            return uuidShard(parsed).value(CallKey { parsed }, -1);
        }
    }
    *uuid = QUuid();
    return m_foreignRows.value(callId, -1);
}

int CallsModel::rowOfCall(const QString& callId) const
{
    QUuid uuid;
    const int row = findRow(callId, &uuid);
    return row < m_shown ? row : -1;
}

void CallsModel::fill(Row& row, const Columns& columns)
{
    const bool finished = columns.outcome != CallOutcome::Pending;
    row.startedAt = columns.startedAt;
    row.durationMs = finished ? qint32(std::clamp<qint64>(columns.endedAt > 0 ? columns.endedAt - columns.startedAt : 0,
                         0, std::numeric_limits<qint32>::max()))
                              : -1;
    row.server = m_strings.intern(columns.server);
    row.tool = m_strings.intern(columns.label());
    row.rule = m_strings.intern(columns.rule);
    row.attempts = quint8(std::clamp(columns.attempts, 0, 255));
    row.outcome = quint8(columns.outcome);
    row.flags = quint8((row.flags & (Row::Dirty | Row::ForeignId)) | (columns.isToolCall() ? Row::IsToolCall : 0)
        | (columns.healed ? Row::Healed : 0) | (columns.inputDeclined ? Row::InputDeclined : 0));
}

void CallsModel::ingest(const CallRecord& record)
{
    ingestColumns(columnsOf(record));
}

void CallsModel::ingestColumns(const Columns& record)
{
    QUuid uuid;
    const int existing = findRow(record.callId, &uuid);
    if (existing >= 0) {
        Row& row = m_rows[size_t(existing)];
        const Row before = row;
        fill(row, record);
        const bool changed = before.startedAt != row.startedAt || before.durationMs != row.durationMs
            || before.server != row.server || before.tool != row.tool || before.rule != row.rule
            || before.attempts != row.attempts || before.outcome != row.outcome || before.flags != row.flags;
        // A row still in the pending batch is inserted with its newest values: nothing to announce.
        if (!changed || existing >= m_shown || (row.flags & Row::Dirty))
            return;
        row.flags |= Row::Dirty;
        m_dirty.push_back(existing);
    } else {
        Row row;
        const int index = int(m_rows.size());
        if (uuid.isNull()) {
            row.flags = Row::ForeignId;
            m_foreignRows.insert(record.callId, index);
            m_foreignIds.insert(index, record.callId);
        } else {
            row.id = uuid;
            const int shard = shardOf(uuid);
            m_uuidRows[size_t(shard)].insert(CallKey { uuid }, index);
            growShard(shard);
        }
        fill(row, record);
        m_rows.push_back(row);
    }
    if (int(m_rows.size()) - m_shown >= m_flushThreshold || int(m_dirty.size()) >= m_flushThreshold)
        flush();
    else
        scheduleFlush();
}

void CallsModel::growShard(int shard)
{
    // Shards fill evenly, so with one threshold all 64 would rehash within the same few dozen inserts,
    // as one hash would. Shard k instead doubles ahead of time once it is (128 - k)/128 full, between
    // half and all of its capacity: the rehashes are spread over the whole of each doubling.
    QHash<CallKey, int>& ids = m_uuidRows[size_t(shard)];
    const qsizetype capacity = ids.capacity();
    if (capacity >= 64 && ids.size() * 2 * UuidShards >= capacity * (2 * UuidShards - shard))
        ids.reserve(capacity * 2);
}

void CallsModel::scheduleFlush()
{
    if (m_flushTimer.isActive())
        return;
    const qint64 since = m_lastFlush.isValid() ? m_lastFlush.elapsed() : m_flushInterval;
    m_flushTimer.start(int(std::max<qint64>(0, m_flushInterval - since)));
}

void CallsModel::flush()
{
    m_flushTimer.stop();
    m_lastFlush.start();
    const int total = int(m_rows.size());
    if (total > m_shown) {
        beginInsertRows({}, m_shown, total - 1);
        m_shown = total;
        endInsertRows();
    }
    if (m_dirty.empty())
        return;
    std::vector<int> dirty;
    dirty.swap(m_dirty);
    std::sort(dirty.begin(), dirty.end());
    for (int row : dirty)
        m_rows[size_t(row)].flags &= quint8(~Row::Dirty);
    size_t start = 0;
    for (size_t i = 1; i <= dirty.size(); ++i) {
        if (i < dirty.size() && dirty[i] == dirty[i - 1] + 1)
            continue;
        Q_EMIT dataChanged(index(dirty[start], 0), index(dirty[i - 1], CallsModelColumn::Count - 1));
        start = i;
    }
}

void CallsModel::clear()
{
    beginResetModel();
    m_flushTimer.stop();
    m_rows.clear();
    m_shown = 0;
    m_dirty.clear();
    for (auto& shard : m_uuidRows)
        shard.clear();
    m_foreignRows.clear();
    m_foreignIds.clear();
    m_strings.clear();
    endResetModel();
}

int CallsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_shown;
}

int CallsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : CallsModelColumn::Count;
}

QVariant CallsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[size_t(index.row())];
    QVariant duration = row.isPending() ? QVariant() : QVariant(qint64(row.durationMs));
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case CallsModelColumn::Time:
            return row.startedAt;
        case CallsModelColumn::Server:
            return m_strings.at(row.server);
        case CallsModelColumn::Tool:
            return m_strings.at(row.tool);
        case CallsModelColumn::Duration:
            return duration;
        case CallsModelColumn::Attempts:
            return int(row.attempts);
        case CallsModelColumn::Rule:
            return m_strings.at(row.rule);
        case CallsModelColumn::Outcome:
            return int(row.outcome);
        default:
            return {};
        }
    case CallsModelRole::OutcomeRole:
        return int(row.outcome);
    case CallsModelRole::RuleRole:
        return m_strings.at(row.rule);
    case CallsModelRole::ServerRole:
        return m_strings.at(row.server);
    case CallsModelRole::ToolRole:
        return m_strings.at(row.tool);
    case CallsModelRole::IsToolCallRole:
        return row.isToolCall();
    case CallsModelRole::CallIdRole:
        return callId(index.row());
    case CallsModelRole::StartedAtRole:
        return row.startedAt;
    case CallsModelRole::DurationRole:
        return duration;
    case CallsModelRole::AttemptsRole:
        return int(row.attempts);
    case CallsModelRole::HealedRole:
        return bool(row.flags & Row::Healed);
    case CallsModelRole::InputDeclinedRole:
        return bool(row.flags & Row::InputDeclined);
    default:
        return {};
    }
}

} // namespace mcpscope
