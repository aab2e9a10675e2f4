#pragma once

#include "httpclient.h"
#include "sseparser.h"
#include "streamablehttptransport.h"

#include <QPointer>

#include <optional>

namespace mcpscope {

/// The 2024-11-05 HTTP+SSE transport: a long-lived GET event stream announces the POST endpoint
/// (event: endpoint) and carries every message from the server (event: message).
class LegacySseTransport final : public Transport
{
    Q_OBJECT
public:
    explicit LegacySseTransport(HttpTransportOptions options, QObject* parent = nullptr);
    ~LegacySseTransport() override;

    void open() override;
    void send(const JsonRpcMessage& message) override;
    void close() override;
    void abort() override;
    /// The session id the endpoint URL carries (its sessionId query item), else the endpoint path.
    QString sessionId() const override;
    QUrl endpoint() const { return m_endpoint; }

private:
    void onStreamData();
    void onStreamFinished();
    void failAll(const TransportFailure& failure);

    HttpTransportOptions m_options;
    HttpClient m_http;
    QPointer<HttpReply> m_stream;
    SseParser m_parser;
    QUrl m_endpoint;
    QByteArray m_streamBody;
    bool m_opened = false;
    bool m_closing = false;
    struct InFlight
    {
        QJsonValue id;
        QPointer<HttpReply> post; ///< until it finishes
        std::optional<HttpExchange> wire; ///< the POST, while someone listens to exchangeRecorded
    };
    /// Emits exchangeRecorded for a request being settled; answer is the event data that answered it.
    void settleWire(InFlight& request, const QByteArray& answer);

    QHash<IdKey, InFlight> m_inFlight; ///< requests posted and not yet answered on the stream
    bool m_killed = false; ///< abort() ran: what fails now was dropped by the user
    /// Notification and response POSTs on their way; close() lets them through first (a timed-out
    /// call's notifications/cancelled), for a moment.
    QList<QPointer<HttpReply>> m_notifications;
    void closeWhenQuiet();
    bool m_closed = false;
};

} // namespace mcpscope
