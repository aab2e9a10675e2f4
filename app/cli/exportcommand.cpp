#include "exportcommand.h"

#include "auth/tokenstore.h"
#include "calllog/harwriter.h"
#include "config/workspace.h"
#include "engine/storedsecrets.h"
#include "exitcodes.h"
#include "redactingoutput.h"

#include <QCommandLineParser>

#include <algorithm>

namespace mcpscope {

ExportCommand::ExportCommand(QObject* parent)
    : QObject(parent)
    , m_err(RedactingOutput::standardError())
{ }

ExportCommand::~ExportCommand() = default;

int ExportCommand::start(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption formatOpt(QStringLiteral("format"), {}, QStringLiteral("jsonl|har|csv"));
    const QCommandLineOption outOpt(QStringLiteral("out"), {}, QStringLiteral("file"));
    const QCommandLineOption serverOpt(QStringLiteral("server"), {}, QStringLiteral("name"));
    const QCommandLineOption toolOpt(QStringLiteral("tool"), {}, QStringLiteral("name"));
    const QCommandLineOption outcomeOpt(QStringLiteral("outcome"), {}, QStringLiteral("name"));
    const QCommandLineOption textOpt(QStringLiteral("text"), {}, QStringLiteral("text"));
    const QCommandLineOption configOpt(QStringLiteral("config"), {}, QStringLiteral("file"));
    parser.addOptions({ formatOpt, outOpt, serverOpt, toolOpt, outcomeOpt, textOpt, configOpt });
    const auto usage = [this](const QString& message) {
        m_err
            << "mcpscope-cli export: " << message << "\n"
            << "Usage: mcpscope-cli export LOG --format jsonl|har|csv --out FILE [--server NAME]... [--tool NAME]...\n"
            << "                           [--outcome NAME]... [--text TEXT] [--config FILE]...\n";
        m_err.flush();
        return int(ExitUsage);
    };
    if (!parser.parse(QStringList { QStringLiteral("mcpscope-cli export") } + args))
        return usage(parser.errorText());
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usage(tr("no call log given"));
    if (positional.size() > 1)
        return usage(tr("unexpected argument '%1'").arg(positional.at(1)));
    m_format = parser.value(formatOpt);
    if (!parser.isSet(formatOpt))
        return usage(tr("--format is required (jsonl, har or csv)"));
    if (m_format != QLatin1String("jsonl") && m_format != QLatin1String("csv") && m_format != QLatin1String("har"))
        return usage(tr("unknown format '%1' (jsonl, har or csv)").arg(m_format));
    if (!parser.isSet(outOpt) || parser.value(outOpt).isEmpty())
        return usage(tr("--out FILE is required"));

    for (const QString& server : parser.values(serverOpt))
        m_filter.servers.insert(server);
    for (const QString& tool : parser.values(toolOpt))
        m_filter.tools.insert(tool);
    for (const QString& name : parser.values(outcomeOpt)) {
        const std::optional<CallOutcome> outcome = outcomeFromName(name);
        if (!outcome) {
            QStringList names;
            for (int i = 0; i <= int(CallOutcome::Interrupted); ++i)
                names.append(outcomeName(CallOutcome(i)));
            return usage(tr("unknown outcome '%1' (one of: %2)").arg(name, names.join(QStringLiteral(", "))));
        }
        m_filter.outcomes.append(*outcome);
    }
    m_filter.text = parser.value(textOpt);

    // A log written before the value redactor existed may hold secret values in plain text: the
    // workspaces given with --config name them (secretEnv values, credential headers, URL passwords).
    QList<ServerConfig> configured;
    for (const QString& configPath : parser.values(configOpt)) {
        ConfigError configError;
        const auto workspace = Workspace::load(configPath, &configError);
        if (!workspace)
            return usage(configError.toString());
        for (const ServerConfig& server : workspace->servers) {
            m_redactor.addServer(server);
            configured.append(server);
        }
    }
    RedactingOutput::setRedactor(m_redactor);

    m_logPath = positional.first();
    m_outPath = parser.value(outOpt);
    m_log = CallLogReader::read(m_logPath);
    if (!m_log.ok) {
        // The error already names the first bad line; a line-by-line list of a binary file helps no one.
        // A LOG that is missing, a directory or unreadable is a wrong command line, not a failed transport.
        m_err << "mcpscope-cli export: " << m_log.error << '\n';
        m_err.flush();
        return ExitUsage;
    }
    return readStoredSecrets(configured);
}

int ExportCommand::readStoredSecrets(const QList<ServerConfig>& configured)
{
    const QList<ServerConfig> servers = configured + StoredSecrets::serversOf(m_log.records);
    const bool anyHttp
        = std::any_of(servers.cbegin(), servers.cend(), [](const ServerConfig& s) { return s.isHttp(); });
    // Only a log or workspace with an HTTP server has tokens to look for: the keychain is not even asked
    // otherwise (its probe may take a moment when none answers).
    const std::shared_ptr<TokenStore> store = anyHttp ? TokenStore::createDefault() : nullptr;
    if (store && !store->isPersistent()) {
        m_err << "mcpscope-cli export: warning: "
              << tr("OAuth tokens are looked up in %1; tokens kept elsewhere are not recognised in %2")
                     .arg(store->description(), m_logPath)
              << '\n';
        m_err.flush();
    }
    // Answered at once (nothing to read) the caller gets the exit code; answered later, finished() does.
    m_readingStore = true;
    StoredSecrets::read(store, servers, this, [this](const QStringList& secrets, const QStringList& problems) {
        for (const QString& problem : problems)
            m_err << "mcpscope-cli export: warning: " << problem << '\n';
        for (const QString& secret : secrets)
            m_redactor.addSecretValue(secret);
        RedactingOutput::setRedactor(m_redactor);
        m_exitCode = write();
        if (!m_readingStore)
            Q_EMIT finished(m_exitCode);
    });
    m_readingStore = false;
    return m_exitCode;
}

int ExportCommand::write()
{
    for (const QString& problem : m_log.problems)
        m_err << "mcpscope-cli export: warning: " << problem << '\n';
    if (m_log.records.isEmpty() && m_log.problems.isEmpty())
        m_err << "mcpscope-cli export: " << tr("%1 holds no call records yet").arg(m_logPath) << '\n';
    const bool har = m_format == QLatin1String("har");
    QString error;
    bool written = false;
    if (har)
        written = HarWriter::write(m_outPath, m_log.records, m_filter, &error, m_redactor);
    else if (m_format == QLatin1String("csv"))
        written = CallLogWriter::writeCsv(m_outPath, m_log.records, m_filter, &error, m_redactor);
    else
        written = CallLogWriter::writeJsonl(m_outPath, m_log.records, m_filter, &error, m_redactor);
    if (!written) {
        m_err << "mcpscope-cli export: " << error << '\n';
        m_err.flush();
        return ExitTransportFailure;
    }
    m_err << tr("exported %1 of %2 call(s) to %3")
                 .arg(CallLogWriter::countMatching(m_log.records, m_filter))
                 .arg(m_log.records.size())
                 .arg(m_outPath);
    // Stdio calls and calls logged before wire exchanges were kept have no HTTP requests to show.
    if (har)
        m_err << tr(" (%1 HTTP request(s))").arg(HarWriter::countEntries(m_log.records, m_filter));
    m_err << '\n';
    m_err.flush();
    return ExitSuccess;
}

} // namespace mcpscope
