#include "conformanceclient.h"

#include "auth/oauthclient.h"
#include "auth/tokenstore.h"
#include "conformancecontext.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "exitcodes.h"
#include "recovery/failureclassifier.h"
#include "redactingoutput.h"
#include "transport/httpcommon.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace mcpscope {

namespace {
constexpr int RequestTimeoutMs = 20000; // the suite gives a whole scenario 30 s
constexpr int CloseGraceMs = 5000;

/// The message of a call that did not succeed, as the engine wrote it into the record.
QString describe(const CallRecord& record)
{
    const QString message = record.error.value(QLatin1String("message")).toString();
    if (!message.isEmpty())
        return message;
    return record.attempts.isEmpty() ? outcomeName(record.outcome) : record.attempts.last().error;
}
/// Values for a tool's required parameters, by their JSON Schema type.
QJsonObject exampleArguments(const QJsonObject& schema)
{
    QJsonObject arguments;
    const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
    for (const QJsonValue& name : schema.value(QLatin1String("required")).toArray()) {
        const QString type = properties.value(name.toString()).toObject().value(QLatin1String("type")).toString();
        if (type == QLatin1String("number") || type == QLatin1String("integer"))
            arguments.insert(name.toString(), 1);
        else if (type == QLatin1String("boolean"))
            arguments.insert(name.toString(), true);
        else
            arguments.insert(name.toString(), QStringLiteral("conformance"));
    }
    return arguments;
}
} // namespace

ConformanceClient::Plan ConformanceClient::planFor(const QString& scenario, const QJsonObject& context)
{
    Plan plan;
    const auto call = [&plan](const QString& tool, const QJsonObject& arguments = {}) {
        plan.calls.append({ tool, arguments });
    };
    const auto acceptElicitation = [&plan](const QJsonObject& content) {
        plan.responses = { { QStringLiteral("elicitation"),
            QJsonObject {
                { QStringLiteral("action"), QStringLiteral("accept") }, { QStringLiteral("content"), content } } } };
    };
    if (scenario == QLatin1String("tools_call")) {
        call(QStringLiteral("add_numbers"), { { QStringLiteral("a"), 5 }, { QStringLiteral("b"), 3 } });
    } else if (scenario == QLatin1String("elicitation-sep1034-client-defaults")) {
        // Accept with nothing filled in: every field must come from the schema's defaults.
        call(QStringLiteral("test_client_elicitation_defaults"));
        acceptElicitation({});
    } else if (scenario == QLatin1String("sse-retry")) {
        call(QStringLiteral("test_reconnection"));
    } else if (scenario == QLatin1String("sep-2322-client-request-state")) {
        // MRTR (2026-07-28): two input_required flows, one with requestState and one without, an
        // unrelated call between them, and a result without resultType.
        call(QStringLiteral("test_mrtr_echo_state"));
        call(QStringLiteral("test_mrtr_unrelated"));
        call(QStringLiteral("test_mrtr_no_state"));
        call(QStringLiteral("test_mrtr_no_result_type"));
        acceptElicitation({ { QStringLiteral("confirmed"), true } });
    } else if (scenario == QLatin1String("http-invalid-tool-headers")) {
        // The client must leave out the tools with invalid x-mcp-header annotations and keep the rest.
        plan.callEveryTool = true;
    } else if (scenario == QLatin1String("json-schema-2020-12-preservation")) {
        // The client must keep a JSON Schema 2020-12 inputSchema as listed ($schema, $defs, …).
        plan.echoSchemaOf = QStringLiteral("json_schema_2020_12_tool");
    } else if (scenario.startsWith(QLatin1String("auth/"))) {
        call(QStringLiteral("test-tool"));
    }
    for (const QJsonValue& v : context.value(QLatin1String("toolCalls")).toArray()) {
        const QJsonObject c = v.toObject();
        call(c.value(QLatin1String("name")).toString(), c.value(QLatin1String("arguments")).toObject());
    }
    return plan;
}

QUrl ConformanceClient::clientMetadataUrl()
{
    return QUrl(QStringLiteral("https://conformance-test.local/client-metadata.json"));
}

ConformanceClient::ConformanceClient(QObject* parent)
    : QObject(parent)
    , m_out(RedactingOutput::standardOutput())
    , m_err(RedactingOutput::standardError())
{ }

ConformanceClient::~ConformanceClient() = default;

int ConformanceClient::start(const QStringList& args)
{
    QStringList positional;
    for (const QString& arg : args) {
        if (!arg.startsWith(QLatin1Char('-')))
            positional.append(arg);
    }
    const QUrl url = positional.isEmpty() ? QUrl() : QUrl(positional.last());
    if (!url.isValid() || url.host().isEmpty()
        || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))) {
        m_err << "mcpscope-cli: conformance needs the scenario server's http:// or https:// URL as its last "
                 "argument\n";
        m_err.flush();
        return ExitUsage;
    }
    m_scenario = qEnvironmentVariable("MCP_CONFORMANCE_SCENARIO");
    const QByteArray contextJson = qgetenv("MCP_CONFORMANCE_CONTEXT");
    QJsonObject context;
    if (!contextJson.isEmpty()) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(contextJson, &error);
        if (!doc.isObject()) {
            m_err << "mcpscope-cli: MCP_CONFORMANCE_CONTEXT is not a JSON object: " << error.errorString() << '\n';
            m_err.flush();
            return ExitUsage;
        }
        context = doc.object();
    }
    m_plan = planFor(m_scenario, context);
    m_responder.setScript(m_plan.responses);

    ServerConfig config;
    config.name = url.host() + (url.port() > 0 ? QLatin1Char(':') + QString::number(url.port()) : QString());
    config.url = url;
    config.transport = TransportKind::StreamableHttp;
    config.requestTimeoutMs = RequestTimeoutMs;
    // The runner names the revision a scenario runs at (0.2.0 and later): 2026-07-28 is the modern era.
    // Any other, or none (0.1.16 names none), is the legacy era: a scenario server of those revisions
    // checks the client's first request, so it gets initialize, not a probe.
    config.era = qEnvironmentVariable("MCP_CONFORMANCE_PROTOCOL_VERSION") == Modern::ProtocolVersion
        ? ProtocolEra::Modern
        : ProtocolEra::Legacy;

    m_engine = new Engine(this);
    m_engine->setResponder(&m_responder);
    // The suite's mock authorization servers redirect at once: no browser. Tokens live only as long as
    // the scenario, so they stay in memory instead of the user's keychain.
    m_engine->setAuthBrowser(ServerAuth::Browser::None);
    m_engine->setTokenStore(TokenStore::createMemory(tr("a conformance run keeps its tokens in memory")));
    m_engine->setAuthOptionsAdjuster(
        [context, scenario = m_scenario](const ServerConfig&, OAuthClient::Options& options) {
            options.clientMetadataUrl = clientMetadataUrl();
            options.requestTimeoutMs = RequestTimeoutMs;
            // The DPoP scenarios (auth/dpop, auth/dpop-nonce) say so only through their authorization
            // server's dpop_signing_alg_values_supported and a DPoP challenge; the others advertise neither.
            options.preferDpop = true;
            applyConformanceContext(scenario, context, options);
        });
    m_connection = m_engine->addServer(config);
    RedactingOutput::setRedactor(m_engine->redactor());
    connect(m_engine, &Engine::redactorChanged, this, [this] { RedactingOutput::setRedactor(m_engine->redactor()); });
    connect(m_connection, &ServerConnection::sessionCreated, this, [this](ClientSession* session) {
        connect(session, &ClientSession::protocolWarning, this,
            [this](const QString& warning) { say(tr("warning: %1").arg(warning)); });
    });
    if (ServerAuth* auth = m_connection->auth())
        connect(auth, &ServerAuth::log, this, &ConformanceClient::say);
    connect(m_engine, &Engine::serverLog, this, [this](const QString&, const QString& line) { say(line); });
    connect(m_engine, &Engine::notice, this, [this](const QString&, const QString& text) { say(text); });
    connect(m_connection, &ServerConnection::ready, this, &ConformanceClient::onReady);
    connect(m_connection, &ServerConnection::failed, this, &ConformanceClient::onConnectionFailed);
    say(tr("scenario '%1' against %2")
            .arg(m_scenario.isEmpty() ? tr("(none)") : m_scenario, HttpCommon::displayUrl(url)));
    m_connection->connectToServer();
    return ExitStillRunning;
}

void ConformanceClient::onConnectionFailed(const QString& message)
{
    if (m_exitCode >= 0)
        return;
    // Once the scenario's requests run, their own records say how they ended: a session that fails
    // while the engine heals for one of them ends that call.
    if (m_planStarted) {
        say(message);
        return;
    }
    if (m_connection->state() == ServerConnection::State::NeedsAuth) {
        finish(ExitAuthRequired, message);
        return;
    }
    const ClientSession* session = m_connection->session();
    finish(session ? exitCodeFor(FailureClassifier::kindOf(session->lastFailure())) : ExitTransportFailure, message);
}

void ConformanceClient::onReady()
{
    // ready() fires again after every reconnect the engine makes; the scenario runs once.
    if (std::exchange(m_planStarted, true))
        return;
    ClientSession* session = m_connection->session();
    const ServerDetails& details = session->details();
    say(tr("initialized %1 %2 (protocol %3)")
            .arg(details.serverInfo.value(QLatin1String("name")).toString(),
                details.serverInfo.value(QLatin1String("version")).toString(), details.protocolVersion));
    // A 401 or 403 on the way is the engine's R2/R3: it authorizes and sends the request once more.
    m_engine->list(m_connection->name(), QStringLiteral("tools/list"), QStringLiteral("tools"), callOptions(),
        [this](const CallRecord& record) {
            if (record.outcome != CallOutcome::Success) {
                finish(exitCodeFor(record.outcome), describe(record));
                return;
            }
            const QList<ToolInfo> tools
                = ToolInfo::listFromJson(record.result.toObject().value(QLatin1String("tools")).toArray());
            say(tr("%1 tool(s) listed").arg(tools.size()));
            runCalls(tools);
        });
}

CallOptions ConformanceClient::callOptions() const
{
    CallOptions options;
    options.timeoutMs = RequestTimeoutMs;
    return options;
}

void ConformanceClient::runCalls(const QList<ToolInfo>& listed)
{
    m_calls = m_plan.calls;
    if (m_plan.callEveryTool) {
        // The session's own list: the tools it kept after screening their annotations.
        const QList<ToolInfo>& kept = m_connection->session()->tools();
        for (const ToolInfo& tool : kept)
            m_calls.append({ tool.name, exampleArguments(tool.inputSchema) });
        for (const ToolInfo& tool : m_connection->session()->excludedTools())
            say(tr("left out tool %1: %2").arg(tool.name, tool.excludedReason));
    }
    for (const ToolInfo& tool : listed) {
        if (!m_plan.echoSchemaOf.isEmpty() && tool.name == m_plan.echoSchemaOf)
            m_calls.append({ QStringLiteral("json_schema_echo"), { { QStringLiteral("schema"), tool.inputSchema } } });
    }
    for (const Call& call : std::as_const(m_calls)) {
        const bool known = std::any_of(
            listed.begin(), listed.end(), [&call](const ToolInfo& tool) { return tool.name == call.tool; });
        if (!known) {
            finish(ExitTransportFailure,
                tr("server '%1' lists no tool '%2', which scenario '%3' calls")
                    .arg(m_connection->name(), call.tool, m_scenario));
            return;
        }
    }
    callNext();
}

void ConformanceClient::callNext()
{
    if (m_calls.isEmpty()) {
        finish(m_callsExit);
        return;
    }
    const Call call = m_calls.takeFirst();
    say(tr("calling %1").arg(call.tool));
    m_engine->call(m_connection->name(), QStringLiteral("tools/call"),
        { { QStringLiteral("name"), call.tool }, { QStringLiteral("arguments"), call.arguments } }, callOptions(),
        [this, tool = call.tool](const CallRecord& record) {
            if (record.outcome != CallOutcome::Success && record.outcome != CallOutcome::ToolError) {
                finish(exitCodeFor(record.outcome), describe(record));
                return;
            }
            const QJsonObject result = record.result.toObject();
            printToolResult(result);
            if (result.value(QLatin1String("isError")).toBool()) {
                say(tr("tool %1 returned isError").arg(tool));
                if (m_callsExit == 0)
                    m_callsExit = ExitToolError;
            }
            callNext();
        });
}

void ConformanceClient::printToolResult(const QJsonObject& result)
{
    for (const QJsonValue& block : result.value(QLatin1String("content")).toArray()) {
        const QJsonObject b = block.toObject();
        if (b.value(QLatin1String("type")) == QLatin1String("text"))
            m_out << b.value(QLatin1String("text")).toString() << '\n';
        else
            m_out << QString::fromUtf8(QJsonDocument(b).toJson(QJsonDocument::Compact)) << '\n';
    }
    m_out.flush();
}

void ConformanceClient::say(const QString& line)
{
    m_err << "mcpscope-cli conformance: " << line << '\n';
    m_err.flush();
}

void ConformanceClient::finish(int exitCode, const QString& message)
{
    if (m_exitCode >= 0)
        return;
    m_exitCode = exitCode;
    if (!message.isEmpty())
        say(message);
    ClientSession* session = m_connection ? m_connection->session() : nullptr;
    const bool open = session
        && (session->state() == ClientSession::State::Ready || session->state() == ClientSession::State::Initializing
            || session->state() == ClientSession::State::Connecting);
    if (!open) {
        QTimer::singleShot(0, this, &ConformanceClient::emitFinished);
        return;
    }
    // End the session properly (DELETE), but never hang on a server that does not answer.
    connect(session, &ClientSession::closed, this, &ConformanceClient::emitFinished);
    QTimer::singleShot(CloseGraceMs, this, &ConformanceClient::emitFinished);
    session->close();
}

void ConformanceClient::emitFinished()
{
    if (m_finishedEmitted)
        return;
    m_finishedEmitted = true;
    Q_EMIT finished(m_exitCode);
}

} // namespace mcpscope
