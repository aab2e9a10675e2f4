#include "exportcommand.h"

#include "calllog/calllogfile.h"
#include "calllog/harwriter.h"
#include "config/workspace.h"
#include "exitcodes.h"
#include "redactingoutput.h"

#include <QCommandLineParser>

namespace mcpscope {

ExportCommand::ExportCommand(QObject* parent)
    : QObject(parent)
    , m_err(RedactingOutput::standardError())
{ }

ExportCommand::~ExportCommand() = default;

int ExportCommand::run(const QStringList& args)
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
    const QString format = parser.value(formatOpt);
    if (!parser.isSet(formatOpt))
        return usage(tr("--format is required (jsonl, har or csv)"));
    const bool har = format == QLatin1String("har");
    if (format != QLatin1String("jsonl") && format != QLatin1String("csv") && !har)
        return usage(tr("unknown format '%1' (jsonl, har or csv)").arg(format));
    if (!parser.isSet(outOpt) || parser.value(outOpt).isEmpty())
        return usage(tr("--out FILE is required"));

    CallLogFilter filter;
    for (const QString& server : parser.values(serverOpt))
        filter.servers.insert(server);
    for (const QString& tool : parser.values(toolOpt))
        filter.tools.insert(tool);
    for (const QString& name : parser.values(outcomeOpt)) {
        const std::optional<CallOutcome> outcome = outcomeFromName(name);
        if (!outcome) {
            QStringList names;
            for (int i = 0; i <= int(CallOutcome::Interrupted); ++i)
                names.append(outcomeName(CallOutcome(i)));
            return usage(tr("unknown outcome '%1' (one of: %2)").arg(name, names.join(QStringLiteral(", "))));
        }
        filter.outcomes.append(*outcome);
    }
    filter.text = parser.value(textOpt);

    // A log written before the value redactor existed may hold secret values in plain text: the
    // workspaces given with --config name them (secretEnv values, credential headers, URL passwords).
    Redactor redactor;
    for (const QString& configPath : parser.values(configOpt)) {
        ConfigError configError;
        const auto workspace = Workspace::load(configPath, &configError);
        if (!workspace)
            return usage(configError.toString());
        for (const ServerConfig& server : workspace->servers)
            redactor.addServer(server);
    }

    const QString logPath = positional.first();
    const QString outPath = parser.value(outOpt);
    const CallLogReadResult log = CallLogReader::read(logPath);
    if (!log.ok) {
        // The error already names the first bad line; a line-by-line list of a binary file helps no one.
        // A LOG that is missing, a directory or unreadable is a wrong command line, not a failed transport.
        m_err << "mcpscope-cli export: " << log.error << '\n';
        m_err.flush();
        return ExitUsage;
    }
    for (const QString& problem : log.problems)
        m_err << "mcpscope-cli export: warning: " << problem << '\n';
    if (log.records.isEmpty() && log.problems.isEmpty())
        m_err << "mcpscope-cli export: " << tr("%1 holds no call records yet").arg(logPath) << '\n';
    QString error;
    bool written = false;
    if (har)
        written = HarWriter::write(outPath, log.records, filter, &error, redactor);
    else if (format == QLatin1String("csv"))
        written = CallLogWriter::writeCsv(outPath, log.records, filter, &error, redactor);
    else
        written = CallLogWriter::writeJsonl(outPath, log.records, filter, &error, redactor);
    if (!written) {
        m_err << "mcpscope-cli export: " << error << '\n';
        m_err.flush();
        return ExitTransportFailure;
    }
    m_err << tr("exported %1 of %2 call(s) to %3")
                 .arg(CallLogWriter::countMatching(log.records, filter))
                 .arg(log.records.size())
                 .arg(outPath);
    // Stdio calls and calls logged before wire exchanges were kept have no HTTP requests to show.
    if (har)
        m_err << tr(" (%1 HTTP request(s))").arg(HarWriter::countEntries(log.records, filter));
    m_err << '\n';
    m_err.flush();
    return ExitSuccess;
}

} // namespace mcpscope
