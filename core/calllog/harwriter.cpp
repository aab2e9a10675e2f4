#include "harwriter.h"

#include "calllog/calllogfile.h"
#include "jsonrpc/translation.h"

#include <QDateTime>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QUrl>
#include <QUrlQuery>

namespace mcpscope {

namespace {

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonArray harHeaders(const WireHeaders& headers)
{
    QJsonArray array;
    for (const auto& [name, value] : headers)
        array.append(QJsonObject { { QStringLiteral("name"), QString::fromLatin1(name) },
            { QStringLiteral("value"), QString::fromUtf8(value) } });
    return array;
}

QByteArray headerValue(const WireHeaders& headers, QByteArrayView name)
{
    for (const auto& [key, value] : headers) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QJsonArray queryString(const QString& url)
{
    QJsonArray array;
    const QList<QPair<QString, QString>> items = QUrlQuery(QUrl(url)).queryItems(QUrl::FullyDecoded);
    for (const auto& [name, value] : items)
        array.append(QJsonObject { { QStringLiteral("name"), name }, { QStringLiteral("value"), value } });
    return array;
}

QJsonObject harEntry(const CallRecord& record, const CallAttempt& attempt, const HttpExchange& e, int index)
{
    // What we know is when the request began, when its response began and when it was settled.
    const qint64 ended = std::max(e.endedAt, e.startedAt);
    const qint64 firstByte = e.firstByteAt > 0 ? std::clamp(e.firstByteAt, e.startedAt, ended) : ended;
    const qint64 wait = firstByte - e.startedAt;
    const qint64 receive = e.firstByteAt > 0 ? ended - firstByte : 0;
    const QJsonObject timings { { QStringLiteral("blocked"), -1 }, { QStringLiteral("dns"), -1 },
        { QStringLiteral("connect"), -1 }, { QStringLiteral("ssl"), -1 }, { QStringLiteral("send"), 0 },
        { QStringLiteral("wait"), wait }, { QStringLiteral("receive"), receive } };

    const QString httpVersion = e.httpVersion.isEmpty() ? QStringLiteral("HTTP/1.1") : e.httpVersion;
    QJsonObject request { { QStringLiteral("method"), e.method }, { QStringLiteral("url"), e.url },
        { QStringLiteral("httpVersion"), httpVersion }, { QStringLiteral("cookies"), QJsonArray() },
        { QStringLiteral("headers"), harHeaders(e.requestHeaders) },
        { QStringLiteral("queryString"), queryString(e.url) }, { QStringLiteral("headersSize"), -1 },
        { QStringLiteral("bodySize"), e.requestBodySize } };
    if (e.method == QLatin1String("POST") || !e.requestBody.isEmpty()) {
        const QByteArray type = headerValue(e.requestHeaders, "Content-Type");
        request.insert(QStringLiteral("postData"),
            QJsonObject { { QStringLiteral("mimeType"),
                              type.isEmpty() ? QStringLiteral("application/json") : QString::fromLatin1(type) },
                { QStringLiteral("text"), QString::fromUtf8(e.requestBody) } });
    }

    // A request that got no response looks as browsers write a failed one: status 0, nothing received.
    const bool answered = e.status != 0;
    QJsonObject content { { QStringLiteral("size"), e.responseBodySize }, { QStringLiteral("mimeType"), e.mimeType } };
    if (!e.responseBody.isEmpty())
        content.insert(QStringLiteral("text"), QString::fromUtf8(e.responseBody));
    if (e.truncated)
        content.insert(QStringLiteral("comment"),
            McpScope::tr("bodies are cut at %1 KiB in the call log; the full result is in the call record")
                .arg(WireBodyCap / 1024));
    const QJsonObject response { { QStringLiteral("status"), e.status }, { QStringLiteral("statusText"), e.statusText },
        { QStringLiteral("httpVersion"), answered ? httpVersion : QString() },
        { QStringLiteral("cookies"), QJsonArray() }, { QStringLiteral("headers"), harHeaders(e.responseHeaders) },
        { QStringLiteral("content"), content },
        { QStringLiteral("redirectURL"), QString::fromUtf8(headerValue(e.responseHeaders, "Location")) },
        { QStringLiteral("headersSize"), -1 }, { QStringLiteral("bodySize"), answered ? e.responseBodySize : -1 } };

    QJsonObject custom { { QStringLiteral("callId"), record.callId }, { QStringLiteral("server"), record.server },
        { QStringLiteral("method"), record.method }, { QStringLiteral("attempt"), attempt.number },
        { QStringLiteral("request"), index }, { QStringLiteral("requestId"), attempt.requestId },
        { QStringLiteral("outcome"), outcomeName(record.outcome) } };
    if (!record.tool.isEmpty())
        custom.insert(QStringLiteral("tool"), record.tool);
    if (!record.rule.isEmpty())
        custom.insert(QStringLiteral("rule"), record.rule);
    if (!attempt.sessionId.isEmpty())
        custom.insert(QStringLiteral("sessionId"), attempt.sessionId);
    if (attempt.failureKind)
        custom.insert(QStringLiteral("failureKind"), failureKindName(*attempt.failureKind));
    if (!e.error.isEmpty())
        custom.insert(QStringLiteral("error"), e.error);
    else if (!attempt.error.isEmpty())
        custom.insert(QStringLiteral("error"), attempt.error);
    if (!e.answerOnStream.isEmpty())
        custom.insert(QStringLiteral("answerOnStream"), QString::fromUtf8(e.answerOnStream));

    QString comment = McpScope::tr("%1, attempt %2").arg(callLabel(record)).arg(attempt.number);
    if (!answered && !e.answerOnStream.isEmpty())
        comment += McpScope::tr("; the answer came on the event stream before this POST's response was read");
    return { { QStringLiteral("startedDateTime"), isoTime(e.startedAt) }, { QStringLiteral("time"), wait + receive },
        { QStringLiteral("request"), request }, { QStringLiteral("response"), response },
        { QStringLiteral("cache"), QJsonObject() }, { QStringLiteral("timings"), timings },
        { QStringLiteral("comment"), comment }, { QStringLiteral("_mcpscope"), custom } };
}
} // namespace

HarWriter::HarWriter(QIODevice* out, Redactor redactor)
    : m_out(out)
    , m_redactor(std::move(redactor))
{ }

bool HarWriter::put(const QByteArray& bytes)
{
    if (m_failed)
        return false;
    if (m_out->write(bytes) != bytes.size()) {
        m_failed = true;
        m_error = m_out->errorString();
        if (m_error.isEmpty())
            m_error = McpScope::tr("the output device took only part of the data");
        return false;
    }
    return true;
}

bool HarWriter::begin()
{
    const QJsonObject creator { { QStringLiteral("name"), QStringLiteral("McpScope") },
        { QStringLiteral("version"), QStringLiteral(MCPSCOPE_VERSION) } };
    QByteArray head = R"({"log":{"version":"1.2","creator":)";
    head += QJsonDocument(creator).toJson(QJsonDocument::Compact);
    head += R"(,"comment":")";
    head += McpScope::tr("HTTP traffic of MCP calls; stdio traffic is only in the JSONL call log").toUtf8();
    head += R"(","entries":[)";
    return put(head);
}

QList<QJsonObject> HarWriter::entries(const CallRecord& record)
{
    QList<QJsonObject> list;
    for (const CallAttempt& attempt : record.attempts) {
        for (qsizetype i = 0; i < attempt.exchange.http.size(); ++i)
            list.append(harEntry(record, attempt, attempt.exchange.http.at(i), int(i)));
    }
    return list;
}

int HarWriter::add(const CallRecord& record)
{
    bool any = false;
    for (const CallAttempt& attempt : record.attempts)
        any = any || !attempt.exchange.http.isEmpty();
    if (!any)
        return 0;
    const CallRecord redacted = CallRecord::fromJson(m_redactor.redactRecord(record));
    const QList<QJsonObject> list = entries(redacted);
    for (const QJsonObject& entry : list) {
        QByteArray bytes = m_entries > 0 ? QByteArrayLiteral(",\n") : QByteArrayLiteral("\n");
        bytes += QJsonDocument(entry).toJson(QJsonDocument::Compact);
        if (!put(bytes))
            return -1;
        ++m_entries;
    }
    return int(list.size());
}

bool HarWriter::finish()
{
    return put(QByteArrayLiteral("\n]}}\n"));
}

int HarWriter::countEntries(const QList<CallRecord>& records, const CallLogFilter& filter)
{
    int count = 0;
    for (const CallRecord& record : records) {
        if (!filter.matches(record))
            continue;
        for (const CallAttempt& attempt : record.attempts)
            count += int(attempt.exchange.http.size());
    }
    return count;
}

bool HarWriter::write(const QString& path, const QList<CallRecord>& records, const CallLogFilter& filter,
    QString* error, const std::optional<Redactor>& redactor)
{
    QSaveFile file(path);
    const auto fail = [&](const QString& why) {
        if (error)
            *error = McpScope::tr("cannot write %1: %2").arg(path, why);
        return false;
    };
    if (!file.open(QIODevice::WriteOnly))
        return fail(file.errorString());
    HarWriter writer(&file, redactor.value_or(Redactor()));
    bool ok = writer.begin();
    for (const CallRecord& record : records) {
        if (ok && filter.matches(record))
            ok = writer.add(record) >= 0;
    }
    if (!ok || !writer.finish()) {
        file.cancelWriting();
        return fail(writer.errorString());
    }
    if (!file.commit())
        return fail(file.errorString());
    return true;
}

} // namespace mcpscope
