#include "clientsession.h"

#include "mcpheaders.h"

#include <QJsonArray>

namespace mcpscope {

// The 2026-07-28 revision (MCP-NOTES.md, "The 2026-07-28 revision"): the era probe, the _meta every
// request carries, the per-request HTTP headers, resultType, and the tools a client must leave out.

namespace {
const QStringList& legacyVersions()
{
    return ClientSession::supportedProtocolVersions();
}

bool speaksLegacy(const QStringList& versions)
{
    return std::any_of(
        versions.cbegin(), versions.cend(), [](const QString& v) { return legacyVersions().contains(v); });
}

QStringList stringList(const QJsonValue& value)
{
    QStringList out;
    for (const QJsonValue& v : value.toArray()) {
        if (v.isString())
            out.append(v.toString());
    }
    return out;
}
} // namespace

void ClientSession::onOpened()
{
    if (m_state != State::Connecting)
        return;
    const bool probe = m_options.era == ProtocolEra::Modern
        || (m_options.era == ProtocolEra::Auto && m_options.knownEra != ProtocolEra::Legacy);
    if (probe)
        sendDiscover();
    else
        sendInitialize();
}

void ClientSession::sendDiscover()
{
    setState(State::Initializing);
    m_probing = true;
    m_transport->setModern(
        true, Modern::ProtocolVersion, [this](const JsonRpcMessage& message) { return modernHeaders(message); });
    const QJsonValue id = m_tracker.nextId();
    Pending pending;
    pending.method = Modern::Discover;
    pending.done = [this](const Reply& reply) { onDiscoverReply(reply); };
    m_pending.insert(idKey(id), std::move(pending));
    RequestOptions options;
    // Auto waits only a moment: a legacy server may ignore what it does not know (MCP-NOTES.md).
    options.timeoutMs = m_options.era == ProtocolEra::Auto
        ? std::min(m_options.probeTimeoutMs, m_options.requestTimeoutMs)
        : m_options.requestTimeoutMs;
    dispatch(JsonRpcMessage::request(id, Modern::Discover, {}), options);
}

void ClientSession::onDiscoverReply(const Reply& reply)
{
    m_probing = false;
    if (m_state != State::Initializing)
        return;
    const bool forced = m_options.era == ProtocolEra::Modern;
    if (reply.ok()) {
        const QJsonObject result = reply.resultObject();
        const QStringList versions = stringList(result.value(QLatin1String("supportedVersions")));
        if (versions.contains(Modern::ProtocolVersion)) {
            enterModern(result, tr("server/discover answered, offering %1").arg(versions.join(QStringLiteral(", "))));
            return;
        }
        // In auto, any other answer is a legacy server's: one that answers every method with a result
        // (tests/peers/echo-secrets.mjs does) gives no supportedVersions at all. initialize then negotiates.
        if (!forced) {
            fallBackToLegacy(versions.isEmpty()
                    ? tr("server/discover answered without supportedVersions")
                    : tr("server/discover offers only %1").arg(versions.join(QStringLiteral(", "))));
            return;
        }
        TransportFailure unusable;
        unusable.event = TransportEvent::Malformed;
        unusable.requestWritten = true;
        unusable.message
            = tr("Server '%1' answered server/discover with protocol versions %2; McpScope speaks %3 "
                 "and %4.")
                  .arg(m_options.serverName, versions.isEmpty() ? tr("(none)") : versions.join(QStringLiteral(", ")),
                      Modern::ProtocolVersion, legacyVersions().join(QStringLiteral(", ")));
        fail(unusable.message, unusable);
        m_transport->close();
        return;
    }
    if (reply.status == Reply::Status::RpcError) {
        const QStringList supported = stringList(reply.error.data.toObject().value(QLatin1String("supported")));
        if (reply.error.code == Modern::UnsupportedProtocolVersion && supported.contains(Modern::ProtocolVersion)
            && !std::exchange(m_discoverRetried, true)) {
            // The server refused the version it also names as supported (a version negotiation that
            // failed, or a proxy in between): retry once with that version, as SEP-2575 asks.
            Q_EMIT notice(tr("Server '%1' refused server/discover with -32022 but supports %2: retrying once.")
                              .arg(m_options.serverName, Modern::ProtocolVersion));
            sendDiscover();
            return;
        }
        if (reply.error.code == Modern::UnsupportedProtocolVersion && !speaksLegacy(supported)) {
            TransportFailure unusable = reply.failure;
            unusable.message
                = tr("Server '%1' does not speak MCP %2 (it supports %3).")
                      .arg(m_options.serverName, Modern::ProtocolVersion,
                          supported.isEmpty() ? tr("no version it named") : supported.join(QStringLiteral(", ")));
            fail(unusable.message, unusable);
            m_transport->close();
            return;
        }
        if (!forced || reply.error.code == Modern::UnsupportedProtocolVersion) {
            fallBackToLegacy(tr("server/discover got error %1: %2").arg(reply.error.code).arg(reply.error.message));
            return;
        }
    } else if (reply.status == Reply::Status::TimedOut && !forced) {
        fallBackToLegacy(tr("no answer to server/discover within %1 ms").arg(m_options.probeTimeoutMs));
        return;
    } else if (reply.status == Reply::Status::Failed && !forced && reply.failure.httpStatus >= 400
        && reply.failure.httpStatus < 500 && reply.failure.httpStatus != 401 && reply.failure.httpStatus != 403) {
        // A 4xx without a modern JSON-RPC error body (those arrive as RpcError): a legacy server.
        fallBackToLegacy(tr("server/discover got HTTP %1").arg(reply.failure.httpStatus));
        return;
    }
    if (reply.status == Reply::Status::Cancelled)
        return;
    // The channel itself failed (or needs authorization): the session fails as an initialize would, so
    // authorization, the transport fallback and reconnects see the same evidence.
    m_initializeFailure = reply.failure;
    fail(tr("Server '%1' failed to initialize: %2").arg(m_options.serverName, reply.describe()), reply.failure);
}

bool ClientSession::refusedAsModern(const Reply& reply)
{
    if (m_options.era == ProtocolEra::Legacy || m_reprobed || reply.status != Reply::Status::RpcError
        || reply.error.code != Modern::UnsupportedProtocolVersion
        || !stringList(reply.error.data.toObject().value(QLatin1String("supported"))).contains(Modern::ProtocolVersion))
        return false;
    m_reprobed = true;
    Q_EMIT notice(tr("Server '%1' refused initialize and offers MCP %2: probing again with server/discover.")
                      .arg(m_options.serverName, Modern::ProtocolVersion));
    const qint64 probe = m_options.probeTimeoutMs;
    m_options.probeTimeoutMs = m_options.requestTimeoutMs;
    sendDiscover();
    m_options.probeTimeoutMs = probe;
    return true;
}

void ClientSession::fallBackToLegacy(const QString& reason)
{
    m_transport->setModern(false, {}, {});
    m_details.era = ProtocolEra::Legacy;
    m_details.eraReason = reason;
    Q_EMIT notice(tr("Server '%1' is not a 2026-07-28 server (%2): speaking 2025-11-25 with initialize.")
                      .arg(m_options.serverName, reason));
    sendInitialize();
}

void ClientSession::enterModern(const QJsonObject& result, const QString& reason)
{
    m_modern = true;
    m_details.era = ProtocolEra::Modern;
    m_details.eraReason = reason;
    m_details.protocolVersion = Modern::ProtocolVersion;
    m_details.discover = result;
    m_details.supportedVersions = stringList(result.value(QLatin1String("supportedVersions")));
    m_details.capabilities = result.value(QLatin1String("capabilities")).toObject();
    m_details.instructions = result.value(QLatin1String("instructions")).toString();
    const QJsonObject meta = result.value(QLatin1String("_meta")).toObject();
    m_details.serverInfo = meta.value(Modern::ServerInfoKey).toObject();
    if (m_details.serverInfo.isEmpty())
        m_details.serverInfo = result.value(QLatin1String("serverInfo")).toObject();
    const QJsonValue ttl = result.value(QLatin1String("ttlMs"));
    m_details.ttlMs = ttl.isDouble() ? qint64(ttl.toDouble()) : -1;
    m_details.cacheScope = result.value(QLatin1String("cacheScope")).toString();
    m_details.sessionId.clear();
    setState(State::Ready);
    const QList<Queued> queued = std::exchange(m_queue, {});
    for (const Queued& q : queued) {
        if (!handledLocally(q.message))
            dispatch(q.message, q.options);
    }
    Q_EMIT ready();
    startListening();
}

bool ClientSession::refusedAsLegacyOnly(const JsonRpcMessage& message)
{
    if (message.method != QLatin1String("ping") && message.method != QLatin1String("logging/setLevel"))
        return false;
    Reply refused;
    refused.status = Reply::Status::Failed;
    refused.id = message.id;
    refused.method = message.method;
    refused.failure.event = TransportEvent::NotSent;
    refused.failure.message = tr("%1 is not part of MCP 2026-07-28, which server '%2' speaks (sessionless: no "
                                 "ping and no logging/setLevel; the log level goes with every request).")
                                  .arg(message.method, m_options.serverName);
    finish(idKey(message.id), refused);
    return true;
}

QJsonObject ClientSession::modernCapabilities() const
{
    QJsonObject capabilities = m_responder ? m_responder->capabilities() : QJsonObject();
    // Tasks moved out of the core capabilities into the extension (SEP-2663): McpScope follows task handles a
    // server hands back (TaskTracker), so it declares the extension on every request.
    capabilities.remove(QLatin1String("tasks"));
    QJsonObject extensions = capabilities.value(QLatin1String("extensions")).toObject();
    extensions.insert(Modern::TasksExtension, QJsonObject());
    capabilities.insert(QStringLiteral("extensions"), extensions);
    return capabilities;
}

QJsonObject ClientSession::withModernMeta(const QJsonObject& params) const
{
    QJsonObject out = params;
    QJsonObject meta = params.value(QLatin1String("_meta")).toObject();
    meta.insert(Modern::ProtocolVersionKey, QString(Modern::ProtocolVersion));
    meta.insert(Modern::ClientCapabilitiesKey, modernCapabilities());
    meta.insert(Modern::ClientInfoKey,
        QJsonObject { { QStringLiteral("name"), m_options.clientName },
            { QStringLiteral("title"), m_options.clientTitle },
            { QStringLiteral("version"), QStringLiteral(MCPSCOPE_VERSION) } });
    if (!m_options.logLevel.isEmpty())
        meta.insert(Modern::LogLevelKey, m_options.logLevel);
    out.insert(QStringLiteral("_meta"), meta);
    return out;
}

QList<QPair<QByteArray, QByteArray>> ClientSession::modernHeaders(const JsonRpcMessage& message) const
{
    HeaderList headers;
    if (!message.isRequest() && !message.isNotification())
        return headers;
    headers.append({ QByteArrayLiteral("Mcp-Method"), message.method.toUtf8() });
    const QString source = McpHeaders::nameSource(message.method);
    if (!source.isEmpty()) {
        const QJsonValue name = message.params.value(source);
        if (name.isString())
            headers.append({ QByteArrayLiteral("Mcp-Name"), McpHeaders::encodeValue(name.toString()) });
    }
    if (message.method == QLatin1String("tools/call")) {
        if (const ToolInfo* info = tool(message.params.value(QLatin1String("name")).toString())) {
            const McpHeaders::Scan scan = McpHeaders::scan(info->inputSchema);
            headers.append(
                McpHeaders::paramHeaders(scan.params, message.params.value(QLatin1String("arguments")).toObject()));
        }
    }
    return headers;
}

QString ClientSession::resultTypeProblem(const QString& method, const QJsonValue& result) const
{
    if (!m_modern || !result.isObject())
        return {};
    const QJsonValue type = result.toObject().value(QLatin1String("resultType"));
    if (type.isUndefined() || type == QJsonValue(QString(Modern::Complete)))
        return {};
    const QString name = type.toString();
    if (name == Modern::InputRequired && Modern::isNamedMethod(method))
        return {};
    // Only tools/call may be answered with a task handle (the tasks extension's "supported methods").
    if (name == Modern::Task && method == QLatin1String("tools/call"))
        return {};
    return tr("Server '%1' answered %2 with resultType %3, which is not valid there (expected \"complete\"%4).")
        .arg(m_options.serverName, method,
            type.isString() ? QLatin1Char('"') + name + QLatin1Char('"') : tr("of the wrong type"),
            Modern::isNamedMethod(method) ? tr(" or \"input_required\"") : QString());
}

void ClientSession::screenModernTools()
{
    m_excludedTools.clear();
    if (!m_modern)
        return;
    QList<ToolInfo> usable;
    for (ToolInfo& info : m_tools) {
        const McpHeaders::Scan scan = McpHeaders::scan(info.inputSchema);
        if (scan.valid()) {
            usable.append(std::move(info));
            continue;
        }
        info.excludedReason = scan.invalidReason;
        m_excludedTools.append(std::move(info));
    }
    m_tools = std::move(usable);
}

} // namespace mcpscope
