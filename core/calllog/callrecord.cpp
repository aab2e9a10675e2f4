#include "callrecord.h"

#include <QCborValue>
#include <QCoreApplication>
#include <QJsonArray>
#include <QLocale>

#include <algorithm>
#include <charconv>

namespace mcpscope {

namespace {
struct OutcomeName
{
    CallOutcome outcome;
    const char* name;
};
constexpr OutcomeName OutcomeNames[] = {
    { CallOutcome::Pending, "pending" },
    { CallOutcome::Success, "success" },
    { CallOutcome::ToolError, "tool_error" },
    { CallOutcome::ProtocolError, "protocol_error" },
    { CallOutcome::OutcomeUncertain, "outcome_uncertain" },
    { CallOutcome::Timeout, "timeout" },
    { CallOutcome::NeedsAuth, "needs_auth" },
    { CallOutcome::BreakerOpen, "breaker_open" },
    { CallOutcome::NotDispatched, "not_dispatched" },
    { CallOutcome::Cancelled, "cancelled" },
    { CallOutcome::TransportError, "transport_error" },
    { CallOutcome::Interrupted, "interrupted" },
};

std::optional<FailureKind> kindFromName(const QString& name)
{
    for (int i = 0; i <= int(FailureKind::ToolError); ++i) {
        if (failureKindName(FailureKind(i)) == name)
            return FailureKind(i);
    }
    return std::nullopt;
}

std::optional<DispatchVerdict> verdictFromName(const QString& name)
{
    for (int i = 0; i <= int(DispatchVerdict::Executed); ++i) {
        if (dispatchVerdictName(DispatchVerdict(i)) == name)
            return DispatchVerdict(i);
    }
    return std::nullopt;
}

template <typename T> QJsonArray toArray(const QList<T>& items)
{
    QJsonArray array;
    for (const T& item : items)
        array.append(item.toJson());
    return array;
}

template <typename T> QList<T> fromArray(const QJsonValue& value)
{
    QList<T> items;
    for (const QJsonValue& item : value.toArray())
        items.append(T::fromJson(item.toObject()));
    return items;
}

QString str(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toString();
}

qint64 num(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toInteger();
}

/// Appends JSON text exactly as QJsonDocument::toJson(Compact) writes it (qjsonwriter.cpp): members in
/// the order a QJsonObject keeps them (sorted by key), integers in decimal, other numbers in the shortest
/// form that reads back the same ("null" when not finite), strings as UTF-8 with '"', '\\' and the
/// control characters escaped, and a UTF-16 unit that is no valid character (a lone surrogate) as \uXXXX.
class CompactWriter
{
public:
    explicit CompactWriter(qsizetype reserve) { m_out.reserve(reserve); }

    QByteArray take() { return std::move(m_out); }

    void raw(char c) { m_out.append(c); }
    void raw(QByteArrayView text) { m_out.append(text); }

    /// Starts the member key: a comma before every member but the first.
    void key(QByteArrayView name, bool* first)
    {
        if (!*first)
            m_out.append(',');
        *first = false;
        m_out.append('"');
        m_out.append(name);
        m_out.append("\":", 2);
    }

    void integer(qint64 value)
    {
        char digits[24];
        const auto result = std::to_chars(std::begin(digits), std::end(digits), value);
        m_out.append(digits, result.ptr - digits);
    }

    void boolean(bool value) { value ? m_out.append("true", 4) : m_out.append("false", 5); }

    void string(QStringView text)
    {
        m_out.append('"');
        const char16_t* src = text.utf16();
        const char16_t* const end = src + text.size();
        while (src != end) {
            // Room for a slice at a time, so a 50 MB result does not reserve six times its size at once: each
            // UTF-16 unit becomes at most 6 bytes (\u001f, or \uXXXX for a lone surrogate); a surrogate pair
            // that reaches past the slice writes 4 bytes for the 6 of its first unit.
            const char16_t* const slice = src + std::min<qsizetype>(end - src, 4096);
            const qsizetype start = m_out.size();
            m_out.resize(start + 6 * (slice - src));
            char* cursor = m_out.data() + start;
            while (src < slice) {
                const char16_t u = *src++;
                if (u < 0x80) {
                    if (u >= 0x20 && u != '"' && u != '\\') {
                        *cursor++ = char(u);
                        continue;
                    }
                    *cursor++ = '\\';
                    switch (u) {
                    case '"':
                        *cursor++ = '"';
                        break;
                    case '\\':
                        *cursor++ = '\\';
                        break;
                    case 0x8:
                        *cursor++ = 'b';
                        break;
                    case 0xc:
                        *cursor++ = 'f';
                        break;
                    case 0xa:
                        *cursor++ = 'n';
                        break;
                    case 0xd:
                        *cursor++ = 'r';
                        break;
                    case 0x9:
                        *cursor++ = 't';
                        break;
                    default:
                        cursor = hex4(cursor, u);
                        break;
                    }
                } else if (u < 0x800) {
                    *cursor++ = char(0xc0 | (u >> 6));
                    *cursor++ = char(0x80 | (u & 0x3f));
                } else if (!QChar::isSurrogate(u)) {
                    *cursor++ = char(0xe0 | (u >> 12));
                    *cursor++ = char(0x80 | ((u >> 6) & 0x3f));
                    *cursor++ = char(0x80 | (u & 0x3f));
                } else if (QChar::isHighSurrogate(u) && src != end && QChar::isLowSurrogate(*src)) {
                    const char32_t ucs = QChar::surrogateToUcs4(u, *src++);
                    *cursor++ = char(0xf0 | (ucs >> 18));
                    *cursor++ = char(0x80 | ((ucs >> 12) & 0x3f));
                    *cursor++ = char(0x80 | ((ucs >> 6) & 0x3f));
                    *cursor++ = char(0x80 | (ucs & 0x3f));
                } else {
                    *cursor++ = '\\';
                    cursor = hex4(cursor, u);
                }
            }
            m_out.resize(cursor - m_out.constData());
        }
        m_out.append('"');
    }

    void value(const QJsonValue& value)
    {
        switch (value.type()) {
        case QJsonValue::Bool:
            boolean(value.toBool());
            break;
        case QJsonValue::Double: {
            // QJsonValue keeps integers apart from doubles; Qt writes the two differently.
            const QCborValue number = QCborValue::fromJsonValue(value);
            if (number.isInteger()) {
                integer(number.toInteger());
            } else {
                const double d = number.toDouble();
                if (qIsFinite(d))
                    m_out.append(QByteArray::number(d, 'g', QLocale::FloatingPointShortest));
                else
                    m_out.append("null", 4);
            }
            break;
        }
        case QJsonValue::String:
            string(value.toString());
            break;
        case QJsonValue::Array:
            array(value.toArray());
            break;
        case QJsonValue::Object:
            object(value.toObject());
            break;
        default:
            m_out.append("null", 4);
            break;
        }
    }

    void array(const QJsonArray& array)
    {
        m_out.append('[');
        bool first = true;
        for (const QJsonValue& item : array) {
            if (!first)
                m_out.append(',');
            first = false;
            value(item);
        }
        m_out.append(']');
    }

    void object(const QJsonObject& object)
    {
        m_out.append('{');
        bool first = true;
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            if (!first)
                m_out.append(',');
            first = false;
            string(it.key());
            m_out.append(':');
            value(it.value());
        }
        m_out.append('}');
    }

private:
    static char* hex4(char* cursor, char16_t u)
    {
        constexpr char Digits[] = "0123456789abcdef";
        *cursor++ = 'u';
        *cursor++ = Digits[(u >> 12) & 0xf];
        *cursor++ = Digits[(u >> 8) & 0xf];
        *cursor++ = Digits[(u >> 4) & 0xf];
        *cursor++ = Digits[u & 0xf];
        return cursor;
    }

    QByteArray m_out;
};

// The members of each object below go in the order of their keys, as QJsonObject keeps them.

void writeAttempt(CompactWriter& w, const CallAttempt& a)
{
    bool first = true;
    w.raw('{');
    if (a.verdict) {
        w.key("dispatch", &first);
        w.string(dispatchVerdictName(*a.verdict));
    }
    w.key("endedAt", &first);
    w.integer(a.endedAt);
    if (!a.error.isEmpty()) {
        w.key("error", &first);
        w.string(a.error);
    }
    if (!a.exchange.isEmpty()) {
        w.key("exchange", &first);
        w.object(a.exchange.toJson());
    }
    if (a.exitCode) {
        w.key("exitCode", &first);
        w.integer(*a.exitCode);
    }
    if (a.failureKind) {
        w.key("failureKind", &first);
        w.string(failureKindName(*a.failureKind));
    }
    w.key("firstByteAt", &first);
    w.integer(a.firstByteAt);
    if (a.httpStatus) {
        w.key("httpStatus", &first);
        w.integer(a.httpStatus);
    }
    w.key("number", &first);
    w.integer(a.number);
    w.key("requestId", &first);
    w.string(a.requestId);
    w.key("sentAt", &first);
    w.integer(a.sentAt);
    w.key("sessionId", &first);
    w.string(a.sessionId);
    if (a.signal) {
        w.key("signal", &first);
        w.integer(a.signal);
    }
    w.key("written", &first);
    w.boolean(a.written);
    w.raw('}');
}

void writeDecision(CompactWriter& w, const CallDecision& d)
{
    bool first = true;
    w.raw('{');
    w.key("action", &first);
    w.string(d.action);
    w.key("afterAttempt", &first);
    w.integer(d.afterAttempt);
    w.key("reason", &first);
    w.string(d.reason);
    w.key("rule", &first);
    w.string(d.rule);
    w.raw('}');
}

void writeReconnect(CompactWriter& w, const CallReconnect& r)
{
    bool first = true;
    w.raw('{');
    w.key("durationMs", &first);
    w.integer(r.durationMs);
    if (!r.error.isEmpty()) {
        w.key("error", &first);
        w.string(r.error);
    }
    w.key("newSessionId", &first);
    w.string(r.newSessionId);
    w.key("ok", &first);
    w.boolean(r.ok);
    w.key("oldSessionId", &first);
    w.string(r.oldSessionId);
    w.key("startedAt", &first);
    w.integer(r.startedAt);
    w.raw('}');
}

void writeEvent(CompactWriter& w, const CallEvent& e)
{
    bool first = true;
    w.raw('{');
    w.key("at", &first);
    w.integer(e.at);
    w.key("kind", &first);
    w.string(e.kind);
    w.key("text", &first);
    w.string(e.text);
    w.raw('}');
}

template <typename T> void writeArray(CompactWriter& w, const QList<T>& items, void (*write)(CompactWriter&, const T&))
{
    w.raw('[');
    bool first = true;
    for (const T& item : items) {
        if (!first)
            w.raw(',');
        first = false;
        write(w, item);
    }
    w.raw(']');
}
} // namespace

QString outcomeName(CallOutcome outcome)
{
    for (const OutcomeName& entry : OutcomeNames) {
        if (entry.outcome == outcome)
            return QString::fromLatin1(entry.name);
    }
    return {};
}

std::optional<CallOutcome> outcomeFromName(QStringView name)
{
    for (const OutcomeName& entry : OutcomeNames) {
        if (name == QLatin1String(entry.name))
            return entry.outcome;
    }
    return std::nullopt;
}

QJsonObject CallAttempt::toJson() const
{
    QJsonObject o { { QStringLiteral("number"), number }, { QStringLiteral("requestId"), requestId },
        { QStringLiteral("sessionId"), sessionId }, { QStringLiteral("sentAt"), sentAt },
        { QStringLiteral("firstByteAt"), firstByteAt }, { QStringLiteral("endedAt"), endedAt },
        { QStringLiteral("written"), written } };
    if (httpStatus)
        o.insert(QStringLiteral("httpStatus"), httpStatus);
    if (failureKind)
        o.insert(QStringLiteral("failureKind"), failureKindName(*failureKind));
    if (verdict)
        o.insert(QStringLiteral("dispatch"), dispatchVerdictName(*verdict));
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    if (!exchange.isEmpty())
        o.insert(QStringLiteral("exchange"), exchange.toJson());
    if (exitCode)
        o.insert(QStringLiteral("exitCode"), *exitCode);
    if (signal)
        o.insert(QStringLiteral("signal"), signal);
    return o;
}

CallAttempt CallAttempt::fromJson(const QJsonObject& o)
{
    CallAttempt a;
    a.number = int(num(o, "number"));
    a.requestId = str(o, "requestId");
    a.sessionId = str(o, "sessionId");
    a.sentAt = num(o, "sentAt");
    a.firstByteAt = num(o, "firstByteAt");
    a.endedAt = num(o, "endedAt");
    a.written = o.value(QLatin1String("written")).toBool();
    a.httpStatus = int(num(o, "httpStatus"));
    a.failureKind = kindFromName(str(o, "failureKind"));
    a.verdict = verdictFromName(str(o, "dispatch"));
    a.error = str(o, "error");
    a.exchange = WireExchange::fromJson(o.value(QLatin1String("exchange")).toObject());
    if (o.value(QLatin1String("exitCode")).isDouble())
        a.exitCode = int(num(o, "exitCode"));
    a.signal = int(num(o, "signal"));
    return a;
}

QJsonObject CallDecision::toJson() const
{
    return { { QStringLiteral("afterAttempt"), afterAttempt }, { QStringLiteral("rule"), rule },
        { QStringLiteral("action"), action }, { QStringLiteral("reason"), reason } };
}

CallDecision CallDecision::fromJson(const QJsonObject& o)
{
    return { int(num(o, "afterAttempt")), str(o, "rule"), str(o, "action"), str(o, "reason") };
}

QJsonObject CallReconnect::toJson() const
{
    QJsonObject o { { QStringLiteral("oldSessionId"), oldSessionId }, { QStringLiteral("newSessionId"), newSessionId },
        { QStringLiteral("startedAt"), startedAt }, { QStringLiteral("durationMs"), durationMs },
        { QStringLiteral("ok"), ok } };
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    return o;
}

CallReconnect CallReconnect::fromJson(const QJsonObject& o)
{
    return { str(o, "oldSessionId"), str(o, "newSessionId"), num(o, "startedAt"), num(o, "durationMs"),
        o.value(QLatin1String("ok")).toBool(), str(o, "error") };
}

QJsonObject CallEvent::toJson() const
{
    return { { QStringLiteral("at"), at }, { QStringLiteral("kind"), kind }, { QStringLiteral("text"), text } };
}

CallEvent CallEvent::fromJson(const QJsonObject& o)
{
    return { num(o, "at"), str(o, "kind"), str(o, "text") };
}

QJsonObject CallRecord::toJson() const
{
    QJsonObject o {
        { QStringLiteral("schema"), SchemaVersion },
        { QStringLiteral("callId"), callId },
        { QStringLiteral("server"), server },
        { QStringLiteral("transport"), transport },
        { QStringLiteral("method"), method },
        { QStringLiteral("arguments"), arguments },
        { QStringLiteral("annotations"), annotations },
        { QStringLiteral("toolListed"), toolListed },
        { QStringLiteral("policy"), policy },
        { QStringLiteral("startedAt"), startedAt },
        { QStringLiteral("endedAt"), endedAt },
        { QStringLiteral("attempts"), toArray(attempts) },
        { QStringLiteral("decisions"), toArray(decisions) },
        { QStringLiteral("reconnects"), toArray(reconnects) },
        { QStringLiteral("events"), toArray(events) },
        { QStringLiteral("outcome"), outcomeName(outcome) },
        { QStringLiteral("rule"), rule },
        { QStringLiteral("healed"), healed },
    };
    if (!tool.isEmpty())
        o.insert(QStringLiteral("tool"), tool);
    if (!result.isUndefined())
        o.insert(QStringLiteral("result"), result);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error);
    return o;
}

QByteArray CallRecord::toCompactJson() const
{
    CompactWriter w(1024);
    bool first = true;
    w.raw('{');
    w.key("annotations", &first);
    w.object(annotations);
    w.key("arguments", &first);
    w.object(arguments);
    w.key("attempts", &first);
    writeArray(w, attempts, &writeAttempt);
    w.key("callId", &first);
    w.string(callId);
    w.key("decisions", &first);
    writeArray(w, decisions, &writeDecision);
    w.key("endedAt", &first);
    w.integer(endedAt);
    if (!error.isEmpty()) {
        w.key("error", &first);
        w.object(error);
    }
    w.key("events", &first);
    writeArray(w, events, &writeEvent);
    w.key("healed", &first);
    w.boolean(healed);
    w.key("method", &first);
    w.string(method);
    w.key("outcome", &first);
    // The stable names are plain ASCII words: nothing to escape, no QString to build.
    const auto name = std::find_if(std::begin(OutcomeNames), std::end(OutcomeNames),
        [this](const OutcomeName& entry) { return entry.outcome == outcome; });
    w.raw('"');
    if (name != std::end(OutcomeNames))
        w.raw(name->name);
    w.raw('"');
    w.key("policy", &first);
    w.object(policy);
    w.key("reconnects", &first);
    writeArray(w, reconnects, &writeReconnect);
    if (!result.isUndefined()) {
        w.key("result", &first);
        w.value(result);
    }
    w.key("rule", &first);
    w.string(rule);
    w.key("schema", &first);
    w.integer(SchemaVersion);
    w.key("server", &first);
    w.string(server);
    w.key("startedAt", &first);
    w.integer(startedAt);
    if (!tool.isEmpty()) {
        w.key("tool", &first);
        w.string(tool);
    }
    w.key("toolListed", &first);
    w.boolean(toolListed);
    w.key("transport", &first);
    w.string(transport);
    w.raw('}');
    return w.take();
}

CallRecord CallRecord::fromJson(const QJsonObject& o, QString* error)
{
    CallRecord r;
    const int schema = int(num(o, "schema"));
    if (error && schema > SchemaVersion)
        *error
            = QCoreApplication::translate("CallRecord", "call record schema %1 is newer than this McpScope reads (%2)")
                  .arg(schema)
                  .arg(SchemaVersion);
    r.callId = str(o, "callId");
    r.server = str(o, "server");
    r.transport = str(o, "transport");
    r.method = str(o, "method");
    r.tool = str(o, "tool");
    r.arguments = o.value(QLatin1String("arguments")).toObject();
    r.annotations = o.value(QLatin1String("annotations")).toObject();
    r.toolListed = o.value(QLatin1String("toolListed")).toBool();
    r.policy = o.value(QLatin1String("policy")).toObject();
    r.startedAt = num(o, "startedAt");
    r.endedAt = num(o, "endedAt");
    r.attempts = fromArray<CallAttempt>(o.value(QLatin1String("attempts")));
    r.decisions = fromArray<CallDecision>(o.value(QLatin1String("decisions")));
    r.reconnects = fromArray<CallReconnect>(o.value(QLatin1String("reconnects")));
    r.events = fromArray<CallEvent>(o.value(QLatin1String("events")));
    r.outcome = outcomeFromName(str(o, "outcome")).value_or(CallOutcome::Pending);
    r.rule = str(o, "rule");
    r.healed = o.value(QLatin1String("healed")).toBool();
    r.result = o.value(QLatin1String("result"));
    r.error = o.value(QLatin1String("error")).toObject();
    return r;
}

} // namespace mcpscope
