#include "faultproxy.h"
#include "faultproxyconnection.h"

#include "jsonrpc/enumnames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>

namespace mcpscope {

namespace {
constexpr EnumName<FaultProxy::FaultKind> KindEntries[] = {
    { FaultProxy::FaultKind::ExpireBefore, u"expire-before" },
    { FaultProxy::FaultKind::ExpireAfter, u"expire-after" },
    { FaultProxy::FaultKind::CutAfter, u"cut-after" },
    { FaultProxy::FaultKind::Auth401, u"auth-401" },
    { FaultProxy::FaultKind::Delay, u"delay" },
    { FaultProxy::FaultKind::DropStream, u"drop-stream" },
    { FaultProxy::FaultKind::CloseBeforeHead, u"close-before-head" },
    { FaultProxy::FaultKind::RstBeforeHead, u"rst-before-head" },
    { FaultProxy::FaultKind::UnsupportedVersion, u"unsupported-version" },
    { FaultProxy::FaultKind::HeaderMismatch, u"header-mismatch" },
    { FaultProxy::FaultKind::DropResponseStream, u"drop-response-stream" },
    { FaultProxy::FaultKind::EraFlip, u"era-flip" },
};
constexpr EnumNames<FaultProxy::FaultKind> KindNames(KindEntries);
} // namespace

quint64 FaultProxy::arm(const Fault& fault)
{
    Fault armed = fault;
    armed.count = std::max(1, fault.count);
    armed.delayMs = std::max(0, fault.delayMs);
    armed.id = m_nextId++;
    m_faults.append(armed);
    Q_EMIT armedChanged();
    return armed.id;
}

void FaultProxy::disarm(quint64 id)
{
    const auto removed = m_faults.removeIf([id](const Fault& fault) { return fault.id == id; });
    if (removed > 0)
        Q_EMIT armedChanged();
}

void FaultProxy::clear()
{
    if (m_faults.isEmpty())
        return;
    m_faults.clear();
    Q_EMIT armedChanged();
}

std::optional<FaultProxy::Fault> FaultProxy::takeFault(const QString& method, const QString& tool)
{
    for (qsizetype i = 0; i < m_faults.size(); ++i) {
        Fault& fault = m_faults[i];
        if (!fault.method.isEmpty() && fault.method != method)
            continue;
        if (!fault.tool.isEmpty() && (method != QLatin1String("tools/call") || fault.tool != tool))
            continue;
        Fault taken = fault;
        taken.count = --fault.count;
        if (fault.count <= 0)
            m_faults.removeAt(i);
        Q_EMIT armedChanged();
        return taken;
    }
    return std::nullopt;
}

std::optional<FaultProxy::FaultKind> FaultProxy::kindFromName(QStringView name)
{
    return KindNames.fromName(name);
}

QString FaultProxy::kindName(FaultKind kind)
{
    return KindNames.name(kind);
}

QStringList FaultProxy::kindNames()
{
    QStringList names;
    for (const EnumName<FaultKind>& entry : KindEntries)
        names.append(entry.name.toString());
    return names;
}

QStringList FaultProxy::legacyKindNames()
{
    QStringList names = kindNames();
    names.removeAll(kindName(FaultKind::UnsupportedVersion));
    names.removeAll(kindName(FaultKind::HeaderMismatch));
    names.removeAll(kindName(FaultKind::DropResponseStream));
    return names;
}

QStringList FaultProxy::modernKindNames()
{
    // expire-before and expire-after answer "session not found", which a sessionless server never says.
    QStringList names = kindNames();
    names.removeAll(kindName(FaultKind::ExpireBefore));
    names.removeAll(kindName(FaultKind::ExpireAfter));
    // Its 2026-07-28 name: the revision has no stream resumption, so the drop always loses the answer.
    names.removeAll(kindName(FaultKind::DropStream));
    return names;
}

QJsonObject FaultProxy::faultToJson(const Fault& fault)
{
    QJsonObject object { { QStringLiteral("id"), qint64(fault.id) }, { QStringLiteral("kind"), kindName(fault.kind) },
        { QStringLiteral("count"), fault.count } };
    if (!fault.method.isEmpty())
        object.insert(QStringLiteral("method"), fault.method);
    if (!fault.tool.isEmpty())
        object.insert(QStringLiteral("tool"), fault.tool);
    if (fault.kind == FaultKind::Delay)
        object.insert(QStringLiteral("delayMs"), fault.delayMs);
    return object;
}

std::optional<FaultProxy::Fault> FaultProxy::faultFromJson(const QJsonObject& object, QString* error)
{
    const auto failWith = [error](const QString& message) -> std::optional<Fault> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    Fault fault;
    const auto kind = kindFromName(object.value(QLatin1String("kind")).toString());
    if (!kind) {
        QStringList names;
        for (const auto& entry : KindEntries)
            names.append(entry.name.toString());
        return failWith(tr("\"kind\" must be one of %1").arg(names.join(QStringLiteral(", "))));
    }
    fault.kind = *kind;
    const QJsonValue count = object.value(QLatin1String("count"));
    if (!count.isUndefined() && !count.isNull()) {
        if (!count.isDouble() || count.toDouble() != double(count.toInt()) || count.toInt() < 1)
            return failWith(tr("\"count\" must be a positive integer"));
        fault.count = count.toInt();
    }
    for (const auto& [key, target] :
        { std::pair { QLatin1String("method"), &fault.method }, std::pair { QLatin1String("tool"), &fault.tool } }) {
        const QJsonValue value = object.value(key);
        if (value.isUndefined() || value.isNull())
            continue;
        if (!value.isString())
            return failWith(tr("\"%1\" must be a string").arg(key));
        *target = value.toString();
    }
    const QJsonValue delay = object.value(QLatin1String("delayMs"));
    if (!delay.isUndefined() && !delay.isNull()) {
        if (!delay.isDouble() || delay.toDouble() < 0 || delay.toDouble() > 3600.0 * 1000)
            return failWith(tr("\"delayMs\" must be a number of milliseconds between 0 and 3600000"));
        fault.delayMs = int(delay.toDouble());
    }
    if (fault.kind == FaultKind::Delay && fault.delayMs <= 0)
        return failWith(tr("a delay fault needs \"delayMs\" above 0"));
    return fault;
}

// The JSON-RPC errors the proxy answers with in place of the server (expire-before, the 2026-07-28 refusals).
QByteArray FaultProxyWire::sessionNotFound(const QJsonValue& id)
{
    return rpcError(id, -32001, QStringLiteral("Session not found"));
}

std::optional<FaultProxyWire::Refusal> FaultProxyWire::refusal(
    FaultProxy::FaultKind kind, const QJsonValue& id, quint16 proxyPort, bool legacyRequest)
{
    const HttpWire::HeaderList json { { "Content-Type", "application/json" } };
    const auto unsupportedVersion = [&] {
        return Refusal { 400, json,
            rpcError(id, -32022, QStringLiteral("Unsupported protocol version (injected by the McpScope fault proxy)"),
                QJsonObject { { QStringLiteral("supported"), QJsonArray { QStringLiteral("2026-07-28") } } }) };
    };
    switch (kind) {
    case FaultProxy::FaultKind::ExpireBefore:
        return Refusal { 404, json, sessionNotFound(id) };
    case FaultProxy::FaultKind::Auth401: {
        const QByteArray challenge = "Bearer resource_metadata=\"http://127.0.0.1:" + QByteArray::number(proxyPort)
            + "/.well-known/oauth-protected-resource\"";
        const QJsonObject error { { QStringLiteral("error"), QStringLiteral("invalid_token") },
            { QStringLiteral("error_description"),
                QStringLiteral("Authorization required (injected by the McpScope fault proxy)") } };
        return Refusal { 401, { { "Content-Type", "application/json" }, { "WWW-Authenticate", challenge } },
            QJsonDocument(error).toJson(QJsonDocument::Compact) };
    }
    case FaultProxy::FaultKind::UnsupportedVersion:
        return unsupportedVersion();
    case FaultProxy::FaultKind::HeaderMismatch:
        return Refusal { 400, json,
            rpcError(id, -32020,
                QStringLiteral(
                    "Header mismatch: Mcp-Name does not match the body (injected by the McpScope fault proxy)")) };
    case FaultProxy::FaultKind::EraFlip:
        if (legacyRequest)
            return unsupportedVersion();
        // The session gate answers before it reads the request's id.
        return Refusal { 400, json,
            rpcError(QJsonValue::Null, -32000, QStringLiteral("Bad Request: Server not initialized")) };
    default:
        return std::nullopt;
    }
}

QByteArray FaultProxyWire::rpcError(const QJsonValue& id, int code, const QString& message, const QJsonValue& data)
{
    QJsonObject body { { QStringLiteral("code"), code }, { QStringLiteral("message"), message } };
    if (!data.isUndefined())
        body.insert(QStringLiteral("data"), data);
    const QJsonObject error { { QStringLiteral("jsonrpc"), QStringLiteral("2.0") }, { QStringLiteral("error"), body },
        { QStringLiteral("id"), id.isUndefined() ? QJsonValue(QJsonValue::Null) : id } };
    return QJsonDocument(error).toJson(QJsonDocument::Compact);
}

} // namespace mcpscope
