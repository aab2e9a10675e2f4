#pragma once

#include "stringtable.h"
#include "trafficmodeldefs.h"
#include "transport/transport.h"

#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QJsonValue>
#include <QPointer>
#include <QTimer>

#include <deque>

namespace mcpscope {

class Engine;

/// Every wire message in both directions, the stdio child's stderr, the server's log notifications
/// and the manual actions, one row each (DESIGN.md "Traffic"), with raw values only: see
/// trafficmodeldefs.h for the columns and roles.
///
/// setEngine() connects the engine's traffic, serverLog, notice and actionLogged signals, which
/// carry those of every server, present and future. A log notification shows once: the incoming
/// notifications/message on the wire becomes a Log row (LogLevelRole, its logger as Method, its data
/// as Text) holding the wire bytes. The engine's logMessage, the same entry decoded, is not connected;
/// addLogMessage() is for a source without the wire.
///
/// Inserts are coalesced like CallsModel's: the first new row schedules a 0 ms single-shot flush;
/// the flush inserts the batch with one beginInsertRows(first, last), or happens at once when
/// flushThreshold() rows wait. Rows never change once inserted.
///
/// Ring limit: at most rowLimit() rows (default 100,000) and about byteLimit() bytes (default
/// 64 MiB, counting each row's payload plus sizeof(Row)) are kept. A flush that goes over first
/// removes the oldest rows with one beginRemoveRows(0, n - 1); rows of the batch that would be
/// removed at once are never inserted. Every dropped row is counted in droppedRows() and announced
/// by rowsDropped. The newest row is always kept, even when it alone is larger than byteLimit().
class TrafficModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    /// One row, 56 bytes plus the payload, which is shared with the engine's QByteArray when it can be.
    struct Row
    {
        enum Flag : quint8 {
            IdIsNumber = 0x1, ///< rpcId holds the JSON-RPC id
            IdIsString = 0x2, ///< the id is a string; RpcIdRole reads it from the payload again
        };

        QByteArray payload;
        qint64 at = 0; ///< ms since the epoch
        qint64 rpcId = 0;
        quint32 size = 0;
        quint32 method = 0; ///< StringTable index; see TrafficModelColumn::Method
        quint32 server = 0;
        TrafficDirection direction = TrafficDirection::Incoming;
        TrafficMessageKind kind = TrafficMessageKind::Other;
        TrafficLogLevel level = TrafficLogLevel::NoLevel;
        quint8 flags = 0;
    };

    static constexpr int DefaultRowLimit = 100000;
    static constexpr qint64 DefaultByteLimit = 64LL * 1024 * 1024;
    static constexpr int DefaultFlushThreshold = 5000;
    static constexpr qsizetype TextChars = 300;

    explicit TrafficModel(QObject* parent = nullptr);
    ~TrafficModel() override;

    /// Follows the engine's signals for every server, present and future; nullptr detaches. Rows stay.
    void setEngine(Engine* engine);
    Engine* engine() const;

    /// Lowering a limit applies it at once (a flush).
    void setRowLimit(int rows);
    int rowLimit() const { return m_rowLimit; }
    void setByteLimit(qint64 bytes);
    qint64 byteLimit() const { return m_byteLimit; }
    /// Rows dropped by the ring limit since construction or clear().
    qint64 droppedRows() const { return m_dropped; }
    /// What the kept rows (shown and pending) cost, as the byte limit counts it.
    qint64 retainedBytes() const { return m_bytes; }

    void setFlushThreshold(int rows) { m_flushThreshold = qMax(1, rows); }
    int flushThreshold() const { return m_flushThreshold; }
    /// Applies the limits and delivers the pending batch now.
    void flush();
    /// Forgets every row (one model reset) and resets droppedRows().
    void clear();

    /// Typed access for filters: the text behind a string index of a row.
    const QString& string(quint32 index) const { return m_strings.at(index); }
    /// The JSON-RPC id of a shown row, as RpcIdRole returns it.
    QVariant rpcId(int row) const;

    /// MCP level name ("warning") to TrafficLogLevel; NoLevel for an unknown name.
    static TrafficLogLevel logLevelFromName(QStringView name);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

public Q_SLOTS:
    /// One JSON-RPC message (or batch) as it went over the wire.
    void addMessage(const QString& server, mcpscope::WireDirection direction, const QByteArray& bytes);
    void addServerLog(const QString& server, const QString& line);
    void addLogMessage(const QString& server, const QString& level, const QString& logger, const QJsonValue& data);
    void addAction(const QString& server, const QString& kind, const QString& text);
    void addNotice(const QString& server, const QString& text);

Q_SIGNALS:
    /// A flush dropped count rows to stay within the limits; total is droppedRows().
    void rowsDropped(qint64 count, qint64 total);

private:
    void append(Row row);
    void addText(const QString& server, TrafficDirection direction, const QString& kind, const QString& text);
    /// TextRole of a row.
    QString textOf(const Row& row) const;
    static qint64 costOf(const Row& row);

    QPointer<Engine> m_engine;
    StringTable m_strings;
    /// Shown rows are [0, m_shown); the rest is the pending batch.
    std::deque<Row> m_rows;
    int m_shown = 0;
    qint64 m_bytes = 0;
    qint64 m_dropped = 0;
    int m_rowLimit = DefaultRowLimit;
    qint64 m_byteLimit = DefaultByteLimit;
    int m_flushThreshold = DefaultFlushThreshold;
    /// Requests not answered yet, so a response row can name the method it answers. Keyed by server,
    /// direction and id; cleared when it grows past a bound (requests that are never answered).
    QHash<QByteArray, quint32> m_openRequests;
    QTimer m_flushTimer;
};

} // namespace mcpscope
