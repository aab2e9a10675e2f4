#pragma once

#include "jsonrpcmessage.h"

#include <QHash>
#include <QJsonValue>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <deque>
#include <functional>
#include <optional>

namespace mcpscope {

/// Tracks outstanding requests of one session: id allocation, deadlines, progress tokens and
/// cancellation. It never touches the wire; the session sends `notifications/cancelled` when
/// told that a request timed out.
class RequestTracker : public QObject
{
    Q_OBJECT
public:
    /// Milliseconds on a monotonic clock. Injected in tests so deadlines never need sleeping.
    using Clock = std::function<qint64()>;

    struct Entry
    {
        QJsonValue id;
        QString method;
        QJsonValue progressToken;
        qint64 startedAt = 0;
        quint64 sequence = 0; ///< start order, for requests started in the same millisecond
        qint64 deadline = 0; ///< moves forward on progress, never past hardDeadline
        qint64 hardDeadline = 0;
        qint64 timeoutMs = 0;
        double lastProgress = -1;
    };

    explicit RequestTracker(QObject* parent = nullptr);

    /// Replaces the clock and stops the internal timer: the caller drives expire() itself.
    void setClock(Clock clock);
    qint64 now() const { return m_clock(); }

    /// Integer ids, never reused within the tracker's life (one tracker per session).
    QJsonValue nextId();
    QJsonValue nextProgressToken();

    /// maxTotalMs caps how far progress may push the deadline; 0 means progress never extends it.
    void track(const QJsonValue& id, const QString& method, qint64 timeoutMs, qint64 maxTotalMs = 0,
        const QJsonValue& progressToken = {});
    bool isPending(const QJsonValue& id) const;
    const Entry* find(const QJsonValue& id) const;
    int pendingCount() const { return int(m_pending.size()); }

    /// A response arrived. Returns nothing for an id that is unknown, timed out or cancelled:
    /// such a late response must be ignored.
    std::optional<Entry> complete(const QJsonValue& id);
    /// True if the id was given up on (timeout or cancel): a late answer to it is expected noise.
    bool wasAbandoned(const QJsonValue& id) const;
    /// Gives up on a request (user cancel, transport gone). Later responses to it are ignored.
    std::optional<Entry> abandon(const QJsonValue& id);
    QList<Entry> abandonAll();

    /// Routes a progress notification to its request and pushes that request's deadline out.
    /// Returns the entry, or nothing if the token is unknown or the progress value went backwards.
    std::optional<Entry> progress(const QJsonValue& token, double value);

    /// Removes and returns every request whose deadline has passed. Emits timedOut for each.
    QList<Entry> expire();

Q_SIGNALS:
    /// Fires from expire(), driven by the internal timer unless a clock was injected.
    void timedOut(const mcpscope::RequestTracker::Entry& entry);

private:
    void rememberAbandoned(const IdKey& key);
    void rearm();
    void armAt(qint64 deadline);

    Clock m_clock;
    QTimer m_timer;
    bool m_ownTimer = true;
    qint64 m_armedAt = 0;
    qint64 m_nextId = 1;
    qint64 m_nextToken = 1;
    quint64 m_nextSequence = 0;
    QHash<IdKey, Entry> m_pending;
    QHash<IdKey, IdKey> m_tokenToId;
    QSet<IdKey> m_abandoned;
    std::deque<IdKey> m_abandonedOrder;
};

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::RequestTracker::Entry)
