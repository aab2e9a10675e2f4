#include "callrecord.h"

#include <QCoreApplication>
#include <QJsonArray>

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
