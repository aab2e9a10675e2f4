#include "conformanceclient.h"

#include "auth/oauthclient.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "exitcodes.h"
#include "recovery/failureclassifier.h"
#include "redactingoutput.h"
#include "transport/httpcommon.h"
#include "transport/streamablehttptransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace mcpscope {

namespace {
// MCP-NOTES "Authorization" §8: re-authorize at most three times for one operation.
constexpr int MaxAuthorizations = 3;
constexpr int RequestTimeoutMs = 20000; // the suite gives a whole scenario 30 s
constexpr int CloseGraceMs = 5000;

/// The challenge a call that ended for want of authorization was answered with: its last attempt's
/// HTTP status and response headers (WWW-Authenticate carries the scopes and the metadata URL).
TransportFailure challengeOf(const CallRecord& record)
{
    TransportFailure failure;
    failure.event = TransportEvent::HttpStatus;
    if (record.attempts.isEmpty())
        return failure;
    const CallAttempt& attempt = record.attempts.last();
    failure.requestWritten = attempt.written;
    failure.httpStatus = attempt.httpStatus;
    for (const HttpExchange& http : attempt.exchange.http) {
        if (http.status == attempt.httpStatus)
            failure.headers = http.responseHeaders;
    }
    return failure;
}

bool needsAuthorization(const CallRecord& record)
{
    if (record.outcome != CallOutcome::NeedsAuth || record.attempts.isEmpty())
        return false;
    const std::optional<FailureKind> kind = record.attempts.last().failureKind;
    return kind == FailureKind::AuthRequired || kind == FailureKind::InsufficientScope;
}

/// The message of a call that did not succeed, as the engine wrote it into the record.
QString describe(const CallRecord& record)
{
    const QString message = record.error.value(QLatin1String("message")).toString();
    if (!message.isEmpty())
        return message;
    return record.attempts.isEmpty() ? outcomeName(record.outcome) : record.attempts.last().error;
}
} // namespace

ConformanceClient::Plan ConformanceClient::planFor(const QString& scenario)
{
    Plan plan;
    if (scenario == QLatin1String("tools_call")) {
        plan.tool = QStringLiteral("add_numbers");
        plan.arguments = { { QStringLiteral("a"), 5 }, { QStringLiteral("b"), 3 } };
    } else if (scenario == QLatin1String("elicitation-sep1034-client-defaults")) {
        // Accept with nothing filled in: every field must come from the schema's defaults.
        plan.tool = QStringLiteral("test_client_elicitation_defaults");
        plan.responses = { { QStringLiteral("elicitation"),
            QJsonObject { { QStringLiteral("action"), QStringLiteral("accept") },
                { QStringLiteral("content"), QJsonObject() } } } };
    } else if (scenario == QLatin1String("sse-retry")) {
        plan.tool = QStringLiteral("test_reconnection");
    } else if (scenario.startsWith(QLatin1String("auth/"))) {
        plan.tool = QStringLiteral("test-tool");
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
    m_plan = planFor(m_scenario);
    m_responder.setScript(m_plan.responses);

    ServerConfig config;
    config.name = url.host() + (url.port() > 0 ? QLatin1Char(':') + QString::number(url.port()) : QString());
    config.url = url;
    config.transport = TransportKind::StreamableHttp;
    config.requestTimeoutMs = RequestTimeoutMs;
    // One operation is up to MaxAuthorizations + 1 calls that each end needing authorization: those
    // are the authorization loop's own steps, not a server failing, so they must not open the breaker.
    config.breakerThreshold = MaxAuthorizations + 1;

    OAuthClient::Options oauth;
    oauth.serverName = config.name;
    oauth.serverUrl = url;
    oauth.clientId = context.value(QLatin1String("client_id")).toString();
    oauth.clientSecret = context.value(QLatin1String("client_secret")).toString();
    oauth.clientMetadataUrl = clientMetadataUrl();
    oauth.requestTimeoutMs = RequestTimeoutMs;
    m_oauth = new OAuthClient(oauth, this);
    connect(m_oauth, &OAuthClient::log, this, &ConformanceClient::say);
    connect(m_oauth, &OAuthClient::authorized, this, [this] {
        // The token is a secret from now on, in the records, the wire log and everything printed.
        m_engine->addCredential(QString::fromLatin1(m_oauth->authorizationHeader()));
        if (m_connection && m_connection->session())
            applyAuthorization(m_connection->session());
        if (auto next = std::exchange(m_afterAuthorization, {}))
            next();
    });
    connect(m_oauth, &OAuthClient::failed, this, [this](const QString& message) {
        m_afterAuthorization = {};
        finish(ExitAuthRequired, message);
    });

    m_engine = new Engine(this);
    m_engine->setResponder(&m_responder);
    m_connection = m_engine->addServer(config);
    RedactingOutput::setRedactor(m_engine->redactor());
    connect(m_engine, &Engine::redactorChanged, this, [this] { RedactingOutput::setRedactor(m_engine->redactor()); });
    connect(m_connection, &ServerConnection::sessionCreated, this, [this](ClientSession* session) {
        applyAuthorization(session);
        connect(session, &ClientSession::protocolWarning, this,
            [this](const QString& warning) { say(tr("warning: %1").arg(warning)); });
    });
    connect(m_engine, &Engine::serverLog, this, [this](const QString&, const QString& line) { say(line); });
    connect(m_connection, &ServerConnection::ready, this, &ConformanceClient::onReady);
    connect(m_connection, &ServerConnection::failed, this, &ConformanceClient::onConnectionFailed);
    say(tr("scenario '%1' against %2")
            .arg(m_scenario.isEmpty() ? tr("(none)") : m_scenario, HttpCommon::displayUrl(url)));
    m_connection->connectToServer();
    return ExitStillRunning;
}

void ConformanceClient::applyAuthorization(ClientSession* session) const
{
    // The token is set on this server's transport only, never sent anywhere else.
    auto* http = qobject_cast<StreamableHttpTransport*>(session->transport());
    if (http && m_oauth->hasToken())
        http->setAuthorization(m_oauth->authorizationHeader());
}

void ConformanceClient::onConnectionFailed(const QString& message)
{
    if (m_exitCode >= 0)
        return;
    // Once the scenario's requests run, their own records say how they ended: a session that fails
    // while the engine heals for one of them ends that call, which withAuthorization() judges.
    if (m_planStarted) {
        say(message);
        return;
    }
    const ClientSession* session = m_connection->session();
    const bool initializeFailed = session && session->details().protocolVersion.isEmpty();
    if (initializeFailed) {
        const TransportFailure& failure = session->initializeFailure();
        const FailureKind kind = FailureClassifier::kindOf(failure);
        if (kind == FailureKind::AuthRequired || kind == FailureKind::InsufficientScope) {
            if (m_initializeAuthorizations >= MaxAuthorizations) {
                finish(ExitAuthRequired,
                    tr("%1 (gave up after %2 authorizations)").arg(message).arg(m_initializeAuthorizations));
                return;
            }
            ++m_initializeAuthorizations;
            authorizeThen(failure, [this] { m_connection->connectToServer(); });
            return;
        }
    }
    finish(session ? exitCodeFor(FailureClassifier::kindOf(session->lastFailure())) : ExitTransportFailure, message);
}

void ConformanceClient::authorizeThen(const TransportFailure& failure, std::function<void()> next)
{
    m_afterAuthorization = std::move(next);
    m_oauth->authorize(failure);
}

void ConformanceClient::withAuthorization(const Action& action, const CallDone& done, int attempt)
{
    // The engine's R2/R3 can only reconnect: it has no credentials to fetch. So a call that ended
    // needing authorization is authorized here and made again, as a new call with its own record.
    action([this, action, done, attempt](const CallRecord& record) {
        if (!needsAuthorization(record) || attempt >= MaxAuthorizations || m_exitCode >= 0) {
            done(record);
            return;
        }
        authorizeThen(
            challengeOf(record), [this, action, done, attempt] { withAuthorization(action, done, attempt + 1); });
    });
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
    withAuthorization(
        [this](CallDone done) {
            m_engine->list(m_connection->name(), QStringLiteral("tools/list"), QStringLiteral("tools"), callOptions(),
                std::move(done));
        },
        [this](const CallRecord& record) {
            if (record.outcome != CallOutcome::Success) {
                finish(exitCodeFor(record.outcome), describe(record));
                return;
            }
            const QList<ToolInfo> tools
                = ToolInfo::listFromJson(record.result.toObject().value(QLatin1String("tools")).toArray());
            say(tr("%1 tool(s) listed").arg(tools.size()));
            if (m_plan.tool.isEmpty()) {
                finish(ExitSuccess);
                return;
            }
            callTool(tools);
        });
}

CallOptions ConformanceClient::callOptions() const
{
    CallOptions options;
    options.timeoutMs = RequestTimeoutMs;
    return options;
}

void ConformanceClient::callTool(const QList<ToolInfo>& tools)
{
    const bool listed
        = std::any_of(tools.begin(), tools.end(), [this](const ToolInfo& tool) { return tool.name == m_plan.tool; });
    if (!listed) {
        finish(ExitTransportFailure,
            tr("server '%1' lists no tool '%2', which scenario '%3' calls")
                .arg(m_connection->name(), m_plan.tool, m_scenario));
        return;
    }
    say(tr("calling %1").arg(m_plan.tool));
    withAuthorization(
        [this](CallDone done) {
            m_engine->call(m_connection->name(), QStringLiteral("tools/call"),
                { { QStringLiteral("name"), m_plan.tool }, { QStringLiteral("arguments"), m_plan.arguments } },
                callOptions(), std::move(done));
        },
        [this](const CallRecord& record) {
            if (record.outcome != CallOutcome::Success && record.outcome != CallOutcome::ToolError) {
                finish(exitCodeFor(record.outcome), describe(record));
                return;
            }
            const QJsonObject result = record.result.toObject();
            printToolResult(result);
            const bool isError = result.value(QLatin1String("isError")).toBool();
            finish(isError ? ExitToolError : ExitSuccess,
                isError ? tr("tool %1 returned isError").arg(m_plan.tool) : QString());
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
