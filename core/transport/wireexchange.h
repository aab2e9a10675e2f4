#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

#include <optional>

namespace mcpscope {

enum class WireDirection; // transport.h

/// "out" (to the server) and "in" (from it), for logs, exports and the stored traffic.
QString wireDirectionName(WireDirection direction);
std::optional<WireDirection> wireDirectionFromName(QStringView name);

/// Header name and value as they went over the wire.
using WireHeaders = QList<QPair<QByteArray, QByteArray>>;

/// Bodies and lines kept in a wire exchange are cut at this size: the full answer already lives
/// in the call record's result, and a 50 MB answer must not double the record.
constexpr qsizetype WireBodyCap = 256 * 1024;

/// One HTTP request and its response (or the lack of one), as a call log and a HAR need it.
/// Bodies are raw bytes (the raw SSE text for an event stream), cut at WireBodyCap.
struct HttpExchange
{
    qint64 startedAt = 0; ///< ms since the epoch
    qint64 firstByteAt = 0; ///< when the response began (0: no response)
    qint64 endedAt = 0; ///< when the exchange was settled; for a stream still open, when its answer arrived
    qint64 connectedAt = 0; ///< when its connection was ready (a reused one: = startedAt; 0: not known)
    bool connectionReused = false; ///< it went out on a kept-alive connection that had carried a request
    QString method;
    QString url;
    QString httpVersion; ///< "HTTP/1.1", "HTTP/2"; empty when no response said
    int status = 0; ///< 0: no response
    QString statusText;
    WireHeaders requestHeaders;
    QByteArray requestBody;
    qint64 requestBodySize = 0; ///< the whole body, also when requestBody was cut
    WireHeaders responseHeaders;
    QString mimeType; ///< of the response
    QByteArray responseBody;
    qint64 responseBodySize = 0; ///< bytes received, also when responseBody was cut
    bool truncated = false; ///< a body was cut at WireBodyCap
    QByteArray answerOnStream; ///< legacy SSE: the answer's event data, which came on the GET stream
    QString error; ///< the network error that ended it, if any

    void setRequestBody(const QByteArray& body);
    void appendResponseBody(QByteArrayView bytes);

    QJsonObject toJson() const;
    static HttpExchange fromJson(const QJsonObject& object);
    friend bool operator==(const HttpExchange&, const HttpExchange&) = default;
};

/// One line on a stdio server's stdin ("out") or stdout ("in").
struct StdioLine
{
    qint64 at = 0; ///< ms since the epoch
    bool outgoing = true;
    QByteArray line; ///< without the newline, cut at WireBodyCap
    qint64 size = 0; ///< the whole line
    bool truncated = false;

    static StdioLine make(qint64 at, bool outgoing, QByteArrayView line);
    QJsonObject toJson() const;
    static StdioLine fromJson(const QJsonObject& object);
    friend bool operator==(const StdioLine&, const StdioLine&) = default;
};

/// What went over the wire for one request: the HTTP requests it took (a POST, then any GETs that
/// resumed its stream) or the stdio lines (the request and its answer).
struct WireExchange
{
    QList<HttpExchange> http;
    QList<StdioLine> stdio;

    bool isEmpty() const { return http.isEmpty() && stdio.isEmpty(); }
    QJsonObject toJson() const;
    static WireExchange fromJson(const QJsonObject& object);
    friend bool operator==(const WireExchange&, const WireExchange&) = default;
};

/// bytes cut to at most cap bytes, never inside a UTF-8 sequence (so the text form round-trips).
QByteArray cutUtf8(QByteArrayView bytes, qsizetype cap);

} // namespace mcpscope

Q_DECLARE_METATYPE(mcpscope::WireExchange)
