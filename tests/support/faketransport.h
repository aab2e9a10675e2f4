#pragma once

// Test support: a Transport the test scripts, for wire behaviour no real peer produces on demand and
// in a fixed order (a ping lost on its way, a reply that arrives on a session already replaced, a
// retry that fails before its first byte while the first attempt may have run). Every request a
// transport is handed is counted by method on the FakePeer, across all the transports it made.

#include "transport/transport.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <memory>

namespace mcpscope::test {

/// What the fake server does with one request.
struct FakeAnswer
{
    enum class Kind {
        Result, ///< a JSON-RPC result
        Error, ///< a JSON-RPC error response
        RequestFailure, ///< requestFailed with evidence
        ChannelFailure, ///< channelFailed with evidence: every request in flight is affected
        Silence, ///< nothing; FakeTransport::answer() may settle it later
    };

    Kind kind = Kind::Result;
    QJsonValue result = QJsonObject();
    JsonRpcError error;
    TransportFailure evidence;
    /// requestWritten is reported for the request before its outcome (a real transport reports it when
    /// the bytes left).
    bool written = true;
    int delayMs = 0;

    static FakeAnswer withResult(const QJsonValue& result)
    {
        FakeAnswer answer;
        answer.result = result;
        return answer;
    }
    static FakeAnswer withError(int code, const QString& message)
    {
        FakeAnswer answer;
        answer.kind = Kind::Error;
        answer.error = { code, message, {} };
        return answer;
    }
    static FakeAnswer failing(const TransportFailure& evidence)
    {
        FakeAnswer answer;
        answer.kind = Kind::RequestFailure;
        answer.evidence = evidence;
        answer.written = evidence.requestWritten;
        return answer;
    }
    static FakeAnswer channelFailing(const TransportFailure& evidence)
    {
        FakeAnswer answer = failing(evidence);
        answer.kind = Kind::ChannelFailure;
        return answer;
    }
    static FakeAnswer silence()
    {
        FakeAnswer answer;
        answer.kind = Kind::Silence;
        return answer;
    }
    FakeAnswer after(int ms) const
    {
        FakeAnswer answer = *this;
        answer.delayMs = ms;
        return answer;
    }
};

/// Evidence as the real transports report it.
inline TransportFailure lostAfterWrite()
{
    TransportFailure failure;
    failure.event = TransportEvent::ConnectionLost;
    failure.requestWritten = true;
    failure.message = QStringLiteral("fake: the connection reset after the request was written");
    return failure;
}

inline TransportFailure notSent()
{
    TransportFailure failure;
    failure.event = TransportEvent::NotSent;
    failure.requestWritten = false;
    failure.message = QStringLiteral("fake: nothing of the request left");
    return failure;
}

inline TransportFailure httpStatus(int status, const QString& sessionId = QString())
{
    TransportFailure failure;
    failure.event = TransportEvent::HttpStatus;
    failure.requestWritten = true;
    failure.responseStarted = true;
    failure.httpStatus = status;
    failure.sessionId = sessionId;
    failure.message = QStringLiteral("fake: HTTP %1").arg(status);
    return failure;
}

class FakePeer;

/// One channel to the FakePeer. Everything it reports is queued (never inside send()), like a real
/// transport whose answers come from the event loop.
class FakeTransport final : public Transport
{
public:
    FakeTransport(FakePeer* peer, int index)
        : m_peer(peer)
        , m_index(index)
    { }

    void open() override
    {
        QTimer::singleShot(0, this, [this] { Q_EMIT opened(); });
    }
    inline void send(const JsonRpcMessage& message) override;
    void close() override
    {
        m_held.clear();
        QTimer::singleShot(0, this, [this] { Q_EMIT closed(); });
    }
    void abort() override
    {
        TransportFailure failure;
        failure.event = TransportEvent::Killed;
        failure.message = QStringLiteral("fake: transport %1 killed").arg(m_index);
        QTimer::singleShot(0, this, [this, failure] { Q_EMIT channelFailed(failure); });
    }
    QString sessionId() const override { return QStringLiteral("fake-session-%1").arg(m_index); }

    int index() const { return m_index; }
    /// Ids of requests scripted as Silence that nothing answered yet, oldest first.
    QList<QJsonValue> heldRequests() const { return m_held; }
    /// Answers a held request now, as the server's late reply would arrive.
    void answer(const QJsonValue& id, const QJsonValue& result)
    {
        m_held.removeIf([&](const QJsonValue& held) { return idKey(held) == idKey(id); });
        Q_EMIT messageReceived(JsonRpcMessage::response(id, result));
    }
    /// A message the server sends on its own (a notification or a server→client request).
    void serverSends(const JsonRpcMessage& message) { Q_EMIT messageReceived(message); }

private:
    void settle(const JsonRpcMessage& request, const FakeAnswer& answer)
    {
        switch (answer.kind) {
        case FakeAnswer::Kind::Result:
            Q_EMIT messageReceived(JsonRpcMessage::response(request.id, answer.result));
            return;
        case FakeAnswer::Kind::Error:
            Q_EMIT messageReceived(JsonRpcMessage::errorResponse(request.id, answer.error));
            return;
        case FakeAnswer::Kind::RequestFailure:
            Q_EMIT requestFailed(request.id, answer.evidence);
            return;
        case FakeAnswer::Kind::ChannelFailure:
            Q_EMIT channelFailed(answer.evidence);
            return;
        case FakeAnswer::Kind::Silence:
            m_held.append(request.id);
            return;
        }
    }

    FakePeer* m_peer;
    int m_index;
    QList<QJsonValue> m_held;
};

/// The scripted server behind every FakeTransport it creates. Answers are taken per method in the
/// order they were scripted; a method with no script left gets its default (initialize, tools/list
/// and ping answer like a healthy server; anything else gets an empty result).
class FakePeer
{
public:
    FakePeer()
    {
        setDefault(QStringLiteral("initialize"),
            FakeAnswer::withResult(QJsonObject { { QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18") },
                { QStringLiteral("capabilities"), QJsonObject { { QStringLiteral("tools"), QJsonObject() } } },
                { QStringLiteral("serverInfo"),
                    QJsonObject { { QStringLiteral("name"), QStringLiteral("fake") } } } }));
        setTools({});
        setDefault(QStringLiteral("ping"), FakeAnswer::withResult(QJsonObject()));
    }

    void script(const QString& method, const FakeAnswer& answer) { m_scripts[method].append(answer); }
    void setDefault(const QString& method, const FakeAnswer& answer) { m_defaults.insert(method, answer); }
    FakeAnswer defaultAnswer(const QString& method) const
    {
        return m_defaults.value(method, FakeAnswer::withResult(QJsonObject()));
    }
    void setTools(const QJsonArray& tools)
    {
        setDefault(
            QStringLiteral("tools/list"), FakeAnswer::withResult(QJsonObject { { QStringLiteral("tools"), tools } }));
    }

    /// A transport for the next session; setTransportFactory hands this out.
    std::unique_ptr<Transport> newTransport()
    {
        auto transport = std::make_unique<FakeTransport>(this, int(m_transports.size()) + 1);
        m_transports.append(transport.get());
        return transport;
    }

    /// Requests with this method handed to any transport, in order.
    QList<JsonRpcMessage> requests(const QString& method) const
    {
        QList<JsonRpcMessage> found;
        for (const auto& [index, message] : m_received) {
            if (message.type == JsonRpcMessage::Type::Request && message.method == method)
                found.append(message);
        }
        return found;
    }
    int received(const QString& method) const { return int(requests(method).size()); }
    /// Requests with this method handed to the transport with this index (1 is the first).
    int receivedOn(int transport, const QString& method) const
    {
        int count = 0;
        for (const auto& [index, message] : m_received)
            count += index == transport && message.type == JsonRpcMessage::Type::Request && message.method == method;
        return count;
    }
    QList<JsonRpcMessage> notifications(const QString& method) const
    {
        QList<JsonRpcMessage> found;
        for (const auto& [index, message] : m_received) {
            if (message.type == JsonRpcMessage::Type::Notification && message.method == method)
                found.append(message);
        }
        return found;
    }
    /// Every message handed to the transport with this index, in order.
    QList<JsonRpcMessage> sent(int transport) const
    {
        QList<JsonRpcMessage> found;
        for (const auto& [index, message] : m_received) {
            if (index == transport)
                found.append(message);
        }
        return found;
    }
    int transportCount() const { return int(m_transports.size()); }
    FakeTransport* transport(int index) const { return m_transports.value(index - 1); }

private:
    friend class FakeTransport;

    FakeAnswer take(const QString& method)
    {
        auto it = m_scripts.find(method);
        if (it != m_scripts.end() && !it->isEmpty())
            return it->takeFirst();
        return defaultAnswer(method);
    }
    void record(int transport, const JsonRpcMessage& message) { m_received.append({ transport, message }); }

    QHash<QString, QList<FakeAnswer>> m_scripts;
    QHash<QString, FakeAnswer> m_defaults;
    QList<std::pair<int, JsonRpcMessage>> m_received;
    QList<QPointer<FakeTransport>> m_transports;
};

void FakeTransport::send(const JsonRpcMessage& message)
{
    m_peer->record(m_index, message);
    if (message.type != JsonRpcMessage::Type::Request)
        return;
    const FakeAnswer answer = m_peer->take(message.method);
    QTimer::singleShot(0, this, [this, message, answer] {
        if (answer.written)
            Q_EMIT requestWritten(message.id);
        QTimer::singleShot(answer.delayMs, this, [this, message, answer] { settle(message, answer); });
    });
}

} // namespace mcpscope::test
