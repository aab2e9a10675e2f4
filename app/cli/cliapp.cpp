#include "cliapp.h"

#include "config/workspace.h"
#include "conformanceclient.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "exportcommand.h"
#include "fault/faultproxy.h"
#include "proxycommand.h"
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

namespace {
QString prettyJson(const QJsonValue& value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Indented)).trimmed();
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Indented)).trimmed();
    return QString::fromUtf8(QJsonDocument(QJsonArray { value }).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
}

QString compactJson(const QJsonObject& object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

const QStringList Commands { QStringLiteral("info"), QStringLiteral("tools"), QStringLiteral("call"),
    QStringLiteral("resources"), QStringLiteral("templates"), QStringLiteral("read"), QStringLiteral("prompts"),
    QStringLiteral("prompt"), QStringLiteral("complete"), QStringLiteral("ping"), QStringLiteral("run") };
} // namespace

CliApp::CliApp(QObject* parent)
    : QObject(parent)
    , m_out(stdout)
    , m_err(stderr)
{ }

CliApp::~CliApp() = default;

QString CliApp::helpText()
{
    return QStringLiteral(
        "Usage: mcpscope-cli [server selection] [options] COMMAND [ARGS]\n"
        "\n"
        "Server selection (one of):\n"
        "  --stdio \"CMD ARGS\"          start a stdio server (split like a shell)\n"
        "      --env K=V               extra environment for the child (repeatable)\n"
        "      --cwd DIR               working directory for the child\n"
        "  --url URL                   an HTTP server (Streamable HTTP, falling back to legacy SSE)\n"
        "      --header \"K: V\"         extra request header (repeatable)\n"
        "      --transport http|sse|auto  force a transport (default auto)\n"
        "      --insecure              do not verify the server's TLS certificate\n"
        "  --server NAME --config FILE a server from a workspace or any mcp.json dialect\n"
        "\n"
        "Commands:\n"
        "  info                        server info, protocol version, capabilities, instructions, session id\n"
        "  tools                       tools with their annotations\n"
        "  call TOOL [JSON-ARGS]       call a tool\n"
        "  resources | templates       list resources or resource templates\n"
        "  read URI                    read a resource\n"
        "  prompts                     list prompts\n"
        "  prompt NAME [JSON-ARGS]     get a prompt\n"
        "  complete prompt|resource NAME-OR-URI ARG [VALUE]\n"
        "                              argument completion\n"
        "  ping                        round trip\n"
        "  run SCRIPT|-                steps, one per line, through the recovery engine: call TOOL JSON, tools,\n"
        "                              ping, expire [server|client], reconnect, kill, fault NAME [N] [ARGS],\n"
        "                              breaker open|reset, wait MS, parallel N STEP (N copies of STEP at once;\n"
        "                              waits for all, one object per copy with \"copy\": 1..N), # comment\n"
        "                              (one JSON object per step)\n"
        "                              HTTP faults (with --fault-proxy): expire-before, expire-after, cut-after,\n"
        "                              auth-401, delay MS, drop-stream, close-before-head, rst-before-head;\n"
        "                              stdio faults: kill-after-write, close-stdin, delay MS\n"
        "  conformance URL             client mode for the MCP conformance suite (alone, without server selection;\n"
        "                              reads MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT)\n"
        "  proxy --upstream URL [--listen PORT] [--control PORT]\n"
        "                              fault-injecting proxy on 127.0.0.1 in front of a Streamable HTTP or legacy\n"
        "                              SSE server; refuses (409) a tools/call attempt it already forwarded\n"
        "                              (alone; runs until SIGINT/SIGTERM; --control serves the fault API)\n"
        "  export LOG --format jsonl|har|csv --out FILE [--server NAME]... [--tool NAME]... [--outcome NAME]...\n"
        "         [--text TEXT]        filter a --log call log and write it (redacted) as JSONL, HAR 1.2 (its HTTP\n"
        "                              requests) or CSV (alone)\n"
        "\n"
        "Options:\n"
        "  --json                      machine-readable output: one JSON object per command\n"
        "  --log FILE                  append every finished call record to FILE as a JSON line\n"
        "  --fault-proxy               put an HTTP server behind an embedded fault proxy (for run's fault steps)\n"
        "  --timeout SECONDS           per-request timeout (default 60)\n"
        "  --progress                  print progress notifications as they arrive (stderr)\n"
        "  --stderr FILE               write the server's stderr to FILE instead of ours\n"
        "  --log-level LEVEL           send logging/setLevel first; log notifications go to stderr\n"
        "  --root URI-OR-PATH          answer roots/list with this root (repeatable)\n"
        "  --sampling-text TEXT        answer sampling/createMessage with this text\n"
        "  --elicit accept|decline|cancel  answer elicitation/create (default: decline)\n"
        "  --elicit-content JSON       content for an accepted elicitation (schema defaults fill the rest)\n"
        "  --responses FILE            a JSON script of answers: {\"roots\", \"sampling\", \"elicitation\"}\n"
        "\n"
        "Exit codes:\n"
        "  0 success   1 the tool returned isError   2 usage or config error   3 outcome uncertain\n"
        "  4 transport or protocol failure   5 authorization needed   6 breaker open   7 timeout\n");
}

bool CliApp::parse(const QStringList& arguments, QString* error)
{
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption stdioOpt(QStringLiteral("stdio"), {}, QStringLiteral("cmd"));
    const QCommandLineOption envOpt(QStringLiteral("env"), {}, QStringLiteral("K=V"));
    const QCommandLineOption cwdOpt(QStringLiteral("cwd"), {}, QStringLiteral("dir"));
    const QCommandLineOption urlOpt(QStringLiteral("url"), {}, QStringLiteral("url"));
    const QCommandLineOption headerOpt(QStringLiteral("header"), {}, QStringLiteral("K: V"));
    const QCommandLineOption transportOpt(QStringLiteral("transport"), {}, QStringLiteral("http|sse|auto"));
    const QCommandLineOption insecureOpt(QStringLiteral("insecure"));
    const QCommandLineOption serverOpt(QStringLiteral("server"), {}, QStringLiteral("name"));
    const QCommandLineOption configOpt(QStringLiteral("config"), {}, QStringLiteral("file"));
    const QCommandLineOption jsonOpt(QStringLiteral("json"));
    const QCommandLineOption timeoutOpt(QStringLiteral("timeout"), {}, QStringLiteral("seconds"));
    const QCommandLineOption progressOpt(QStringLiteral("progress"));
    const QCommandLineOption stderrOpt(QStringLiteral("stderr"), {}, QStringLiteral("file"));
    const QCommandLineOption logLevelOpt(QStringLiteral("log-level"), {}, QStringLiteral("level"));
    const QCommandLineOption rootOpt(QStringLiteral("root"), {}, QStringLiteral("uri"));
    const QCommandLineOption samplingOpt(QStringLiteral("sampling-text"), {}, QStringLiteral("text"));
    const QCommandLineOption elicitOpt(QStringLiteral("elicit"), {}, QStringLiteral("action"));
    const QCommandLineOption elicitContentOpt(QStringLiteral("elicit-content"), {}, QStringLiteral("json"));
    const QCommandLineOption responsesOpt(QStringLiteral("responses"), {}, QStringLiteral("file"));
    const QCommandLineOption helpOpt(QStringList { QStringLiteral("h"), QStringLiteral("help") });
    const QCommandLineOption versionOpt(QStringLiteral("version"));
    const QCommandLineOption faultProxyOpt(QStringLiteral("fault-proxy"));
    const QCommandLineOption logOpt(QStringLiteral("log"), {}, QStringLiteral("file"));
    parser.addOptions({ faultProxyOpt, logOpt, urlOpt, headerOpt, transportOpt, insecureOpt, stdioOpt, envOpt, cwdOpt,
        serverOpt, configOpt, jsonOpt, timeoutOpt, progressOpt, stderrOpt, logLevelOpt, rootOpt, samplingOpt, elicitOpt,
        elicitContentOpt, responsesOpt, helpOpt, versionOpt });
    if (!parser.parse(arguments)) {
        *error = parser.errorText();
        return false;
    }
    if (parser.isSet(helpOpt)) {
        m_command = QStringLiteral("help");
        return true;
    }
    if (parser.isSet(versionOpt)) {
        m_command = QStringLiteral("version");
        return true;
    }
    m_json = parser.isSet(jsonOpt);
    m_progress = parser.isSet(progressOpt);
    m_logLevel = parser.value(logLevelOpt);
    if (parser.isSet(timeoutOpt)) {
        bool ok = false;
        const double seconds = parser.value(timeoutOpt).toDouble(&ok);
        if (!ok || seconds <= 0) {
            *error = tr("--timeout needs a positive number of seconds, not '%1'").arg(parser.value(timeoutOpt));
            return false;
        }
        m_timeoutMs = qint64(seconds * 1000);
    }

    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty()) {
        *error = tr("no command given (one of: %1)").arg(Commands.join(QStringLiteral(", ")));
        return false;
    }
    m_command = positional.first();
    m_commandArgs = positional.mid(1);
    if ((m_command == QLatin1String("call") || m_command == QLatin1String("prompt")) && m_commandArgs.size() > 1) {
        // Checked before any server starts, so a typo costs nothing.
        QJsonParseError parseError;
        if (!QJsonDocument::fromJson(m_commandArgs.at(1).toUtf8(), &parseError).isObject()) {
            *error = tr("arguments must be a JSON object, not '%1'").arg(m_commandArgs.at(1));
            return false;
        }
    }
    if (!Commands.contains(m_command)) {
        *error = tr("unknown command '%1' (one of: %2)").arg(m_command, Commands.join(QStringLiteral(", ")));
        return false;
    }

    if (int(parser.isSet(stdioOpt)) + int(parser.isSet(serverOpt)) + int(parser.isSet(urlOpt)) != 1) {
        *error = tr("choose the server with exactly one of --stdio \"CMD\", --url URL and --server NAME --config FILE");
        return false;
    }
    if (parser.isSet(urlOpt)) {
        const QUrl url(parser.value(urlOpt));
        if (!url.isValid() || url.host().isEmpty()
            || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))) {
            *error = tr("--url needs an http:// or https:// URL with a host, not '%1'").arg(parser.value(urlOpt));
            return false;
        }
        m_config.name = url.host() + (url.port() > 0 ? QLatin1Char(':') + QString::number(url.port()) : QString());
        m_config.url = url;
        m_config.transport = TransportKind::AutoHttp;
    } else if (parser.isSet(stdioOpt)) {
        const QStringList words = QProcess::splitCommand(parser.value(stdioOpt));
        if (words.isEmpty()) {
            *error = tr("--stdio needs a command line");
            return false;
        }
        // Name the server after what it runs, not the launcher in front of it ("node", "npx", …).
        static const QStringList launchers { QStringLiteral("node"), QStringLiteral("npx"), QStringLiteral("uvx"),
            QStringLiteral("uv"), QStringLiteral("python"), QStringLiteral("python3"), QStringLiteral("sh"),
            QStringLiteral("bash"), QStringLiteral("deno"), QStringLiteral("bun"), QStringLiteral("env") };
        m_config.name = QFileInfo(words.first()).fileName();
        if (launchers.contains(m_config.name)) {
            for (const QString& word : words.mid(1)) {
                if (!word.startsWith(QLatin1Char('-')) && !word.contains(QLatin1Char('='))) {
                    static const QStringList generic { QStringLiteral("index"), QStringLiteral("main"),
                        QStringLiteral("server"), QStringLiteral("dist"), QStringLiteral("build"),
                        QStringLiteral("lib"), QStringLiteral("src"), QStringLiteral("bin") };
                    QFileInfo info(word);
                    m_config.name = info.completeBaseName();
                    while (generic.contains(m_config.name) && info.absolutePath() != info.absoluteFilePath()) {
                        info = QFileInfo(info.absolutePath());
                        m_config.name = info.fileName();
                    }
                    break;
                }
            }
        }
        m_config.transport = TransportKind::Stdio;
        m_config.command = words.first();
        m_config.args = words.mid(1);
        m_config.cwd = parser.value(cwdOpt);
        for (const QString& pair : parser.values(envOpt)) {
            const qsizetype eq = pair.indexOf(QLatin1Char('='));
            if (eq <= 0) {
                *error = tr("--env needs KEY=VALUE, not '%1'").arg(pair);
                return false;
            }
            m_config.env.insert(pair.left(eq), pair.mid(eq + 1));
        }
    } else {
        if (!parser.isSet(configOpt)) {
            *error = tr("--server needs --config FILE");
            return false;
        }
        ConfigError configError;
        const auto workspace = Workspace::load(parser.value(configOpt), &configError);
        if (!workspace) {
            *error = configError.toString();
            return false;
        }
        const ServerConfig* server = workspace->find(parser.value(serverOpt));
        if (!server) {
            QStringList names;
            for (const ServerConfig& s : workspace->servers)
                names.append(s.name);
            *error = tr("%1 has no server named '%2' (it has: %3)")
                         .arg(parser.value(configOpt), parser.value(serverOpt), names.join(QStringLiteral(", ")));
            return false;
        }
        m_config = *server;
        if (parser.isSet(cwdOpt))
            m_config.cwd = parser.value(cwdOpt);
        for (const QString& pair : parser.values(envOpt)) {
            const qsizetype eq = pair.indexOf(QLatin1Char('='));
            if (eq > 0)
                m_config.env.insert(pair.left(eq), pair.mid(eq + 1));
        }
    }
    if (parser.isSet(transportOpt)) {
        const auto kind = transportKindFromName(parser.value(transportOpt));
        if (!kind || *kind == TransportKind::Stdio || !m_config.isHttp()) {
            *error = tr("--transport must be http, sse or auto, for an HTTP server (got '%1')")
                         .arg(parser.value(transportOpt));
            return false;
        }
        m_config.transport = *kind;
    }
    for (const QString& header : parser.values(headerOpt)) {
        const qsizetype colon = header.indexOf(QLatin1Char(':'));
        if (colon <= 0) {
            *error = tr("--header needs \"Name: value\", not '%1'").arg(header);
            return false;
        }
        m_config.headers.append({ header.left(colon).trimmed(), header.mid(colon + 1).trimmed() });
    }
    if (parser.isSet(insecureOpt))
        m_config.tlsVerify = false;
    m_config.requestTimeoutMs = int(std::min<qint64>(m_timeoutMs, std::numeric_limits<int>::max()));

    QJsonObject script;
    if (parser.isSet(responsesOpt)) {
        QFile file(parser.value(responsesOpt));
        if (!file.open(QIODevice::ReadOnly)) {
            *error = tr("cannot read responses file %1: %2").arg(file.fileName(), file.errorString());
            return false;
        }
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
        if (!doc.isObject()) {
            *error = tr("responses file %1 is not a JSON object: %2").arg(file.fileName(), parseError.errorString());
            return false;
        }
        script = doc.object();
    }
    if (parser.isSet(rootOpt)) {
        QJsonArray roots;
        for (const QString& root : parser.values(rootOpt)) {
            const QUrl url = root.contains(QLatin1String("://"))
                ? QUrl(root)
                : QUrl::fromLocalFile(QFileInfo(root).absoluteFilePath());
            roots.append(QJsonObject { { QStringLiteral("uri"), url.toString() },
                { QStringLiteral("name"), QFileInfo(url.path()).fileName() } });
        }
        script.insert(QStringLiteral("roots"), roots);
    }
    if (parser.isSet(samplingOpt))
        script.insert(
            QStringLiteral("sampling"), QJsonObject { { QStringLiteral("text"), parser.value(samplingOpt) } });
    if (parser.isSet(elicitOpt) || parser.isSet(elicitContentOpt)) {
        const QString action = parser.value(elicitOpt).isEmpty() ? QStringLiteral("accept") : parser.value(elicitOpt);
        if (action != QLatin1String("accept") && action != QLatin1String("decline")
            && action != QLatin1String("cancel")) {
            *error = tr("--elicit must be accept, decline or cancel, not '%1'").arg(action);
            return false;
        }
        QJsonObject elicitation { { QStringLiteral("action"), action } };
        if (parser.isSet(elicitContentOpt)) {
            const QJsonDocument doc = QJsonDocument::fromJson(parser.value(elicitContentOpt).toUtf8());
            if (!doc.isObject()) {
                *error = tr("--elicit-content must be a JSON object");
                return false;
            }
            elicitation.insert(QStringLiteral("content"), doc.object());
        }
        script.insert(QStringLiteral("elicitation"), elicitation);
    }
    m_responder.setScript(script);

    if (parser.isSet(faultProxyOpt) && !m_config.isHttp()) {
        *error = tr("--fault-proxy needs an HTTP server (--url or an HTTP entry of --config)");
        return false;
    }
    // The connection puts its own embedded proxy in front (the same as viaFaultProxy in a workspace).
    if (parser.isSet(faultProxyOpt))
        m_config.viaFaultProxy = true;
    if (m_command == QLatin1String("run")) {
        if (m_commandArgs.isEmpty()) {
            *error = tr("run needs a script file, or - for standard input");
            return false;
        }
        QFile script;
        const bool opened = m_commandArgs.first() == QLatin1String("-")
            ? script.open(stdin, QIODevice::ReadOnly)
            : (script.setFileName(m_commandArgs.first()), script.open(QIODevice::ReadOnly));
        if (!opened) {
            *error = tr("cannot read script %1: %2").arg(m_commandArgs.first(), script.errorString());
            return false;
        }
        m_script = QString::fromUtf8(script.readAll());
        // Checked before any server starts, so a typo costs nothing.
        ScriptRunner probe(nullptr, nullptr, m_out);
        QString scriptError;
        if (!probe.load(m_script, &scriptError)) {
            *error = tr("script %1: %2").arg(m_commandArgs.first(), scriptError);
            return false;
        }
    }
    if (parser.isSet(logOpt)) {
        m_log = std::make_unique<QFile>(parser.value(logOpt));
        if (!m_log->open(QIODevice::WriteOnly | QIODevice::Append)) {
            *error = tr("cannot append the call log to %1: %2").arg(m_log->fileName(), m_log->errorString());
            return false;
        }
    }
    if (parser.isSet(stderrOpt)) {
        m_stderrFile = std::make_unique<QFile>(parser.value(stderrOpt));
        if (!m_stderrFile->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text)) {
            *error
                = tr("cannot write server stderr to %1: %2").arg(m_stderrFile->fileName(), m_stderrFile->errorString());
            return false;
        }
        m_stderrStream = std::make_unique<QTextStream>(m_stderrFile.get());
    }
    return true;
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
        fail(message, session ? exitCodeFor(session->lastFailureKind()) : ExitTransportFailure);
    });
    m_connection->connectToServer();
    return -1;
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

void CliApp::progress(const ProgressUpdate& update)
{
    if (m_json) {
        QJsonObject object { { QStringLiteral("progress"), update.progress } };
        if (update.total)
            object.insert(QStringLiteral("total"), *update.total);
        if (!update.message.isEmpty())
            object.insert(QStringLiteral("message"), update.message);
        m_err << compactJson(object) << '\n';
    } else {
        m_err << "progress: " << update.progress;
        if (update.total)
            m_err << "/" << *update.total;
        if (!update.message.isEmpty())
            m_err << " " << update.message;
        m_err << '\n';
    }
    m_err.flush();
}

void CliApp::complete(const Reply& reply, const QJsonObject& extra, int successCode)
{
    if (!reply.ok()) {
        QJsonObject details = extra;
        details.insert(QStringLiteral("method"), reply.method);
        if (reply.status == Reply::Status::RpcError)
            details.insert(QStringLiteral("error"), reply.error.toJson());
        else
            details.insert(QStringLiteral("failureKind"), failureKindName(reply.failure.kind()));
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

void CliApp::printResult(const Reply& reply, const QJsonObject& extra)
{
    const QJsonObject result = reply.resultObject();
    if (m_json) {
        QJsonObject out { { QStringLiteral("command"), m_command }, { QStringLiteral("server"), m_config.name },
            { QStringLiteral("ok"), true }, { QStringLiteral("result"), reply.result },
            { QStringLiteral("elapsedMs"), reply.elapsedMs } };
        for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
            out.insert(it.key(), it.value());
        m_out << compactJson(out) << '\n';
        m_out.flush();
        return;
    }
    QTextStream& o = m_out;
    if (m_command == QLatin1String("info")) {
        const QJsonObject info = result.value(QLatin1String("serverInfo")).toObject();
        o << "Server:       " << info.value(QLatin1String("name")).toString() << ' '
          << info.value(QLatin1String("version")).toString();
        if (info.contains(QLatin1String("title")))
            o << " (" << info.value(QLatin1String("title")).toString() << ')';
        o << "\nTransport:    " << result.value(QLatin1String("transport")).toString()
          << "\nProtocol:     " << result.value(QLatin1String("protocolVersion")).toString()
          << "\nSession:      " << result.value(QLatin1String("sessionId")).toString() << "\nCapabilities: ";
        const QJsonObject caps = result.value(QLatin1String("capabilities")).toObject();
        QStringList names;
        for (auto it = caps.constBegin(); it != caps.constEnd(); ++it) {
            QStringList flags;
            const QJsonObject sub = it.value().toObject();
            for (auto f = sub.constBegin(); f != sub.constEnd(); ++f)
                if (f.value().toBool())
                    flags.append(f.key());
            names.append(flags.isEmpty()
                    ? it.key()
                    : it.key() + QStringLiteral(" (") + flags.join(QStringLiteral(", ")) + QLatin1Char(')'));
        }
        o << names.join(QStringLiteral(", ")) << '\n';
        const QString instructions = result.value(QLatin1String("instructions")).toString();
        if (!instructions.isEmpty())
            o << "Instructions:\n" << instructions << '\n';
    } else if (m_command == QLatin1String("tools")) {
        // The engine's own rule: a name listed more than once is write-capable (RECOVERY.md §2).
        PolicySettings policy;
        policy.idempotentReplay = m_connection && m_connection->config().idempotentReplay;
        const QList<ToolInfo> tools = ToolInfo::listFromJson(result.value(QLatin1String("tools")).toArray());
        for (const ToolInfo& tool : tools) {
            o << tool.name;
            if (!tool.title.isEmpty())
                o << " — " << tool.title;
            o << '\n';
            if (!tool.description.isEmpty())
                o << "    " << tool.description.section(QLatin1Char('\n'), 0, 0) << '\n';
            o << "    annotations: "
              << (tool.annotations.isEmpty() ? QStringLiteral("(none)") : compactJson(tool.annotations))
              << "\n    on expiry:   "
              << (RetryPolicy::isReplayable(ToolListing::ofEntry(tool), policy)
                         ? QStringLiteral("retry once")
                         : (tool.listedMoreThanOnce
                                 ? QStringLiteral("no replay (listed more than once; outcome uncertain)")
                                 : QStringLiteral("no replay (outcome uncertain)")))
              << '\n';
        }
    } else if (m_command == QLatin1String("call") || m_command == QLatin1String("prompt")) {
        if (extra.value(QLatin1String("isError")).toBool())
            o << "The tool reported an error (isError: true):\n";
        QJsonArray blocks = result.value(QLatin1String("content")).toArray();
        for (const QJsonValue& message : result.value(QLatin1String("messages")).toArray()) {
            o << message.toObject().value(QLatin1String("role")).toString() << ": ";
            blocks = { message.toObject().value(QLatin1String("content")) };
            for (const QJsonValue& block : std::as_const(blocks)) {
                const QJsonObject b = block.toObject();
                o << (b.value(QLatin1String("type")) == QLatin1String("text")
                        ? b.value(QLatin1String("text")).toString()
                        : compactJson(b))
                  << '\n';
            }
            blocks = {};
        }
        for (const QJsonValue& block : std::as_const(blocks)) {
            const QJsonObject b = block.toObject();
            const QString type = b.value(QLatin1String("type")).toString();
            if (type == QLatin1String("text")) {
                o << b.value(QLatin1String("text")).toString() << '\n';
            } else if (type == QLatin1String("image") || type == QLatin1String("audio")) {
                o << '[' << type << ' ' << b.value(QLatin1String("mimeType")).toString() << ", "
                  << QByteArray::fromBase64(b.value(QLatin1String("data")).toString().toLatin1()).size() << " bytes]\n";
            } else if (type == QLatin1String("resource_link")) {
                o << "[resource link] " << b.value(QLatin1String("uri")).toString() << ' '
                  << b.value(QLatin1String("name")).toString() << '\n';
            } else if (type == QLatin1String("resource")) {
                const QJsonObject r = b.value(QLatin1String("resource")).toObject();
                o << "[resource] " << r.value(QLatin1String("uri")).toString() << '\n';
                if (r.contains(QLatin1String("text")))
                    o << r.value(QLatin1String("text")).toString() << '\n';
            } else {
                o << compactJson(b) << '\n';
            }
        }
        if (result.contains(QLatin1String("structuredContent"))) {
            o << "structuredContent (" << extra.value(QLatin1String("schema")).toString() << "):\n"
              << prettyJson(result.value(QLatin1String("structuredContent"))) << '\n';
            if (extra.contains(QLatin1String("schemaError")))
                o << "schema problems: " << extra.value(QLatin1String("schemaError")).toString() << '\n';
        }
    } else if (m_command == QLatin1String("resources")) {
        for (const QJsonValue& value : result.value(QLatin1String("resources")).toArray()) {
            const QJsonObject r = value.toObject();
            o << r.value(QLatin1String("uri")).toString() << "  " << r.value(QLatin1String("name")).toString();
            if (r.contains(QLatin1String("mimeType")))
                o << "  (" << r.value(QLatin1String("mimeType")).toString() << ')';
            o << '\n';
        }
    } else if (m_command == QLatin1String("templates")) {
        for (const QJsonValue& value : result.value(QLatin1String("resourceTemplates")).toArray()) {
            const QJsonObject r = value.toObject();
            o << r.value(QLatin1String("uriTemplate")).toString() << "  " << r.value(QLatin1String("name")).toString()
              << '\n';
        }
    } else if (m_command == QLatin1String("read")) {
        for (const QJsonValue& value : result.value(QLatin1String("contents")).toArray()) {
            const QJsonObject c = value.toObject();
            o << "[" << c.value(QLatin1String("uri")).toString() << ' ' << c.value(QLatin1String("mimeType")).toString()
              << "]\n";
            if (c.contains(QLatin1String("text")))
                o << c.value(QLatin1String("text")).toString() << '\n';
            else
                o << "(blob, " << QByteArray::fromBase64(c.value(QLatin1String("blob")).toString().toLatin1()).size()
                  << " bytes)\n";
        }
    } else if (m_command == QLatin1String("prompts")) {
        for (const QJsonValue& value : result.value(QLatin1String("prompts")).toArray()) {
            const QJsonObject p = value.toObject();
            QStringList args;
            for (const QJsonValue& a : p.value(QLatin1String("arguments")).toArray())
                args.append(a.toObject().value(QLatin1String("name")).toString()
                    + (a.toObject().value(QLatin1String("required")).toBool() ? QStringLiteral("*") : QString()));
            o << p.value(QLatin1String("name")).toString() << '(' << args.join(QStringLiteral(", ")) << ")  "
              << p.value(QLatin1String("description")).toString() << '\n';
        }
    } else if (m_command == QLatin1String("complete")) {
        for (const QJsonValue& value :
            result.value(QLatin1String("completion")).toObject().value(QLatin1String("values")).toArray())
            o << value.toString() << '\n';
    } else if (m_command == QLatin1String("ping")) {
        o << "pong (" << reply.elapsedMs << " ms)\n";
    }
    o.flush();
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
