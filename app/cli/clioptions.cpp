#include "cliapp.h"
#include "transport/httpcommon.h"

#include "clinumbers.h"
#include "config/commandline.h"
#include "config/regularfile.h"
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
#include <QTimer>
#include <QUrl>

#include <cstdio>

namespace mcpscope {

namespace {
const QStringList Commands { QStringLiteral("info"), QStringLiteral("tools"), QStringLiteral("call"),
    QStringLiteral("resources"), QStringLiteral("templates"), QStringLiteral("read"), QStringLiteral("prompts"),
    QStringLiteral("prompt"), QStringLiteral("complete"), QStringLiteral("ping"), QStringLiteral("run"),
    QStringLiteral("subscribe"), QStringLiteral("load"), QStringLiteral("tasks") };
// mcpscope-cli's default for ServerConfig::exitWaitMs.
constexpr int CliExitWaitMs = 250;
} // namespace

bool CliApp::parseAuthOptions(const QCommandLineParser& parser, const QCommandLineOption& clientIdOpt,
    const QCommandLineOption& clientSecretOpt, const QCommandLineOption& clientKeyOpt,
    const QCommandLineOption& grantOpt, const QCommandLineOption& authBrowserOpt, QString* error)
{
    const bool any = parser.isSet(clientIdOpt) || parser.isSet(clientSecretOpt) || parser.isSet(clientKeyOpt)
        || parser.isSet(grantOpt) || parser.isSet(authBrowserOpt);
    if (any && !m_config.isHttp()) {
        *error = tr("--client-id, --client-secret, --client-key, --grant and --auth-browser are for an HTTP server");
        return false;
    }
    if (parser.isSet(clientIdOpt))
        m_config.oauthClientId = parser.value(clientIdOpt);
    if (parser.isSet(clientSecretOpt)) {
        // Never echoed, not even in an error.
        m_config.oauthClientSecret = parser.value(clientSecretOpt);
        if (m_config.oauthClientSecret.isEmpty()) {
            *error = tr("--client-secret needs a value");
            return false;
        }
    }
    if (parser.isSet(clientKeyOpt)) {
        QFile file;
        QString reason;
        if (!RegularFile::open(parser.value(clientKeyOpt), &file, &reason)) {
            *error = tr("cannot read the --client-key file %1: %2").arg(parser.value(clientKeyOpt), reason);
            return false;
        }
        m_config.oauthClientKeyPem = file.read(64 * 1024);
        if (!m_config.oauthClientKeyPem.contains("PRIVATE KEY-----")) {
            *error = tr("the --client-key file %1 holds no PEM private key").arg(parser.value(clientKeyOpt));
            return false;
        }
    }
    if (parser.isSet(grantOpt)) {
        const QString grant = parser.value(grantOpt);
        if (grant != QLatin1String("authorization_code") && grant != QLatin1String("client_credentials")) {
            *error = tr("--grant must be authorization_code or client_credentials, not '%1'").arg(grant);
            return false;
        }
        m_config.oauthGrant = grant;
    }
    if ((!m_config.oauthClientSecret.isEmpty() || !m_config.oauthClientKeyPem.isEmpty())
        && m_config.oauthClientId.isEmpty()) {
        *error = tr("--client-secret and --client-key need --client-id");
        return false;
    }
    if (m_config.oauthGrant == QLatin1String("client_credentials") && m_config.oauthClientSecret.isEmpty()
        && m_config.oauthClientKeyPem.isEmpty()) {
        *error = tr("--grant client_credentials needs --client-id with --client-secret or --client-key");
        return false;
    }
    if (parser.isSet(authBrowserOpt)) {
        const QString browser = parser.value(authBrowserOpt);
        if (browser != QLatin1String("system") && browser != QLatin1String("none")) {
            *error = tr("--auth-browser must be system or none, not '%1'").arg(browser);
            return false;
        }
        m_authBrowser = browser == QLatin1String("none") ? ServerAuth::Browser::None : ServerAuth::Browser::External;
    }
    return true;
}

bool CliApp::parseLoadOptions(const QCommandLineParser& parser, const QCommandLineOption& concurrencyOpt,
    const QCommandLineOption& durationOpt, const QCommandLineOption& requestsOpt, const QCommandLineOption& rateOpt,
    const QCommandLineOption& faultOpt, QString* error)
{
    const bool isLoad = m_command == QLatin1String("load");
    for (const QCommandLineOption* option : { &concurrencyOpt, &durationOpt, &requestsOpt, &rateOpt, &faultOpt }) {
        if (!isLoad && parser.isSet(*option)) {
            *error = tr("--%1 is for the load command").arg(option->names().first());
            return false;
        }
    }
    if (!isLoad)
        return true;
    constexpr double MaxCount = std::numeric_limits<int>::max();
    constexpr double MaxSeconds = std::numeric_limits<int>::max() / 1000;
    const auto number = [&](const QCommandLineOption& option, const QString& what, double min, double max,
                            bool integral) -> std::optional<double> {
        const auto value = CliNumbers::parse(parser.value(option), min, max, integral);
        if (!value)
            *error = CliNumbers::rangeError(
                QStringLiteral("--") + option.names().first(), what, min, max, parser.value(option));
        return value;
    };
    if (parser.isSet(concurrencyOpt)) {
        const auto n = number(concurrencyOpt, tr("a number of calls"), 1, 10000, true);
        if (!n)
            return false;
        m_load.concurrency = int(*n);
    }
    if (parser.isSet(durationOpt)) {
        const auto seconds = number(durationOpt, tr("a number of seconds"), 0.001, MaxSeconds, false);
        if (!seconds)
            return false;
        m_load.durationMs = qRound64(*seconds * 1000);
    }
    if (parser.isSet(requestsOpt)) {
        const auto n = number(requestsOpt, tr("a number of calls"), 1, MaxCount, true);
        if (!n)
            return false;
        m_load.requests = int(*n);
    }
    if (parser.isSet(rateOpt)) {
        const auto rate = number(rateOpt, tr("calls per second"), 0.001, 1e6, false);
        if (!rate)
            return false;
        m_load.rate = *rate;
    }
    if (parser.isSet(faultOpt)) {
        m_load.fault = LoadSpec::parseFault(parser.value(faultOpt), error);
        if (!m_load.fault)
            return false;
    }
    m_load.tool = m_commandArgs.value(0);
    *error = LoadRunner::validate(m_load);
    return error->isEmpty();
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
    const QCommandLineOption secretHeaderOpt(QStringLiteral("secret-header"), {}, QStringLiteral("K: V"));
    const QCommandLineOption transportOpt(QStringLiteral("transport"), {}, QStringLiteral("http|sse|auto"));
    const QCommandLineOption insecureOpt(QStringLiteral("insecure"));
    const QCommandLineOption eraOpt(QStringLiteral("protocol-era"), {}, QStringLiteral("auto|legacy|modern"));
    const QCommandLineOption serverOpt(QStringLiteral("server"), {}, QStringLiteral("name"));
    const QCommandLineOption configOpt(QStringLiteral("config"), {}, QStringLiteral("file"));
    const QCommandLineOption jsonOpt(QStringLiteral("json"));
    const QCommandLineOption timeoutOpt(QStringLiteral("timeout"), {}, QStringLiteral("seconds"));
    const QCommandLineOption exitWaitOpt(QStringLiteral("exit-wait"), {}, QStringLiteral("ms"));
    const QCommandLineOption progressOpt(QStringLiteral("progress"));
    const QCommandLineOption taskOpt(QStringLiteral("task"));
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
    const QCommandLineOption clientIdOpt(QStringLiteral("client-id"), {}, QStringLiteral("id"));
    const QCommandLineOption clientSecretOpt(QStringLiteral("client-secret"), {}, QStringLiteral("secret"));
    const QCommandLineOption clientKeyOpt(QStringLiteral("client-key"), {}, QStringLiteral("file"));
    const QCommandLineOption grantOpt(QStringLiteral("grant"), {}, QStringLiteral("grant"));
    const QCommandLineOption authBrowserOpt(QStringLiteral("auth-browser"), {}, QStringLiteral("system|none"));
    const QCommandLineOption logOpt(QStringLiteral("log"), {}, QStringLiteral("file"));
    const QCommandLineOption forOpt(QStringLiteral("for"), {}, QStringLiteral("seconds"));
    const QCommandLineOption outOpt(QStringLiteral("out"), {}, QStringLiteral("file"));
    const QCommandLineOption concurrencyOpt(QStringLiteral("concurrency"), {}, QStringLiteral("n"));
    const QCommandLineOption durationOpt(QStringLiteral("duration"), {}, QStringLiteral("seconds"));
    const QCommandLineOption requestsOpt(QStringLiteral("requests"), {}, QStringLiteral("n"));
    const QCommandLineOption rateOpt(QStringLiteral("rate"), {}, QStringLiteral("calls/s"));
    const QCommandLineOption faultOpt(QStringLiteral("fault"), {}, QStringLiteral("spec"));
    parser.addOptions({ taskOpt, concurrencyOpt, durationOpt, requestsOpt, rateOpt, faultOpt, forOpt, outOpt,
        faultProxyOpt, logOpt, urlOpt, headerOpt, secretHeaderOpt, transportOpt, insecureOpt, stdioOpt, envOpt, cwdOpt,
        serverOpt, configOpt, jsonOpt, timeoutOpt, exitWaitOpt, progressOpt, stderrOpt, logLevelOpt, rootOpt,
        samplingOpt, elicitOpt, elicitContentOpt, responsesOpt, helpOpt, versionOpt, clientIdOpt, clientSecretOpt,
        clientKeyOpt, grantOpt, authBrowserOpt, eraOpt });
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
        // Whole milliseconds that fit the int the connection keeps: 1 ms up to about 24 days.
        constexpr double MinSeconds = 0.001;
        constexpr double MaxSeconds = std::numeric_limits<int>::max() / 1000;
        const auto seconds = CliNumbers::parse(parser.value(timeoutOpt), MinSeconds, MaxSeconds);
        if (!seconds) {
            *error = CliNumbers::rangeError(QStringLiteral("--timeout"), tr("a number of seconds"), MinSeconds,
                MaxSeconds, parser.value(timeoutOpt));
            return false;
        }
        m_timeoutMs = qRound64(*seconds * 1000);
    }

    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty()) {
        *error = tr("no command given (one of: %1)").arg(Commands.join(QStringLiteral(", ")));
        return false;
    }
    m_command = positional.first();
    m_commandArgs = positional.mid(1);
    if ((m_command == QLatin1String("call") || m_command == QLatin1String("prompt")
            || m_command == QLatin1String("load"))
        && m_commandArgs.size() > 1) {
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
    if (parser.isSet(forOpt)) {
        constexpr double MinFor = 0.001;
        constexpr double MaxFor = std::numeric_limits<int>::max() / 1000;
        const auto seconds = CliNumbers::parse(parser.value(forOpt), MinFor, MaxFor);
        if (m_command != QLatin1String("subscribe") || !seconds) {
            *error = m_command != QLatin1String("subscribe")
                ? tr("--for is for the subscribe command")
                : CliNumbers::rangeError(
                    QStringLiteral("--for"), tr("a number of seconds"), MinFor, MaxFor, parser.value(forOpt));
            return false;
        }
        m_forMs = qRound64(*seconds * 1000);
    }
    if (!parseLoadOptions(parser, concurrencyOpt, durationOpt, requestsOpt, rateOpt, faultOpt, error))
        return false;
    if (parser.isSet(taskOpt)) {
        if (m_command != QLatin1String("call")) {
            *error = tr("--task is for the call command");
            return false;
        }
        m_task = true;
    }
    if (parser.isSet(outOpt)) {
        if (m_command != QLatin1String("read")) {
            *error = tr("--out is for the read command");
            return false;
        }
        m_outFile = parser.value(outOpt);
    }

    if (int(parser.isSet(stdioOpt)) + int(parser.isSet(serverOpt)) + int(parser.isSet(urlOpt)) != 1) {
        *error = tr("choose the server with exactly one of --stdio \"CMD\", --url URL and --server NAME --config FILE");
        return false;
    }
    if (parser.isSet(urlOpt)) {
        const QUrl url(parser.value(urlOpt));
        if (!url.isValid() || url.host().isEmpty()
            || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https"))) {
            *error = tr("--url needs an http:// or https:// URL with a host, not '%1'")
                         .arg(HttpCommon::displayUrl(QUrl(parser.value(urlOpt))));
            return false;
        }
        m_config.name = url.host() + (url.port() > 0 ? QLatin1Char(':') + QString::number(url.port()) : QString());
        m_config.url = url;
        m_config.transport = TransportKind::AutoHttp;
    } else if (parser.isSet(stdioOpt)) {
        const QStringList words = CommandLine::split(parser.value(stdioOpt));
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
    for (const QCommandLineOption* option : { &headerOpt, &secretHeaderOpt }) {
        const bool secret = option == &secretHeaderOpt;
        for (const QString& header : parser.values(*option)) {
            const qsizetype colon = header.indexOf(QLatin1Char(':'));
            if (colon <= 0) {
                // Never echo a secret header back: the whole argument may be its value.
                *error = secret ? tr("--secret-header needs \"Name: value\"")
                                : tr("--header needs \"Name: value\", not '%1'").arg(header);
                return false;
            }
            const QString name = header.left(colon).trimmed();
            m_config.headers.append({ name, header.mid(colon + 1).trimmed() });
            if (secret)
                m_config.secretHeaders.append(name);
        }
    }
    if (parser.isSet(insecureOpt))
        m_config.tlsVerify = false;
    if (parser.isSet(eraOpt)) {
        const std::optional<ProtocolEra> era = protocolEraFromName(parser.value(eraOpt));
        if (!era) {
            *error = tr("--protocol-era must be auto, legacy or modern (got '%1')").arg(parser.value(eraOpt));
            return false;
        }
        m_config.era = *era;
    }
    if (!parseAuthOptions(parser, clientIdOpt, clientSecretOpt, clientKeyOpt, grantOpt, authBrowserOpt, error))
        return false;
    m_config.requestTimeoutMs = int(std::min<qint64>(m_timeoutMs, std::numeric_limits<int>::max()));
    if (parser.isSet(exitWaitOpt)) {
        constexpr double MaxExitWaitMs = 600'000;
        const auto ms = CliNumbers::parse(parser.value(exitWaitOpt), 0, MaxExitWaitMs, true);
        if (!ms) {
            *error = CliNumbers::rangeError(QStringLiteral("--exit-wait"), tr("a whole number of milliseconds"), 0,
                MaxExitWaitMs, parser.value(exitWaitOpt));
            return false;
        }
        m_config.exitWaitMs = int(*ms);
    } else if (!m_config.exitWaitMs) {
        // A one-shot command is done once its answer is in: the server gets a short while to exit on
        // its own (server-everything takes about 350 ms after EOF), then SIGTERM. The group is still
        // stopped and reaped before mcpscope-cli exits, so nothing is left behind.
        m_config.exitWaitMs = CliExitWaitMs;
    }

    QJsonObject script;
    if (parser.isSet(responsesOpt)) {
        QFile file;
        QString reason;
        if (!RegularFile::open(parser.value(responsesOpt), &file, &reason)) {
            *error = tr("cannot read responses file %1: %2").arg(parser.value(responsesOpt), reason);
            return false;
        }
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
        if (!doc.isObject()) {
            *error = tr("responses file %1 is not a JSON object: %2")
                         .arg(parser.value(responsesOpt), parseError.errorString());
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
    // Roots are declared when --root, a responses file or the server's configuration gives some.
    m_responder.setDeclareUnscriptedRoots(false);

    // A load's HTTP fault goes through the connection's embedded proxy.
    if (m_load.fault && m_config.isHttp())
        m_config.viaFaultProxy = true;
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
        QString reason;
        const bool opened = m_commandArgs.first() == QLatin1String("-")
            ? script.open(stdin, QIODevice::ReadOnly) || (reason = script.errorString(), false)
            : RegularFile::open(m_commandArgs.first(), &script, &reason);
        if (!opened) {
            *error = tr("cannot read script %1: %2").arg(m_commandArgs.first(), reason);
            return false;
        }
        m_script = QString::fromUtf8(script.readAll());
        // Checked before any server starts, so a typo costs nothing.
        ScriptRunner probe(nullptr, QString(), nullptr, m_out);
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

} // namespace mcpscope
