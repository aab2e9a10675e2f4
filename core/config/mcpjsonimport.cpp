#include "mcpjsonimport.h"

#include "registryserverjson.h"
#include "workspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSet>

#include <cmath>
#include <utility>

namespace mcpscope::McpJsonImport {

namespace {

struct Text
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::McpJsonImport)
};

constexpr QLatin1String kWorkspaceVersion("mcpscopeWorkspace");
constexpr QLatin1String kMcpServers("mcpServers");
constexpr QLatin1String kServers("servers");
constexpr QLatin1String kMcp("mcp");
constexpr QLatin1String kType("type");
constexpr QLatin1String kTransport("transport");
constexpr QLatin1String kCommand("command");
constexpr QLatin1String kArgs("args");
constexpr QLatin1String kEnv("env");
constexpr QLatin1String kCwd("cwd");
constexpr QLatin1String kUrl("url");
constexpr QLatin1String kHeaders("headers");
constexpr QLatin1String kLaunchCommand("launchCommand");

bool isJsonSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// QJsonParseError gives a byte offset; people need a line and a column in characters.
void lineAndColumn(const QByteArray& data, qsizetype offset, int* line, int* column)
{
    offset = qBound(qsizetype(0), offset, data.size());
    int lineNumber = 1;
    qsizetype lineStart = 0;
    for (qsizetype i = 0; i < offset; ++i) {
        if (data.at(i) == '\n') {
            ++lineNumber;
            lineStart = i + 1;
        }
    }
    int columnNumber = 1;
    for (qsizetype i = lineStart; i < offset; ++i) {
        if ((uchar(data.at(i)) & 0xC0) != 0x80) // skip UTF-8 continuation bytes
            ++columnNumber;
    }
    *line = lineNumber;
    *column = columnNumber;
}

std::optional<QString> resolveVariable(QStringView name, const QString& workspaceFolder)
{
    if (name == QLatin1String("workspaceFolder") || name == QLatin1String("workspaceRoot"))
        return workspaceFolder;
    if (name == QLatin1String("workspaceFolderBasename"))
        return QDir(workspaceFolder).dirName();
    if (name == QLatin1String("userHome"))
        return QDir::homePath();
    if (name == QLatin1String("pathSeparator") || name == QLatin1String("/"))
        return QString(QDir::separator());
    if (name.startsWith(QLatin1String("env:")))
        return qEnvironmentVariable(name.mid(4).toString().toLocal8Bit().constData());
    return std::nullopt;
}

QString expand(const QString& text, const QString& workspaceFolder, bool forCommandLine)
{
    QString out;
    qsizetype pos = 0;
    while (pos < text.size()) {
        const qsizetype start = text.indexOf(QLatin1String("${"), pos);
        const qsizetype end = start < 0 ? -1 : text.indexOf(QLatin1Char('}'), start + 2);
        if (end < 0)
            break;
        out += QStringView(text).mid(pos, start - pos);
        const std::optional<QString> value
            = resolveVariable(QStringView(text).mid(start + 2, end - start - 2), workspaceFolder);
        if (!value) {
            out += QStringView(text).mid(start, end - start + 1);
        } else if (forCommandLine && value->contains(QLatin1Char(' ')) && !value->contains(QLatin1Char('"'))) {
            // Keeps a clone path with spaces one argument for QProcess::splitCommand().
            out += QLatin1Char('"') + *value + QLatin1Char('"');
        } else {
            out += *value;
        }
        pos = end + 1;
    }
    out += QStringView(text).mid(pos);
    return out;
}

// Expands variables in the fields that name files, programs or endpoints, before the
// values are validated, so a URL such as http://localhost:${env:PORT}/mcp is checked
// as the user will connect to it.
QJsonObject expandEntry(QJsonObject entry, const QString& workspaceFolder)
{
    const auto expandString = [&](QLatin1String key, bool forCommandLine = false) {
        const QJsonValue value = entry.value(key);
        if (value.isString())
            entry.insert(key, expand(value.toString(), workspaceFolder, forCommandLine));
    };
    const auto expandObjectValues = [&](QLatin1String key) {
        if (!entry.value(key).isObject())
            return;
        QJsonObject object = entry.value(key).toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (it.value().isString())
                it.value() = expand(it.value().toString(), workspaceFolder, false);
        }
        entry.insert(key, object);
    };

    expandString(kCommand);
    expandString(kCwd);
    expandString(kUrl);
    expandString(kLaunchCommand, true);
    if (entry.value(kArgs).isArray()) {
        QJsonArray args = entry.value(kArgs).toArray();
        for (qsizetype i = 0; i < args.size(); ++i) {
            if (args.at(i).isString())
                args.replace(i, expand(args.at(i).toString(), workspaceFolder, false));
        }
        entry.insert(kArgs, args);
    }
    expandObjectValues(kEnv);
    expandObjectValues(kHeaders);
    return entry;
}

// Parse state for one file; fail() fills the caller's ConfigError.
class Importer
{
public:
    Importer(const QByteArray& json, QString fileName, ConfigError* error, QHash<QString, QJsonObject>* rawForms)
        : m_json(json)
        , m_fileName(std::move(fileName))
        , m_error(error)
        , m_rawForms(rawForms)
    { }

    std::optional<QList<ServerConfig>> run(Dialect* dialectOut);

private:
    std::nullopt_t fail(const QString& key, const QString& message)
    {
        m_error->file = m_fileName;
        m_error->key = key;
        m_error->message = message;
        return std::nullopt;
    }

    std::nullopt_t failAtOffset(qsizetype offset, const QString& message)
    {
        lineAndColumn(m_json, offset, &m_error->line, &m_error->column);
        return fail({}, message);
    }

    QString workspaceFolder(Dialect dialect) const;
    std::optional<QList<ServerConfig>> readWorkspace(const QJsonObject& root);
    bool readForeignServers(const QJsonValue& servers, const QString& path, Dialect dialect, QList<ServerConfig>* out);
    std::optional<ServerConfig> readForeignEntry(
        const QString& name, const QJsonValue& value, const QString& path, Dialect dialect);
    std::optional<ServerConfig> readServer(const QString& name, const QJsonObject& entry, const QString& path);

    const QByteArray& m_json;
    QString m_fileName;
    ConfigError* m_error;
    QHash<QString, QJsonObject>* m_rawForms;
    QString m_workspaceFolder;
};

QString Importer::workspaceFolder(Dialect dialect) const
{
    const QFileInfo file(m_fileName.isEmpty() ? QStringLiteral("mcp.json") : m_fileName);
    QString dir = file.absolutePath();
    if (dialect == Dialect::VsCode && QFileInfo(dir).fileName() == QLatin1String(".vscode"))
        return QFileInfo(dir).absolutePath();
    return dir;
}

std::optional<QList<ServerConfig>> Importer::run(Dialect* dialectOut)
{
    if (m_json.trimmed().isEmpty())
        return fail({}, Text::tr("the file is empty"));

    qsizetype unterminatedComment = -1;
    const QByteArray plain = stripJsonc(m_json, &unterminatedComment);
    if (unterminatedComment >= 0)
        return failAtOffset(unterminatedComment, Text::tr("not valid JSON: a /* comment is never closed"));
    if (plain.trimmed().isEmpty())
        return fail({}, Text::tr("the file is empty apart from comments"));

    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(plain, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return failAtOffset(parseError.offset, Text::tr("not valid JSON: %1").arg(parseError.errorString()));
    if (!document.isObject()) {
        return fail({},
            Text::tr("not an MCP configuration file: expected a JSON object with \"mcpServers\", "
                     "\"servers\" or \"mcpscopeWorkspace\""));
    }
    const QJsonObject root = document.object();

    const QJsonValue mcpSection = root.value(kMcp);
    const bool hasVsCodeSettings = mcpSection.isObject() && mcpSection.toObject().contains(kServers);
    Dialect dialect;
    if (root.contains(kWorkspaceVersion))
        dialect = Dialect::McpScopeWorkspace;
    else if (root.contains(kMcpServers))
        dialect = Dialect::ClaudeDesktop;
    else if (root.contains(kServers) || hasVsCodeSettings)
        dialect = Dialect::VsCode;
    else if (RegistryServerJson::isServerJson(root))
        dialect = Dialect::McpRegistry;
    else
        return fail({},
            Text::tr("not an MCP configuration file: it has no \"mcpServers\", \"servers\", "
                     "\"mcpscopeWorkspace\" or (as a registry server.json) \"packages\" or \"remotes\" key"));
    if (dialectOut)
        *dialectOut = dialect;
    m_workspaceFolder = workspaceFolder(dialect);

    switch (dialect) {
    case Dialect::McpScopeWorkspace:
        return readWorkspace(root);
    case Dialect::ClaudeDesktop: {
        QList<ServerConfig> servers;
        if (!readForeignServers(root.value(kMcpServers), kMcpServers, dialect, &servers))
            return std::nullopt;
        return servers;
    }
    case Dialect::VsCode: {
        QList<ServerConfig> servers;
        if (root.contains(kServers) && !readForeignServers(root.value(kServers), kServers, dialect, &servers))
            return std::nullopt;
        if (hasVsCodeSettings) {
            const QString path = kMcp + QLatin1Char('.') + kServers;
            if (!readForeignServers(mcpSection.toObject().value(kServers), path, dialect, &servers))
                return std::nullopt;
            // Top-level entries come first, so the repeat is always the one under "mcp".
            QSet<QString> names;
            for (const ServerConfig& server : std::as_const(servers)) {
                const QString& name = server.name;
                if (names.contains(name)) {
                    return fail(configKeyPath(path, name),
                        Text::tr("duplicate server name \"%1\": it is also defined in \"servers\"").arg(name));
                }
                names.insert(name);
            }
        }
        return servers;
    }
    case Dialect::McpRegistry: {
        RegistryServerJson::Problem problem;
        const auto entries = RegistryServerJson::toWorkspaceEntries(root, &problem);
        if (!entries)
            return fail(problem.key, problem.message);
        QList<ServerConfig> servers;
        for (const auto& [name, entry] : *entries) {
            const std::optional<ServerConfig> server = readServer(name, entry, configKeyPath(kServers, name));
            if (!server)
                return std::nullopt;
            servers.append(*server);
        }
        return servers;
    }
    }
    return std::nullopt;
}

std::optional<QList<ServerConfig>> Importer::readWorkspace(const QJsonObject& root)
{
    const QJsonValue version = root.value(kWorkspaceVersion);
    const double number = version.toDouble();
    if (!version.isDouble() || !std::isfinite(number) || std::trunc(number) != number || number < 1)
        return fail(kWorkspaceVersion, Text::tr("expected the workspace format version, a whole number from 1"));
    if (number > Workspace::FormatVersion) {
        return fail(kWorkspaceVersion,
            Text::tr("the workspace has format version %1, newer than the version %2 this "
                     "McpScope reads; open it with a newer McpScope")
                .arg(version.toInteger())
                .arg(Workspace::FormatVersion));
    }

    QList<ServerConfig> servers;
    const QJsonValue serversValue = root.value(kServers);
    if (serversValue.isUndefined() || serversValue.isNull())
        return servers;
    if (!serversValue.isObject())
        return fail(kServers, Text::tr("expected an object that maps server names to their settings"));
    const QJsonObject object = serversValue.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString path = configKeyPath(kServers, it.key());
        if (!it.value().isObject())
            return fail(path, Text::tr("expected an object with the server's settings"));
        const std::optional<ServerConfig> server = readServer(it.key(), it.value().toObject(), path);
        if (!server)
            return std::nullopt;
        servers.append(*server);
    }
    return servers;
}

bool Importer::readForeignServers(
    const QJsonValue& servers, const QString& path, Dialect dialect, QList<ServerConfig>* out)
{
    if (servers.isNull())
        return true;
    if (!servers.isObject()) {
        fail(path, Text::tr("expected an object that maps server names to their settings"));
        return false;
    }
    const QJsonObject object = servers.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::optional<ServerConfig> server
            = readForeignEntry(it.key(), it.value(), configKeyPath(path, it.key()), dialect);
        if (!server)
            return false;
        out->append(*server);
    }
    return true;
}

std::optional<TransportKind> foreignTransport(const QString& type, Dialect dialect)
{
    QString normalized = type.toLower();
    normalized.remove(QLatin1Char('-')).remove(QLatin1Char('_'));
    if (normalized == QLatin1String("stdio"))
        return TransportKind::Stdio;
    if (normalized == QLatin1String("sse"))
        return TransportKind::LegacySse;
    if (normalized == QLatin1String("streamablehttp"))
        return TransportKind::StreamableHttp;
    if (normalized == QLatin1String("http")) {
        // VS Code tries Streamable HTTP and falls back to SSE for "http"; the mcpServers
        // clients mean Streamable HTTP only.
        return dialect == Dialect::VsCode ? TransportKind::AutoHttp : TransportKind::StreamableHttp;
    }
    return std::nullopt;
}

std::optional<ServerConfig> Importer::readForeignEntry(
    const QString& name, const QJsonValue& value, const QString& path, Dialect dialect)
{
    if (!value.isObject())
        return fail(path, Text::tr("expected an object with \"command\" or \"url\""));
    const QJsonObject entry = value.toObject();

    // "type" is VS Code's and Claude Code's key; some mcpServers clients write "transport".
    const QLatin1String typeKey = entry.contains(kType) ? kType : kTransport;
    const QJsonValue typeValue = entry.value(typeKey);
    if (!typeValue.isUndefined() && !typeValue.isNull() && !typeValue.isString())
        return fail(configKeyPath(path, typeKey), Text::tr("expected a string"));
    const QString typeName = typeValue.toString();

    const auto present = [&entry](QLatin1String key) {
        const QJsonValue v = entry.value(key);
        return !v.isUndefined() && !v.isNull();
    };
    const bool hasCommand = present(kCommand);
    const bool hasUrl = present(kUrl);
    if (hasCommand && hasUrl)
        return fail(path, Text::tr("has both \"command\" and \"url\"; a server needs exactly one of them"));
    if (!hasCommand && !hasUrl)
        return fail(path, Text::tr("missing \"command\" or \"url\": a server needs one of them"));

    TransportKind transport = hasCommand ? TransportKind::Stdio : TransportKind::AutoHttp;
    if (!typeName.isEmpty()) {
        const std::optional<TransportKind> kind = foreignTransport(typeName, dialect);
        if (!kind) {
            return fail(configKeyPath(path, typeKey),
                Text::tr("unknown transport type \"%1\" (expected \"stdio\", \"http\" or \"sse\")").arg(typeName));
        }
        if (*kind == TransportKind::Stdio && !hasCommand)
            return fail(path, Text::tr("type \"%1\" needs \"command\", not \"url\"").arg(typeName));
        if (*kind != TransportKind::Stdio && !hasUrl)
            return fail(path, Text::tr("type \"%1\" needs \"url\", not \"command\"").arg(typeName));
        transport = *kind;
    }

    // Rewritten into the workspace form so there is one validator; fields that belong to
    // the other kind of transport and client-specific keys ("disabled", "inputs"...) drop out.
    QJsonObject workspaceForm;
    workspaceForm.insert(kTransport, transportKindName(transport));
    const QList<QLatin1String> keys
        = hasCommand ? QList<QLatin1String> { kCommand, kArgs, kEnv, kCwd } : QList<QLatin1String> { kUrl, kHeaders };
    for (const QLatin1String key : keys) {
        if (entry.contains(key))
            workspaceForm.insert(key, entry.value(key));
    }
    return readServer(name, workspaceForm, path);
}

std::optional<ServerConfig> Importer::readServer(const QString& name, const QJsonObject& entry, const QString& path)
{
    ConfigError error;
    ServerConfig server = ServerConfig::fromJson(name, expandEntry(entry, m_workspaceFolder), &error, path);
    if (!error.isNull())
        return fail(error.key, error.message);
    if (m_rawForms)
        m_rawForms->insert(name, entry);
    return server;
}

} // namespace

std::optional<QList<ServerConfig>> parse(const QByteArray& json, const QString& fileName, ConfigError* error,
    Dialect* dialect, QHash<QString, QJsonObject>* rawForms)
{
    ConfigError localError;
    ConfigError* err = error ? error : &localError;
    *err = ConfigError {};
    if (rawForms)
        rawForms->clear();
    return Importer(json, fileName, err, rawForms).run(dialect);
}

QByteArray stripJsonc(const QByteArray& json, qsizetype* unterminatedCommentAt)
{
    if (unterminatedCommentAt)
        *unterminatedCommentAt = -1;
    QByteArray out = json;
    char* data = out.data();
    const qsizetype size = out.size();
    qsizetype pendingComma = -1; // a comma that is trailing if the next token closes a container
    char lastToken = 0; // last significant character outside strings and comments

    qsizetype i = 0;
    while (i < size) {
        const char c = data[i];
        if (c == '"') {
            for (++i; i < size && data[i] != '"'; ++i) {
                if (data[i] == '\\')
                    ++i;
            }
            ++i;
            pendingComma = -1;
            lastToken = '"';
        } else if (c == '/' && i + 1 < size && data[i + 1] == '/') {
            for (; i < size && data[i] != '\n' && data[i] != '\r'; ++i)
                data[i] = ' ';
        } else if (c == '/' && i + 1 < size && data[i + 1] == '*') {
            const qsizetype start = i;
            data[i] = data[i + 1] = ' ';
            bool closed = false;
            for (i += 2; i < size; ++i) {
                if (data[i] == '*' && i + 1 < size && data[i + 1] == '/') {
                    data[i] = data[i + 1] = ' ';
                    i += 2;
                    closed = true;
                    break;
                }
                if (data[i] != '\n')
                    data[i] = ' ';
            }
            if (!closed && unterminatedCommentAt)
                *unterminatedCommentAt = start;
        } else if (isJsonSpace(c)) {
            ++i;
        } else {
            if ((c == '}' || c == ']') && pendingComma >= 0)
                data[pendingComma] = ' ';
            // A comma right after an opening bracket or another comma is not trailing but
            // a syntax error, which the JSON parser should report.
            pendingComma = (c == ',' && lastToken != '{' && lastToken != '[' && lastToken != ',') ? i : -1;
            lastToken = c;
            ++i;
        }
    }
    return out;
}

QString expandVariables(const QString& text, const QString& workspaceFolder, bool forCommandLine)
{
    return expand(text, workspaceFolder, forCommandLine);
}

} // namespace mcpscope::McpJsonImport
