#include "cliapp.h"

#include "engine/tasktracker.h"

#include "calllog/callsummary.h"
#include "clijson.h"
#include "config/workspace.h"
#include "conformanceclient.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "engine/tasktracker.h"
#include "exportcommand.h"
#include "fault/faultproxy.h"
#include "proxycommand.h"
#include "recovery/failureclassifier.h"
#include "recovery/retrypolicy.h"
#include "redactingoutput.h"
#include "scriptrunner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QProcess>
#include <QTimer>
#include <QUrl>

#include <cstdio>

namespace mcpscope {

using cli::compactJson;
using cli::prettyJson;

CliApp::CliApp(QObject* parent)
    : QObject(parent)
    , m_out(RedactingOutput::standardOutput())
    , m_err(RedactingOutput::standardError())
{ }

CliApp::~CliApp()
{
    // Ended by SIGINT/SIGTERM (main returns 128+signal): the calls in flight get their final records
    // while --log is still open. The command is over, so nothing more is printed for them.
    if (m_exitCode < 0)
        m_exitCode = exitCodeFor(CallOutcome::Interrupted);
    if (m_engine)
        m_engine->shutDown();
}

int CliApp::start(const QStringList& arguments)
{
    // `conformance URL`: client mode for the official MCP conformance suite, run by ConformanceClient.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("conformance")) {
        auto* conformance = new ConformanceClient(this);
        connect(conformance, &ConformanceClient::finished, this, &CliApp::finished);
        return conformance->start(arguments.mid(2));
    }
    // `proxy --upstream URL`: the standalone fault proxy, run by ProxyCommand until SIGINT or SIGTERM.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("proxy")) {
        auto* proxy = new ProxyCommand(this);
        connect(proxy, &ProxyCommand::finished, this, &CliApp::finished);
        return proxy->start(arguments.mid(2));
    }
    // `export LOG --format jsonl|csv --out FILE`: filters and redacts a JSONL call log, run by ExportCommand.
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("export")) {
        auto* exporter = new ExportCommand(this);
        connect(exporter, &ExportCommand::finished, this, &CliApp::finished);
        return exporter->start(arguments.mid(2));
    }
    QString error;
    if (!parse(arguments, &error)) {
        // No engine yet, so no redactor of its own: the error may quote an argument that holds a secret.
        m_err << "mcpscope-cli: " << usageRedactor(arguments).redactText(error) << "\n"
              << "Try 'mcpscope-cli --help'.\n";
        m_err.flush();
        return ExitUsage;
    }
    if (m_command == QLatin1String("help")) {
        m_out << helpText();
        m_out.flush();
        return ExitSuccess;
    }
    if (m_command == QLatin1String("version")) {
        m_out << "mcpscope-cli " << MCPSCOPE_VERSION << "\n";
        m_out.flush();
        return ExitSuccess;
    }

    m_engine = new Engine(this);
    m_engine->setResponder(&m_responder);
    m_engine->setAuthBrowser(m_authBrowser);
    m_connection = m_engine->addServer(m_config);
    // Whatever a command prints, and the files it writes, pass through the engine's redactor.
    RedactingOutput::setRedactor(m_engine->redactor());
    connect(m_engine, &Engine::redactorChanged, this, [this] { RedactingOutput::setRedactor(m_engine->redactor()); });
    const QString prefix = QLatin1Char('[') + m_config.name + QStringLiteral("] ");
    connect(m_engine, &Engine::serverLog, this, [this, prefix](const QString&, const QString& line) {
        if (m_stderrStream) {
            *m_stderrStream << line << '\n';
            m_stderrStream->flush();
        } else {
            m_err << prefix << line << '\n';
            m_err.flush();
        }
    });
    // McpScope's own word about the server goes to our stderr, never into the server's --stderr FILE.
    connect(m_engine, &Engine::notice, this, [this](const QString&, const QString& text) {
        m_err << "mcpscope-cli: " << text << '\n';
        m_err.flush();
    });
    connect(m_engine, &Engine::logMessage, this,
        [this, prefix](const QString&, const QString& level, const QString& logger, const QJsonValue& data) {
            m_err << prefix << level << (logger.isEmpty() ? QString() : QLatin1Char(' ') + logger) << ": "
                  << (data.isString() ? data.toString() : prettyJson(data)) << '\n';
            m_err.flush();
        });
    connect(m_connection, &ServerConnection::sessionCreated, this, [this](ClientSession* session) {
        connect(session, &ClientSession::protocolWarning, this, [this](const QString& warning) {
            m_err << "mcpscope-cli: warning: " << warning << '\n';
            m_err.flush();
        });
    });
    connect(m_connection, &ServerConnection::ready, this, &CliApp::onReady);
    if (ServerAuth* auth = m_connection->auth()) {
        connect(auth, &ServerAuth::browserNeeded, this, &CliApp::openBrowser);
        connect(auth, &ServerAuth::problem, this, [this](const QString& message) {
            m_err << "mcpscope-cli: " << message << '\n';
            m_err.flush();
        });
        connect(auth, &ServerAuth::stateChanged, this, [this, auth](ServerAuth::State state) {
            static bool warned = false;
            if (state == ServerAuth::State::Authorizing && !auth->storeIsPersistent() && !std::exchange(warned, true)) {
                m_err << "mcpscope-cli: warning: tokens are kept in " << auth->storeDescription()
                      << "; they are lost when this command ends\n";
                m_err.flush();
            }
        });
    }
    if (m_log) {
        m_logAppender = std::make_unique<CallLogAppender>(m_log.get(), &m_engine->redactor());
        connect(m_engine, &Engine::callUpdated, m_logAppender.get(), &CallLogAppender::append);
        connect(m_logAppender.get(), &CallLogAppender::writeFailed, this, [this](const QString& error) {
            m_err << "mcpscope-cli: " << tr("cannot write the call log %1: %2").arg(m_log->fileName(), error) << '\n';
            m_err.flush();
        });
    }

    connect(m_connection, &ServerConnection::failed, this, [this](const QString& message) {
        if (m_exitCode >= 0)
            return;
        // Once the command runs, its own calls say how they ended: a child that dies mid-call is
        // respawned and the call ends by R4 or R5, and the next `run` step goes to the new child.
        // Quitting here would close the session and turn those calls into cancelled ones.
        if (m_commandStarted) {
            m_err << "mcpscope-cli: " << message << '\n';
            m_err.flush();
            return;
        }
        const ClientSession* session = m_connection->session();
        if (m_connection->state() == ServerConnection::State::NeedsAuth) {
            fail(message, ExitAuthRequired);
            return;
        }
        fail(message, session ? exitCodeFor(FailureClassifier::kindOf(session->lastFailure())) : ExitTransportFailure);
    });
    m_connection->connectToServer();
    return ExitStillRunning;
}

Redactor CliApp::usageRedactor(const QStringList& arguments) const
{
    Redactor redactor;
    redactor.addServer(m_config);
    static const QStringList secretValued { QStringLiteral("--client-secret"), QStringLiteral("--secret-header"),
        QStringLiteral("--header"), QStringLiteral("--env") };
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString& argument = arguments.at(i);
        const QUrl url(argument);
        if (url.isValid() && !url.userInfo().isEmpty())
            redactor.addUrl(url);
        if (i + 1 < arguments.size() && secretValued.contains(argument)) {
            const QString& value = arguments.at(i + 1);
            const qsizetype separator
                = value.indexOf(argument == QLatin1String("--env") ? QLatin1Char('=') : QLatin1Char(':'));
            // --env and --header are secret only by name, which a broken argument may lack: keep the value out.
            if (argument == QLatin1String("--client-secret"))
                redactor.addSecretValue(value);
            else if (argument == QLatin1String("--secret-header") || separator < 0)
                redactor.addSecretValue(separator < 0 ? value : value.mid(separator + 1).trimmed());
            else if (Redactor::defaultSensitiveHeaders().contains(value.left(separator).trimmed(), Qt::CaseInsensitive))
                redactor.addCredential(value.mid(separator + 1).trimmed());
        }
    }
    return redactor;
}

void CliApp::openBrowser(const QUrl& url)
{
    // The URL carries no secret (PKCE sends only the challenge), so it may be shown.
    m_err << "mcpscope-cli: authorize McpScope for server '" << m_config.name << "' in your browser:\n  "
          << url.toString(QUrl::FullyEncoded) << '\n';
    m_err.flush();
    if (!QProcess::startDetached(QStringLiteral("xdg-open"), { url.toString(QUrl::FullyEncoded) }))
        fail(tr("server '%1' needs authorization in a browser, and none could be started (xdg-open); open the "
                "URL above in one, or use --auth-browser none, or --grant client_credentials")
                 .arg(m_config.name),
            ExitAuthRequired);
}

void CliApp::onReady()
{
    // ready() fires again after every reconnect; the command runs once.
    if (std::exchange(m_commandStarted, true))
        return;
    if (!m_logLevel.isEmpty()) {
        // The command runs however the server took the level, as it always has.
        request(QStringLiteral("logging/setLevel"), { { QStringLiteral("level"), m_logLevel } },
            [this](const CallRecord&) { runCommand(); });
        return;
    }
    runCommand();
}

QJsonObject CliApp::parseJsonArg(int index, bool* ok)
{
    *ok = true;
    if (m_commandArgs.size() <= index)
        return {};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(m_commandArgs.at(index).toUtf8(), &error);
    if (!doc.isObject()) {
        *ok = false;
        fail(tr("arguments must be a JSON object, not '%1'%2")
                 .arg(m_commandArgs.at(index),
                     error.error == QJsonParseError::NoError
                         ? QString()
                         : QStringLiteral(" (") + error.errorString() + QLatin1Char(')')),
            ExitUsage);
        return {};
    }
    return doc.object();
}

void CliApp::request(const QString& method, const QJsonObject& params, std::function<void(const CallRecord&)> done)
{
    CallOptions options;
    options.timeoutMs = m_timeoutMs;
    if (m_progress && method == QLatin1String("tools/call"))
        options.onProgress = [this](const ProgressUpdate& update) { progress(update); };
    const QPointer<CliApp> self(this);
    m_engine->call(m_config.name, method, params, options, [self, done = std::move(done)](const CallRecord& record) {
        if (self)
            done(record);
    });
}

void CliApp::list(const QString& method, const QString& key)
{
    CallOptions options;
    options.timeoutMs = m_timeoutMs;
    const QPointer<CliApp> self(this);
    m_engine->list(m_config.name, method, key, options, [self](const CallRecord& record) {
        if (self)
            self->completeCall(record);
    });
}

void CliApp::runCommand()
{
    ClientSession* session = m_connection->session();
    auto done = [this](const CallRecord& record) { completeCall(record); };

    if (m_command == QLatin1String("info")) {
        const ServerDetails& d = session->details();
        Reply reply;
        reply.status = Reply::Status::Ok;
        reply.method = QStringLiteral("initialize");
        reply.result = QJsonObject {
            { QStringLiteral("serverInfo"), d.serverInfo },
            { QStringLiteral("protocolVersion"), d.protocolVersion },
            { QStringLiteral("capabilities"), d.capabilities },
            { QStringLiteral("instructions"), d.instructions },
            // The id the server assigned (Mcp-Session-Id, the legacy endpoint's sessionId), never McpScope's own
            // connection counter: null on stdio.
            { QStringLiteral("sessionId"),
                m_connection->shownSessionId().isEmpty() ? QJsonValue() : QJsonValue(m_connection->shownSessionId()) },
            { QStringLiteral("transport"), transportKindName(m_connection->activeTransport()) },
            { QStringLiteral("era"), protocolEraName(d.era) },
            { QStringLiteral("eraReason"), d.eraReason },
        };
        if (d.era == ProtocolEra::Modern) {
            QJsonObject result = reply.result.toObject();
            result.insert(QStringLiteral("sessionless"), true);
            result.insert(QStringLiteral("supportedVersions"), QJsonArray::fromStringList(d.supportedVersions));
            if (d.ttlMs >= 0)
                result.insert(QStringLiteral("ttlMs"), d.ttlMs);
            if (!d.cacheScope.isEmpty())
                result.insert(QStringLiteral("cacheScope"), d.cacheScope);
            reply.result = result;
        }
        complete(reply);
    } else if (m_command == QLatin1String("tools")) {
        list(QStringLiteral("tools/list"), QStringLiteral("tools"));
    } else if (m_command == QLatin1String("resources")) {
        list(QStringLiteral("resources/list"), QStringLiteral("resources"));
    } else if (m_command == QLatin1String("templates")) {
        list(QStringLiteral("resources/templates/list"), QStringLiteral("resourceTemplates"));
    } else if (m_command == QLatin1String("prompts")) {
        list(QStringLiteral("prompts/list"), QStringLiteral("prompts"));
    } else if (m_command == QLatin1String("ping")) {
        request(QStringLiteral("ping"), {}, done);
    } else if (m_command == QLatin1String("read")) {
        if (m_commandArgs.isEmpty())
            return fail(tr("read needs a resource URI"), ExitUsage);
        request(QStringLiteral("resources/read"), { { QStringLiteral("uri"), m_commandArgs.first() } },
            [this](const CallRecord& record) {
                QString error;
                if (record.outcome == CallOutcome::Success && !m_outFile.isEmpty()
                    && !writeReadContent(record.result.toObject(), &error))
                    return fail(tr("cannot write %1: %2").arg(m_outFile, error), ExitUsage);
                completeCall(record);
            });
    } else if (m_command == QLatin1String("subscribe")) {
        subscribe();
    } else if (m_command == QLatin1String("load")) {
        load();
    } else if (m_command == QLatin1String("prompt")) {
        if (m_commandArgs.isEmpty())
            return fail(tr("prompt needs a prompt name"), ExitUsage);
        bool ok = false;
        const QJsonObject args = parseJsonArg(1, &ok);
        if (!ok)
            return;
        QJsonObject stringArgs;
        for (auto it = args.constBegin(); it != args.constEnd(); ++it)
            stringArgs.insert(it.key(), it.value().isString() ? it.value() : QJsonValue(prettyJson(it.value())));
        request(QStringLiteral("prompts/get"),
            { { QStringLiteral("name"), m_commandArgs.first() }, { QStringLiteral("arguments"), stringArgs } }, done);
    } else if (m_command == QLatin1String("complete")) {
        if (m_commandArgs.size() < 3
            || (m_commandArgs.at(0) != QLatin1String("prompt") && m_commandArgs.at(0) != QLatin1String("resource")))
            return fail(tr("usage: complete prompt|resource NAME-OR-URI ARGUMENT [VALUE]"), ExitUsage);
        const bool prompt = m_commandArgs.at(0) == QLatin1String("prompt");
        const QJsonObject ref = prompt ? QJsonObject { { QStringLiteral("type"), QStringLiteral("ref/prompt") },
            { QStringLiteral("name"), m_commandArgs.at(1) } }
                                       : QJsonObject { { QStringLiteral("type"), QStringLiteral("ref/resource") },
                                             { QStringLiteral("uri"), m_commandArgs.at(1) } };
        request(QStringLiteral("completion/complete"),
            { { QStringLiteral("ref"), ref },
                { QStringLiteral("argument"),
                    QJsonObject { { QStringLiteral("name"), m_commandArgs.at(2) },
                        { QStringLiteral("value"), m_commandArgs.value(3) } } } },
            done);
    } else if (m_command == QLatin1String("call")) {
        if (m_commandArgs.isEmpty())
            return fail(tr("call needs a tool name"), ExitUsage);
        bool ok = false;
        const QJsonObject args = parseJsonArg(1, &ok);
        if (!ok)
            return;
        const QString toolName = m_commandArgs.first();
        // What the app shows struck through is not callable here either: the 2026-07-28 rules leave a tool
        // with invalid x-mcp-header annotations out, since its Mcp-Param headers cannot be sent right.
        for (const ToolInfo& excluded : session->excludedTools()) {
            if (excluded.name == toolName)
                return fail(tr("Server '%1': tool '%2' is left out of the tool list and not called: %3")
                                .arg(m_config.name, toolName, excluded.excludedReason),
                    ExitUsage);
        }
        // A tool that requires task augmentation is always called as a task; --task asks for one. A
        // 2026-07-28 server decides by itself (the tasks extension): nothing is asked, any call may come back
        // as a task handle, and it is followed to its end all the same.
        const ToolInfo* tool = session->tool(toolName);
        const bool asTask = !session->isModern() && (m_task || (tool && tool->callsAsTask(false)));
        request(QStringLiteral("tools/call"), TaskTracker::toolCallParams(toolName, args, asTask),
            [this, toolName](const CallRecord& record) {
                if (followTask(toolName, record))
                    return;
                finishToolCall(toolName, record);
            });
    } else if (m_command == QLatin1String("tasks")) {
        tasksCommand();
    } else if (m_command == QLatin1String("run")) {
        auto* runner = new ScriptRunner(m_engine, m_config.name, m_connection->faultProxy(), m_out, this);
        runner->setTimeoutMs(m_timeoutMs);
        QString error;
        if (!runner->load(m_script, &error))
            return fail(tr("script %1: %2").arg(m_commandArgs.value(0), error), ExitUsage);
        connect(runner, &ScriptRunner::finished, this, [this](int code) { quit(code); });
        runner->start();
    }
}

void CliApp::finishToolCall(const QString& toolName, const CallRecord& record, const QJsonObject& taskExtra)
{
    QJsonObject extra { { QStringLiteral("tool"), toolName }, { QStringLiteral("callId"), record.callId },
        { QStringLiteral("outcome"), outcomeName(record.outcome) }, { QStringLiteral("rule"), record.rule },
        { QStringLiteral("attempts"), int(record.attempts.size()) } };
    for (auto it = taskExtra.constBegin(); it != taskExtra.constEnd(); ++it)
        extra.insert(it.key(), it.value());
    if (record.outcome == CallOutcome::Success || record.outcome == CallOutcome::ToolError) {
        ClientSession* current = m_connection->session();
        const ToolCallResult call
            = ToolCallResult::fromResult(record.result.toObject(), current ? current->tool(toolName) : nullptr);
        extra.insert(QStringLiteral("isError"), call.isError);
        if (CallSummary::declinedInput(record))
            extra.insert(QStringLiteral("inputDeclined"), true);
        extra.insert(QStringLiteral("schema"), ToolCallResult::verdictName(call.schemaVerdict));
        if (!call.schemaError.isEmpty())
            extra.insert(QStringLiteral("schemaError"), call.schemaError);
        Reply reply;
        reply.status = Reply::Status::Ok;
        reply.method = record.method;
        reply.result = record.result;
        reply.elapsedMs = record.durationMs();
        complete(reply, extra, call.isError ? ExitToolError : ExitSuccess);
        return;
    }
    if (record.outcome == CallOutcome::OutcomeUncertain)
        extra.insert(QStringLiteral("result"), record.result);
    if (!record.error.isEmpty())
        extra.insert(QStringLiteral("error"), record.error);
    const QString message = record.outcome == CallOutcome::OutcomeUncertain
        ? record.result.toObject().value(QLatin1String("message")).toString()
        : record.error.value(QLatin1String("message"))
              .toString(record.attempts.isEmpty() ? outcomeName(record.outcome) : record.attempts.last().error);
    fail(message, exitCodeFor(record.outcome), extra);
}

void CliApp::complete(const Reply& reply, const QJsonObject& extra, int successCode)
{
    printResult(reply, extra);
    quit(successCode);
}

void CliApp::completeCall(const CallRecord& record)
{
    if (record.outcome == CallOutcome::Success) {
        Reply reply;
        reply.status = Reply::Status::Ok;
        reply.method = record.method;
        reply.result = record.result;
        reply.elapsedMs = record.durationMs();
        complete(reply);
        return;
    }
    QJsonObject details { { QStringLiteral("method"), record.method } };
    // A JSON-RPC error response is kept in the record as the server sent it (code, message, data).
    const QJsonValue code = record.error.value(QLatin1String("code"));
    const QString serverMessage = record.error.value(QLatin1String("message")).toString();
    QString message;
    if (code.isDouble()) {
        details.insert(QStringLiteral("error"), record.error);
        message = tr("server '%1' answered %2 with error %3: %4")
                      .arg(m_config.name, record.method)
                      .arg(code.toInt())
                      .arg(serverMessage);
    } else {
        if (record.error.contains(QLatin1String("failureKind")))
            details.insert(QStringLiteral("failureKind"), record.error.value(QLatin1String("failureKind")));
        else if (!record.attempts.isEmpty() && record.attempts.last().failureKind.has_value())
            details.insert(QStringLiteral("failureKind"), failureKindName(record.attempts.last().failureKind.value()));
        message = !serverMessage.isEmpty() ? serverMessage
            : record.attempts.isEmpty()    ? outcomeName(record.outcome)
                                           : record.attempts.last().error;
    }
    fail(message, exitCodeFor(record.outcome), details);
}

void CliApp::fail(const QString& message, int code, const QJsonObject& extra)
{
    if (m_exitCode >= 0)
        return;
    m_err << "mcpscope-cli: " << message << '\n';
    m_err.flush();
    if (m_json) {
        QJsonObject out { { QStringLiteral("command"), m_command }, { QStringLiteral("server"), m_config.name },
            { QStringLiteral("ok"), false }, { QStringLiteral("message"), message },
            { QStringLiteral("exitCode"), code } };
        for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
            out.insert(it.key(), it.value());
        m_out << compactJson(out) << '\n';
        m_out.flush();
    }
    quit(code);
}

void CliApp::quit(int code)
{
    if (m_exitCode >= 0)
        return;
    m_exitCode = code;
    // Calls still in flight (a script's other steps) end as interrupted, in --log too, and no reconnect
    // starts a new child while the server is being stopped.
    if (m_engine)
        m_engine->shutDown();
    // Shut the server down properly (close stdin, SIGTERM, SIGKILL) before exiting.
    ClientSession* session = m_connection ? m_connection->session() : nullptr;
    if (!session || session->state() == ClientSession::State::Closed) {
        QTimer::singleShot(0, this, [this] { Q_EMIT finished(m_exitCode); });
        return;
    }
    connect(session, &ClientSession::closed, this, [this] { Q_EMIT finished(m_exitCode); });
    session->close();
}

} // namespace mcpscope
