#include "callrecord.h"

#include "compactjsonwriter.h"
#include "jsonrpc/enumnames.h"
#include "transport/transport.h"

#include <QCborValue>
#include <QCoreApplication>
#include <QJsonArray>
#include <QLocale>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>

namespace mcpscope {

namespace {
constexpr EnumName<CallOutcome> OutcomeEntries[] = {
    { CallOutcome::Pending, u"pending" },
    { CallOutcome::Success, u"success" },
    { CallOutcome::ToolError, u"tool_error" },
    { CallOutcome::ProtocolError, u"protocol_error" },
    { CallOutcome::OutcomeUncertain, u"outcome_uncertain" },
    { CallOutcome::Timeout, u"timeout" },
    { CallOutcome::NeedsAuth, u"needs_auth" },
    { CallOutcome::BreakerOpen, u"breaker_open" },
    { CallOutcome::NotDispatched, u"not_dispatched" },
    { CallOutcome::Cancelled, u"cancelled" },
    { CallOutcome::TransportError, u"transport_error" },
    { CallOutcome::Interrupted, u"interrupted" },
};
constexpr EnumNames<CallOutcome> OutcomeNames(OutcomeEntries);

/// How one member type goes into a QJsonObject, into the compact bytes and back. isSet says whether a
/// member that is written only when set (Presence::WhenSet) is there.
template <typename T> struct Codec;

template <typename S> struct Field;
template <typename S> std::span<const Field<S>> fieldsOf();

template <typename S> QJsonObject objectOf(const S& s);
template <typename S> void writeObject(CompactWriter& w, const S& s);
template <typename S> S readObject(const QJsonObject& o);

template <typename N> struct NumberCodec
{
    static QJsonValue toJson(N v) { return v; }
    static void write(CompactWriter& w, N v) { w.integer(v); }
    static N read(const QJsonValue& v) { return N(v.toInteger()); }
    static bool isSet(N v) { return v != 0; }
};
template <> struct Codec<int> : NumberCodec<int>
{ };
template <> struct Codec<qint64> : NumberCodec<qint64>
{ };

template <> struct Codec<bool>
{
    static QJsonValue toJson(bool v) { return v; }
    static void write(CompactWriter& w, bool v) { w.boolean(v); }
    static bool read(const QJsonValue& v) { return v.toBool(); }
    static bool isSet(bool v) { return v; }
};

template <> struct Codec<QString>
{
    static QJsonValue toJson(const QString& v) { return v; }
    static void write(CompactWriter& w, const QString& v) { w.string(v); }
    static QString read(const QJsonValue& v) { return v.toString(); }
    static bool isSet(const QString& v) { return !v.isEmpty(); }
};

template <> struct Codec<QJsonObject>
{
    static QJsonValue toJson(const QJsonObject& v) { return v; }
    static void write(CompactWriter& w, const QJsonObject& v) { w.memoizedObject(v); }
    static QJsonObject read(const QJsonValue& v) { return v.toObject(); }
    static bool isSet(const QJsonObject& v) { return !v.isEmpty(); }
};

template <> struct Codec<QJsonValue>
{
    static QJsonValue toJson(const QJsonValue& v) { return v; }
    static void write(CompactWriter& w, const QJsonValue& v)
    {
        if (v.isObject())
            w.memoizedObject(v.toObject());
        else
            w.value(v);
    }
    static QJsonValue read(const QJsonValue& v) { return v; }
    static bool isSet(const QJsonValue& v) { return !v.isUndefined(); }
};

template <> struct Codec<WireExchange>
{
    static QJsonValue toJson(const WireExchange& v) { return v.toJson(); }
    /// Written as WireExchange::toJson() would be, but a stdio line straight from its bytes: the real path
    /// writes one record per change of every call, and the line's QString and QJsonObject cost a fifth of it.
    static void write(CompactWriter& w, const WireExchange& v)
    {
        w.raw('{');
        bool first = true;
        if (!v.http.isEmpty()) {
            w.key("http", &first);
            w.raw('[');
            for (qsizetype i = 0; i < v.http.size(); ++i) {
                if (i > 0)
                    w.raw(',');
                writeHttp(w, v.http.at(i));
            }
            w.raw(']');
        }
        if (!v.stdio.isEmpty()) {
            w.key("stdio", &first);
            w.raw('[');
            for (qsizetype i = 0; i < v.stdio.size(); ++i) {
                if (i > 0)
                    w.raw(',');
                writeLine(w, v.stdio.at(i));
            }
            w.raw(']');
        }
        w.raw('}');
    }
    /// HttpExchange::toJson()'s members, in a QJsonObject's (sorted) order, without building it: with its
    /// headers that object was most of the cost of an HTTP call's record.
    static void writeHttp(CompactWriter& w, const HttpExchange& h)
    {
        w.raw('{');
        bool first = true;
        // A member that toJson() leaves out when it holds its type's default (0, false, empty).
        const auto unlessDefault = [&](QByteArrayView key, const auto& value, auto write) {
            if (value == std::decay_t<decltype(value)>())
                return;
            w.key(key, &first);
            (w.*write)(value);
        };
        const auto headers = [&](QByteArrayView key, const WireHeaders& list) {
            if (list.isEmpty())
                return;
            w.key(key, &first);
            w.raw('[');
            bool firstHeader = true;
            for (const auto& [name, value] : list) {
                if (!std::exchange(firstHeader, false))
                    w.raw(',');
                w.raw(QByteArrayView("{\"name\":"));
                w.latin1String(name);
                w.raw(QByteArrayView(",\"value\":"));
                w.utf8String(value);
                w.raw('}');
            }
            w.raw(']');
        };
        unlessDefault("answerOnStream", h.answerOnStream, &CompactWriter::utf8String);
        unlessDefault("connectedAt", h.connectedAt, &CompactWriter::integer);
        unlessDefault("connectionReused", h.connectionReused, &CompactWriter::boolean);
        unlessDefault("endedAt", h.endedAt, &CompactWriter::integer);
        unlessDefault("error", h.error, &CompactWriter::string);
        unlessDefault("firstByteAt", h.firstByteAt, &CompactWriter::integer);
        unlessDefault("httpVersion", h.httpVersion, &CompactWriter::string);
        w.key("method", &first);
        w.string(h.method);
        unlessDefault("mimeType", h.mimeType, &CompactWriter::string);
        unlessDefault("requestBody", h.requestBody, &CompactWriter::utf8String);
        unlessDefault("requestBodySize", h.requestBodySize, &CompactWriter::integer);
        headers("requestHeaders", h.requestHeaders);
        unlessDefault("responseBody", h.responseBody, &CompactWriter::utf8String);
        unlessDefault("responseBodySize", h.responseBodySize, &CompactWriter::integer);
        headers("responseHeaders", h.responseHeaders);
        w.key("startedAt", &first);
        w.integer(h.startedAt);
        w.key("status", &first);
        w.integer(h.status);
        unlessDefault("statusText", h.statusText, &CompactWriter::string);
        unlessDefault("truncated", h.truncated, &CompactWriter::boolean);
        w.key("url", &first);
        w.string(h.url);
        w.raw('}');
    }
    /// StdioLine::toJson()'s members, in a QJsonObject's (sorted) order.
    static void writeLine(CompactWriter& w, const StdioLine& l)
    {
        w.raw('{');
        bool first = true;
        w.key("at", &first);
        w.integer(l.at);
        w.key("direction", &first);
        w.string(wireDirectionName(l.outgoing ? WireDirection::Outgoing : WireDirection::Incoming));
        w.key("line", &first);
        w.utf8String(l.line);
        if (l.size != l.line.size()) {
            w.key("size", &first);
            w.integer(l.size);
        }
        if (l.truncated) {
            w.key("truncated", &first);
            w.boolean(true);
        }
        w.raw('}');
    }
    static WireExchange read(const QJsonValue& v) { return WireExchange::fromJson(v.toObject()); }
    static bool isSet(const WireExchange& v) { return !v.isEmpty(); }
};

/// An exit code is there when the key holds a number, 0 included.
template <> struct Codec<std::optional<int>>
{
    static QJsonValue toJson(const std::optional<int>& v) { return *v; }
    static void write(CompactWriter& w, const std::optional<int>& v) { w.integer(*v); }
    static std::optional<int> read(const QJsonValue& v)
    {
        return v.isDouble() ? std::optional<int>(int(v.toInteger())) : std::nullopt;
    }
    static bool isSet(const std::optional<int>& v) { return v.has_value(); }
};

/// An enum written by its stable name.
template <typename E, QString (*Name)(E), std::optional<E> (*FromName)(QStringView)> struct NamedEnumCodec
{
    static QJsonValue toJson(const std::optional<E>& v) { return Name(*v); }
    static void write(CompactWriter& w, const std::optional<E>& v) { w.string(Name(*v)); }
    static std::optional<E> read(const QJsonValue& v) { return FromName(v.toString()); }
    static bool isSet(const std::optional<E>& v) { return v.has_value(); }
};
template <>
struct Codec<std::optional<FailureKind>> : NamedEnumCodec<FailureKind, &failureKindName, &failureKindFromName>
{ };
template <>
struct Codec<std::optional<DispatchVerdict>>
    : NamedEnumCodec<DispatchVerdict, &dispatchVerdictName, &dispatchVerdictFromName>
{ };

template <> struct Codec<CallOutcome>
{
    static QJsonValue toJson(CallOutcome v) { return outcomeName(v); }
    static void write(CompactWriter& w, CallOutcome v) { w.string(OutcomeNames.nameView(v)); }
    static CallOutcome read(const QJsonValue& v)
    {
        return outcomeFromName(v.toString()).value_or(CallOutcome::Pending);
    }
    static bool isSet(CallOutcome) { return true; }
};

template <typename T> struct Codec<QList<T>>
{
    static QJsonValue toJson(const QList<T>& items)
    {
        QJsonArray array;
        for (const T& item : items)
            array.append(objectOf(item));
        return array;
    }
    static void write(CompactWriter& w, const QList<T>& items)
    {
        w.raw('[');
        bool first = true;
        for (const T& item : items) {
            if (!first)
                w.raw(',');
            first = false;
            writeObject(w, item);
        }
        w.raw(']');
    }
    static QList<T> read(const QJsonValue& v)
    {
        QList<T> items;
        for (const QJsonValue& item : v.toArray())
            items.append(readObject<T>(item.toObject()));
        return items;
    }
    static bool isSet(const QList<T>& items) { return !items.isEmpty(); }
};

enum class Presence { Always, WhenSet };

/// One member of a record struct as it appears in JSON: its key, whether it is left out when unset, and
/// the codec of its type bound to the member.
template <typename S> struct Field
{
    std::string_view key; ///< its length known when compiled, not counted on every write
    Presence presence;
    bool (*isSet)(const S&);
    QJsonValue (*toJson)(const S&);
    void (*write)(CompactWriter&, const S&);
    void (*read)(S&, const QJsonValue&);
};

template <typename M> struct MemberOf;
template <typename S, typename T> struct MemberOf<T S::*>
{
    using Struct = S;
    using Type = T;
};

template <auto Member>
constexpr Field<typename MemberOf<decltype(Member)>::Struct> field(
    std::string_view key, Presence presence = Presence::Always)
{
    using S = typename MemberOf<decltype(Member)>::Struct;
    using C = Codec<typename MemberOf<decltype(Member)>::Type>;
    return { key, presence, [](const S& s) { return C::isSet(s.*Member); },
        [](const S& s) { return C::toJson(s.*Member); }, [](CompactWriter& w, const S& s) { C::write(w, s.*Member); },
        [](S& s, const QJsonValue& v) { s.*Member = C::read(v); } };
}

template <typename S> QJsonObject objectOf(const S& s)
{
    QJsonObject o;
    for (const Field<S>& f : fieldsOf<S>()) {
        if (f.presence == Presence::Always || f.isSet(s))
            o.insert(QLatin1String(f.key.data(), qsizetype(f.key.size())), f.toJson(s));
    }
    return o;
}

template <typename S> void writeObject(CompactWriter& w, const S& s)
{
    bool first = true;
    w.raw('{');
    for (const Field<S>& f : fieldsOf<S>()) {
        if (f.presence == Presence::Always || f.isSet(s)) {
            w.key(QByteArrayView(f.key.data(), qsizetype(f.key.size())), &first);
            f.write(w, s);
        }
    }
    w.raw('}');
}

template <typename S> S readObject(const QJsonObject& o)
{
    S s;
    for (const Field<S>& f : fieldsOf<S>())
        f.read(s, o.value(QLatin1String(f.key.data(), qsizetype(f.key.size()))));
    return s;
}

// The one list of the members of each struct. Each list goes in the order of its keys, as QJsonObject
// keeps them, because the compact writer walks it in that order (tst_calllogfile compares the bytes).

constexpr Field<CallAttempt> AttemptFields[] = {
    field<&CallAttempt::connectedAt>("connectedAt", Presence::WhenSet),
    field<&CallAttempt::connectionReused>("connectionReused", Presence::WhenSet),
    field<&CallAttempt::verdict>("dispatch", Presence::WhenSet),
    field<&CallAttempt::endedAt>("endedAt"),
    field<&CallAttempt::error>("error", Presence::WhenSet),
    field<&CallAttempt::exchange>("exchange", Presence::WhenSet),
    field<&CallAttempt::exitCode>("exitCode", Presence::WhenSet),
    field<&CallAttempt::failureKind>("failureKind", Presence::WhenSet),
    field<&CallAttempt::firstByteAt>("firstByteAt"),
    field<&CallAttempt::httpStatus>("httpStatus", Presence::WhenSet),
    field<&CallAttempt::number>("number"),
    field<&CallAttempt::requestId>("requestId"),
    field<&CallAttempt::sentAt>("sentAt"),
    field<&CallAttempt::sessionId>("sessionId"),
    field<&CallAttempt::signal>("signal", Presence::WhenSet),
    field<&CallAttempt::written>("written"),
};

constexpr Field<CallDecision> DecisionFields[] = {
    field<&CallDecision::action>("action"),
    field<&CallDecision::afterAttempt>("afterAttempt"),
    field<&CallDecision::reason>("reason"),
    field<&CallDecision::rule>("rule"),
};

constexpr Field<CallReconnect> ReconnectFields[] = {
    field<&CallReconnect::durationMs>("durationMs"),
    field<&CallReconnect::error>("error", Presence::WhenSet),
    field<&CallReconnect::newSessionId>("newSessionId"),
    field<&CallReconnect::ok>("ok"),
    field<&CallReconnect::oldSessionId>("oldSessionId"),
    field<&CallReconnect::startedAt>("startedAt"),
};

constexpr Field<CallEvent> EventFields[] = {
    field<&CallEvent::at>("at"),
    field<&CallEvent::kind>("kind"),
    field<&CallEvent::text>("text"),
};

/// "policy": the connection's one object, shared by every record of its calls, so the text written for the
/// last record is written again while the object is the same. QJsonObject's == compares the shared data
/// first; and as the policy holds only booleans and integers, objects that are equal have the same text.
/// It was 4k of the 84k instructions per call on the stdio path (bench_stdiocall --only real, callgrind).
constexpr Field<CallRecord> PolicyField
    = { "policy", Presence::Always, [](const CallRecord& r) { return Codec<QJsonObject>::isSet(r.policy); },
          [](const CallRecord& r) { return Codec<QJsonObject>::toJson(r.policy); },
          [](CompactWriter& w, const CallRecord& r) {
              struct Written
              {
                  QJsonObject policy;
                  QByteArray text;
              };
              thread_local std::optional<Written> last;
              if (w.indented()) {
                  w.object(r.policy);
                  return;
              }
              if (!last || last->policy != r.policy) {
                  CompactWriter text(64);
                  text.object(r.policy);
                  last = Written { r.policy, text.take() };
              }
              w.raw(last->text);
          },
          [](CallRecord& r, const QJsonValue& v) { r.policy = Codec<QJsonObject>::read(v); } };

/// "schema" is no member: it is written as SchemaVersion and checked by CallRecord::fromJson.
constexpr Field<CallRecord> SchemaField = { "schema", Presence::Always, [](const CallRecord&) { return true; },
    [](const CallRecord&) { return QJsonValue(CallRecord::SchemaVersion); },
    [](CompactWriter& w, const CallRecord&) { w.integer(CallRecord::SchemaVersion); },
    [](CallRecord&, const QJsonValue&) {} };

constexpr Field<CallRecord> RecordFields[] = {
    field<&CallRecord::annotations>("annotations"),
    field<&CallRecord::arguments>("arguments"),
    field<&CallRecord::attempts>("attempts"),
    field<&CallRecord::callId>("callId"),
    field<&CallRecord::decisions>("decisions"),
    field<&CallRecord::endedAt>("endedAt"),
    field<&CallRecord::error>("error", Presence::WhenSet),
    field<&CallRecord::events>("events"),
    field<&CallRecord::healed>("healed"),
    field<&CallRecord::method>("method"),
    field<&CallRecord::outcome>("outcome"),
    PolicyField,
    field<&CallRecord::reconnects>("reconnects"),
    field<&CallRecord::result>("result", Presence::WhenSet),
    field<&CallRecord::rule>("rule"),
    SchemaField,
    field<&CallRecord::server>("server"),
    field<&CallRecord::startedAt>("startedAt"),
    field<&CallRecord::tool>("tool", Presence::WhenSet),
    field<&CallRecord::toolListed>("toolListed"),
    field<&CallRecord::transport>("transport"),
};

template <> std::span<const Field<CallAttempt>> fieldsOf<CallAttempt>()
{
    return AttemptFields;
}
template <> std::span<const Field<CallDecision>> fieldsOf<CallDecision>()
{
    return DecisionFields;
}
template <> std::span<const Field<CallReconnect>> fieldsOf<CallReconnect>()
{
    return ReconnectFields;
}
template <> std::span<const Field<CallEvent>> fieldsOf<CallEvent>()
{
    return EventFields;
}
template <> std::span<const Field<CallRecord>> fieldsOf<CallRecord>()
{
    return RecordFields;
}
} // namespace

QString outcomeName(CallOutcome outcome)
{
    return OutcomeNames.name(outcome);
}

std::optional<CallOutcome> outcomeFromName(QStringView name)
{
    return OutcomeNames.fromName(name);
}

void CallAttempt::takeExchangeTiming()
{
    for (const HttpExchange& http : std::as_const(exchange.http)) {
        if (http.connectedAt > 0) {
            // A reused connection was ready when the attempt was sent: connect took 0 ms.
            connectedAt = http.connectionReused ? sentAt : std::max(http.connectedAt, sentAt);
            connectionReused = http.connectionReused;
            break;
        }
    }
    for (const HttpExchange& http : std::as_const(exchange.http)) {
        if (http.firstByteAt > 0) {
            firstByteAt = http.firstByteAt;
            break;
        }
    }
    for (const StdioLine& line : std::as_const(exchange.stdio)) {
        if (!line.outgoing && firstByteAt == 0)
            firstByteAt = line.at;
    }
}

QJsonObject CallAttempt::toJson() const
{
    return objectOf(*this);
}
CallAttempt CallAttempt::fromJson(const QJsonObject& o)
{
    return readObject<CallAttempt>(o);
}
QJsonObject CallDecision::toJson() const
{
    return objectOf(*this);
}
CallDecision CallDecision::fromJson(const QJsonObject& o)
{
    return readObject<CallDecision>(o);
}
QJsonObject CallReconnect::toJson() const
{
    return objectOf(*this);
}
CallReconnect CallReconnect::fromJson(const QJsonObject& o)
{
    return readObject<CallReconnect>(o);
}
QJsonObject CallEvent::toJson() const
{
    return objectOf(*this);
}
CallEvent CallEvent::fromJson(const QJsonObject& o)
{
    return readObject<CallEvent>(o);
}
QJsonObject CallRecord::toJson() const
{
    return objectOf(*this);
}

qint64 CallRecord::answerBytes() const
{
    if (attempts.isEmpty())
        return 0;
    const WireExchange& exchange = attempts.constLast().exchange;
    qint64 bytes = 0;
    for (const StdioLine& line : exchange.stdio) {
        if (!line.outgoing)
            bytes = std::max(bytes, line.size);
    }
    for (const HttpExchange& http : exchange.http)
        bytes = std::max(bytes, http.responseBodySize);
    return bytes;
}

QByteArray CallRecord::toCompactJson() const
{
    QByteArray out;
    appendCompactJson(out);
    return out;
}

void CallRecord::appendCompactJson(QByteArray& out) const
{
    // The result is most of a large record: room for it up front, so that a 20 MB answer is not copied
    // through 16 and 32 MB buffers on the way (the log writes every record of every call).
    const qint64 answer = answerBytes();
    CompactWriter w(std::move(out), 2048 + answer + answer / 16);
    writeCompactJson(w);
    out = w.take();
}

void CallRecord::writeCompactJson(CompactWriter& writer) const
{
    writer.setStringsFromStorage(answerBytes() >= CompactWriter::LargeAnswerBytes);
    writeObject(writer, *this);
}

CallRecord CallRecord::fromJson(const QJsonObject& o, QString* error)
{
    const int schema = int(o.value(QLatin1String("schema")).toInteger());
    if (error && schema > SchemaVersion)
        *error
            = QCoreApplication::translate("CallRecord", "call record schema %1 is newer than this McpScope reads (%2)")
                  .arg(schema)
                  .arg(SchemaVersion);
    return readObject<CallRecord>(o);
}

} // namespace mcpscope
