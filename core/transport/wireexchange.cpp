#include "wireexchange.h"

#include "jsonrpc/enumnames.h"
#include "transport/transport.h"

#include <QJsonArray>

namespace mcpscope {

namespace {
constexpr EnumName<WireDirection> DirectionEntries[] = {
    { WireDirection::Outgoing, u"out" },
    { WireDirection::Incoming, u"in" },
};
constexpr EnumNames<WireDirection> DirectionNames(DirectionEntries);
} // namespace

QString wireDirectionName(WireDirection direction)
{
    return DirectionNames.name(direction);
}

std::optional<WireDirection> wireDirectionFromName(QStringView name)
{
    return DirectionNames.fromName(name);
}

namespace {
QString str(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toString();
}

qint64 num(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toInteger();
}

QByteArray bytes(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toString().toUtf8();
}

QJsonArray headersToJson(const WireHeaders& headers)
{
    QJsonArray array;
    for (const auto& [name, value] : headers)
        array.append(QJsonObject { { QStringLiteral("name"), QString::fromLatin1(name) },
            { QStringLiteral("value"), QString::fromUtf8(value) } });
    return array;
}

WireHeaders headersFromJson(const QJsonValue& value)
{
    WireHeaders headers;
    for (const QJsonValue& item : value.toArray()) {
        const QJsonObject o = item.toObject();
        headers.append({ str(o, "name").toLatin1(), bytes(o, "value") });
    }
    return headers;
}

void insertText(QJsonObject& o, const char* key, const QString& text)
{
    if (!text.isEmpty())
        o.insert(QLatin1String(key), text);
}

void insertBytes(QJsonObject& o, const char* key, const QByteArray& bytes)
{
    if (!bytes.isEmpty())
        o.insert(QLatin1String(key), QString::fromUtf8(bytes));
}

void insertNumber(QJsonObject& o, const char* key, qint64 number)
{
    if (number != 0)
        o.insert(QLatin1String(key), number);
}
} // namespace

QByteArray cutUtf8(QByteArrayView bytes, qsizetype cap)
{
    if (bytes.size() <= cap)
        return bytes.toByteArray();
    qsizetype end = cap;
    // Back off over continuation bytes (10xxxxxx) to the start of the sequence that crosses the cap.
    while (end > 0 && (uchar(bytes.at(end)) & 0xC0) == 0x80)
        --end;
    return bytes.first(end).toByteArray();
}

void HttpExchange::setRequestBody(const QByteArray& body)
{
    requestBodySize = body.size();
    if (body.size() <= WireBodyCap) {
        requestBody = body;
        return;
    }
    requestBody = cutUtf8(body, WireBodyCap);
    truncated = true;
}

void HttpExchange::appendResponseBody(QByteArrayView chunk)
{
    responseBodySize += chunk.size();
    if (responseBody.size() >= WireBodyCap) {
        truncated = truncated || !chunk.isEmpty();
        return;
    }
    const qsizetype room = WireBodyCap - responseBody.size();
    if (chunk.size() <= room) {
        responseBody.append(chunk);
        return;
    }
    // A few bytes past the cap, so cutUtf8 sees where the sequence at the cap ends.
    responseBody.append(chunk.first(std::min(chunk.size(), room + 4)));
    responseBody = cutUtf8(responseBody, WireBodyCap);
    truncated = true;
}

QJsonObject HttpExchange::toJson() const
{
    QJsonObject o { { QStringLiteral("startedAt"), startedAt }, { QStringLiteral("method"), method },
        { QStringLiteral("url"), url }, { QStringLiteral("status"), status } };
    insertNumber(o, "connectedAt", connectedAt);
    if (connectionReused)
        o.insert(QStringLiteral("connectionReused"), true);
    insertNumber(o, "firstByteAt", firstByteAt);
    insertNumber(o, "endedAt", endedAt);
    insertText(o, "httpVersion", httpVersion);
    insertText(o, "statusText", statusText);
    if (!requestHeaders.isEmpty())
        o.insert(QStringLiteral("requestHeaders"), headersToJson(requestHeaders));
    insertBytes(o, "requestBody", requestBody);
    insertNumber(o, "requestBodySize", requestBodySize);
    if (!responseHeaders.isEmpty())
        o.insert(QStringLiteral("responseHeaders"), headersToJson(responseHeaders));
    insertText(o, "mimeType", mimeType);
    insertBytes(o, "responseBody", responseBody);
    insertNumber(o, "responseBodySize", responseBodySize);
    if (truncated)
        o.insert(QStringLiteral("truncated"), true);
    insertBytes(o, "answerOnStream", answerOnStream);
    insertText(o, "error", error);
    return o;
}

HttpExchange HttpExchange::fromJson(const QJsonObject& o)
{
    HttpExchange e;
    e.startedAt = num(o, "startedAt");
    e.firstByteAt = num(o, "firstByteAt");
    e.endedAt = num(o, "endedAt");
    e.connectedAt = num(o, "connectedAt");
    e.connectionReused = o.value(QLatin1String("connectionReused")).toBool();
    e.method = str(o, "method");
    e.url = str(o, "url");
    e.httpVersion = str(o, "httpVersion");
    e.status = int(num(o, "status"));
    e.statusText = str(o, "statusText");
    e.requestHeaders = headersFromJson(o.value(QLatin1String("requestHeaders")));
    e.requestBody = bytes(o, "requestBody");
    e.requestBodySize = num(o, "requestBodySize");
    e.responseHeaders = headersFromJson(o.value(QLatin1String("responseHeaders")));
    e.mimeType = str(o, "mimeType");
    e.responseBody = bytes(o, "responseBody");
    e.responseBodySize = num(o, "responseBodySize");
    e.truncated = o.value(QLatin1String("truncated")).toBool();
    e.answerOnStream = bytes(o, "answerOnStream");
    e.error = str(o, "error");
    return e;
}

StdioLine StdioLine::make(qint64 at, bool outgoing, QByteArrayView line)
{
    StdioLine l;
    l.at = at;
    l.outgoing = outgoing;
    l.size = line.size();
    l.truncated = line.size() > WireBodyCap;
    l.line = cutUtf8(line, WireBodyCap);
    return l;
}

QJsonObject StdioLine::toJson() const
{
    QJsonObject o { { QStringLiteral("at"), at },
        { QStringLiteral("direction"),
            wireDirectionName(outgoing ? WireDirection::Outgoing : WireDirection::Incoming) },
        { QStringLiteral("line"), QString::fromUtf8(line) } };
    if (size != line.size())
        o.insert(QStringLiteral("size"), size);
    if (truncated)
        o.insert(QStringLiteral("truncated"), true);
    return o;
}

StdioLine StdioLine::fromJson(const QJsonObject& o)
{
    StdioLine l;
    l.at = num(o, "at");
    l.outgoing = wireDirectionFromName(str(o, "direction")) != WireDirection::Incoming;
    l.line = bytes(o, "line");
    l.size = o.contains(QLatin1String("size")) ? num(o, "size") : l.line.size();
    l.truncated = o.value(QLatin1String("truncated")).toBool();
    return l;
}

QJsonObject WireExchange::toJson() const
{
    QJsonObject o;
    if (!http.isEmpty()) {
        QJsonArray array;
        for (const HttpExchange& e : http)
            array.append(e.toJson());
        o.insert(QStringLiteral("http"), array);
    }
    if (!stdio.isEmpty()) {
        QJsonArray array;
        for (const StdioLine& l : stdio)
            array.append(l.toJson());
        o.insert(QStringLiteral("stdio"), array);
    }
    return o;
}

WireExchange WireExchange::fromJson(const QJsonObject& o)
{
    WireExchange w;
    for (const QJsonValue& item : o.value(QLatin1String("http")).toArray())
        w.http.append(HttpExchange::fromJson(item.toObject()));
    for (const QJsonValue& item : o.value(QLatin1String("stdio")).toArray())
        w.stdio.append(StdioLine::fromJson(item.toObject()));
    return w;
}

} // namespace mcpscope
