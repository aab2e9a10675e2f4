#include "cliapp.h"

#include "clijson.h"
#include "config/workspace.h"
#include "conformanceclient.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "exportcommand.h"
#include "fault/faultproxy.h"
#include "proxycommand.h"
#include "recovery/failureclassifier.h"
#include "recovery/retrypolicy.h"
#include "scriptrunner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTimer>
#include <QUrl>

#include <cstdio>

namespace mcpscope {

using cli::compactJson;
using cli::prettyJson;

CliApp::CliApp(QObject* parent)
    : QObject(parent)
    , m_out(stdout)
    , m_err(stderr)
{ }

CliApp::~CliApp() = default;

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
    if (arguments.size() > 1 && arguments.at(1) == QLatin1String("export"))
        return ExportCommand().run(arguments.mid(2));
    QString error;
    if (!parse(arguments, &error)) {
        m_err << "mcpscope-cli: " << error << "\n"
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
    m_connection = m_engine->addServer(m_config);
    const QString prefix = QLatin1Char('[') + m_config.name + QStringLiteral("] ");
    connect(m_connection, &ServerConnection::serverLog, this, [this, prefix](const QString& line) {
        if (m_stderrStream) {
            *m_stderrStream << line << '\n';
            m_stderrStream->flush();
        } else {
            m_err << prefix << line << '\n';
            m_err.flush();
        }
    });
    connect(m_connection, &ServerConnection::logMessage, this,
        [this, prefix](const QString& level, const QString& logger, const QJsonValue& data) {
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
    if (m_log) {
        connect(m_connection, &ServerConnection::callUpdated, this, [this](const CallRecord& record) {
            if (!record.isFinished())
                return;
            m_log->write(QJsonDocument(record.toJson()).toJson(QJsonDocument::Compact) + '\n');
            m_log->flush();
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
        fail(message, session ? exitCodeFor(FailureClassifier::kindOf(session->lastFailure())) : ExitTransportFailure);
    });
    m_connection->connectToServer();
    return ExitStillRunning;
}

void CliApp::onReady()
{
    // ready() fires again after every reconnect; the command runs once.
    if (std::exchange(m_commandStarted, true))
        return;
    if (!m_logLevel.isEmpty()) {
        RequestOptions options;
        options.timeoutMs = m_timeoutMs;
        m_connection->session()->request(
            QStringLiteral("logging/setLevel"), { { QStringLiteral("level"), m_logLevel } }, options,
            [this](const Reply&) { runCommand(); }, this);
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

void CliApp::runCommand()
{
    ClientSession* session = m_connection->session();
    RequestOptions options;
    options.timeoutMs = m_timeoutMs;
    auto done = [this](const Reply& reply) { complete(reply); };

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
            { QStringLiteral("sessionId"), d.sessionId },
            { QStringLiteral("transport"), transportKindName(m_connection->activeTransport()) },
        };
        complete(reply);
    } else if (m_command == QLatin1String("tools")) {
        session->listTools(done, this);
    } else if (m_command == QLatin1String("resources")) {
        session->listAll(QStringLiteral("resources/list"), QStringLiteral("resources"), done, this);
    } else if (m_command == QLatin1String("templates")) {
        session->listAll(QStringLiteral("resources/templates/list"), QStringLiteral("resourceTemplates"), done, this);
    } else if (m_command == QLatin1String("prompts")) {
        session->listAll(QStringLiteral("prompts/list"), QStringLiteral("prompts"), done, this);
    } else if (m_command == QLatin1String("ping")) {
        session->request(QStringLiteral("ping"), {}, options, done, this);
    } else if (m_command == QLatin1String("read")) {
        if (m_commandArgs.isEmpty())
            return fail(tr("read needs a resource URI"), ExitUsage);
        session->request(QStringLiteral("resources/read"), { { QStringLiteral("uri"), m_commandArgs.first() } },
            options, done, this);
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
        session->request(QStringLiteral("prompts/get"),
            { { QStringLiteral("name"), m_commandArgs.first() }, { QStringLiteral("arguments"), stringArgs } }, options,
            done, this);
    } else if (m_command == QLatin1String("complete")) {
        if (m_commandArgs.size() < 3
            || (m_commandArgs.at(0) != QLatin1String("prompt") && m_commandArgs.at(0) != QLatin1String("resource")))
            return fail(tr("usage: complete prompt|resource NAME-OR-URI ARGUMENT [VALUE]"), ExitUsage);
        const bool prompt = m_commandArgs.at(0) == QLatin1String("prompt");
        const QJsonObject ref = prompt ? QJsonObject { { QStringLiteral("type"), QStringLiteral("ref/prompt") },
            { QStringLiteral("name"), m_commandArgs.at(1) } }
                                       : QJsonObject { { QStringLiteral("type"), QStringLiteral("ref/resource") },
                                             { QStringLiteral("uri"), m_commandArgs.at(1) } };
        session->request(QStringLiteral("completion/complete"),
            { { QStringLiteral("ref"), ref },
                { QStringLiteral("argument"),
                    QJsonObject { { QStringLiteral("name"), m_commandArgs.at(2) },
                        { QStringLiteral("value"), m_commandArgs.value(3) } } } },
            options, done, this);
    } else if (m_command == QLatin1String("call")) {
        if (m_commandArgs.isEmpty())
            return fail(tr("call needs a tool name"), ExitUsage);
        bool ok = false;
        const QJsonObject args = parseJsonArg(1, &ok);
        if (!ok)
            return;
        if (m_progress)
            options.onProgress = [this](const ProgressUpdate& update) { progress(update); };
        const QString toolName = m_commandArgs.first();
        // Through the recovery engine, so the retry rules apply and exit codes 3 and 6 are real.
        CallOptions callOptions;
        callOptions.timeoutMs = m_timeoutMs;
        callOptions.onProgress = options.onProgress;
        m_connection->callTool(toolName, args, callOptions, [this, toolName](const CallRecord& record) {
            QJsonObject extra { { QStringLiteral("tool"), toolName }, { QStringLiteral("callId"), record.callId },
                { QStringLiteral("outcome"), outcomeName(record.outcome) }, { QStringLiteral("rule"), record.rule },
                { QStringLiteral("attempts"), int(record.attempts.size()) } };
            if (record.outcome == CallOutcome::Success || record.outcome == CallOutcome::ToolError) {
                ClientSession* current = m_connection->session();
                const ToolCallResult call
                    = ToolCallResult::fromResult(record.result.toObject(), current ? current->tool(toolName) : nullptr);
                extra.insert(QStringLiteral("isError"), call.isError);
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
            fail(message, ScriptRunner::exitCodeFor(record.outcome), extra);
        });
    } else if (m_command == QLatin1String("run")) {
        auto* runner = new ScriptRunner(m_connection, m_connection->faultProxy(), m_out, this);
        runner->setTimeoutMs(m_timeoutMs);
        QString error;
        if (!runner->load(m_script, &error))
            return fail(tr("script %1: %2").arg(m_commandArgs.value(0), error), ExitUsage);
        connect(runner, &ScriptRunner::finished, this, [this](int code) { quit(code); });
        runner->start();
    }
}

void CliApp::complete(const Reply& reply, const QJsonObject& extra, int successCode)
{
    if (!reply.ok()) {
        QJsonObject details = extra;
        details.insert(QStringLiteral("method"), reply.method);
        if (reply.status == Reply::Status::RpcError)
            details.insert(QStringLiteral("error"), reply.error.toJson());
        else
            details.insert(QStringLiteral("failureKind"), failureKindName(FailureClassifier::kindOf(reply.failure)));
        QString message = reply.describe();
        if (reply.status == Reply::Status::RpcError)
            message = tr("server '%1' answered %2 with error %3: %4")
                          .arg(m_config.name, reply.method)
                          .arg(reply.error.code)
                          .arg(reply.error.message);
        return fail(message, exitCodeFor(reply), details);
    }
    printResult(reply, extra);
    quit(successCode);
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
