#include "workspace.h"

#include "regularfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSet>
#include <QUrl>

namespace mcpscope {

namespace {

struct Text
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::Workspace)
};

// Far above any real configuration; stops a mistaken pick of a huge file from being read
// into memory whole.
constexpr qint64 kMaxFileSize = 16LL * 1024 * 1024;

// The expanded value of a raw string field when it holds a variable, else nothing to restore.
bool expandsTo(
    const QJsonValue& raw, const QJsonValue& current, const QString& folder, bool commandLine, bool isUrl = false)
{
    if (!raw.isString() || !current.isString() || !raw.toString().contains(QLatin1String("${")))
        return false;
    const QString expanded = McpJsonImport::expandVariables(raw.toString(), folder, commandLine);
    if (isUrl)
        return QUrl(expanded).toString(QUrl::FullyEncoded) == current.toString();
    return expanded == current.toString();
}

// json (ServerConfig::toJson) with each field that raw wrote with a variable, and whose expansion
// still gives json's value, written back as raw wrote it.
QJsonObject withPlaceholders(QJsonObject json, const QJsonObject& raw, const QString& folder)
{
    const auto restoreString = [&](QLatin1String key, bool commandLine, bool isUrl = false) {
        if (json.contains(key) && expandsTo(raw.value(key), json.value(key), folder, commandLine, isUrl))
            json.insert(key, raw.value(key));
    };
    restoreString(QLatin1String("command"), false);
    restoreString(QLatin1String("cwd"), false);
    restoreString(QLatin1String("url"), false, true);
    restoreString(QLatin1String("launchCommand"), true);
    const QLatin1String argsKey("args");
    if (json.value(argsKey).isArray() && raw.value(argsKey).isArray()) {
        QJsonArray args = json.value(argsKey).toArray();
        const QJsonArray rawArgs = raw.value(argsKey).toArray();
        for (qsizetype i = 0; i < args.size() && i < rawArgs.size(); ++i) {
            if (expandsTo(rawArgs.at(i), args.at(i), folder, false))
                args.replace(i, rawArgs.at(i));
        }
        json.insert(argsKey, args);
    }
    for (const QLatin1String key : { QLatin1String("env"), QLatin1String("headers") }) {
        if (!json.value(key).isObject() || !raw.value(key).isObject())
            continue;
        QJsonObject values = json.value(key).toObject();
        const QJsonObject rawValues = raw.value(key).toObject();
        for (auto it = values.begin(); it != values.end(); ++it) {
            if (expandsTo(rawValues.value(it.key()), it.value(), folder, false))
                it.value() = rawValues.value(it.key());
        }
        json.insert(key, values);
    }
    return json;
}

} // namespace

const ServerConfig* Workspace::find(QStringView name) const
{
    for (const ServerConfig& server : servers) {
        if (server.name == name)
            return &server;
    }
    return nullptr;
}

std::optional<Workspace> Workspace::load(const QString& path, ConfigError* error)
{
    ConfigError localError;
    ConfigError* err = error ? error : &localError;
    *err = ConfigError {};
    const auto fail = [&](const QString& message) {
        err->file = path;
        err->message = message;
        return std::nullopt;
    };

    const QFileInfo info(path);
    QFile file;
    QString reason;
    if (!RegularFile::open(path, &file, &reason))
        return fail(Text::tr("cannot open the file: %1").arg(reason));
    if (file.size() > kMaxFileSize) {
        return fail(Text::tr("the file is too large to be a configuration file (%1 bytes, at most %2)")
                        .arg(file.size())
                        .arg(kMaxFileSize));
    }
    // The file may grow between the size check and the read.
    const QByteArray data = file.read(kMaxFileSize + 1);
    if (file.error() != QFileDevice::NoError)
        return fail(Text::tr("cannot read the file: %1").arg(file.errorString()));
    if (data.size() > kMaxFileSize)
        return fail(
            Text::tr("the file is too large to be a configuration file (more than %1 bytes)").arg(kMaxFileSize));

    Workspace workspace;
    std::optional<QList<ServerConfig>> servers
        = McpJsonImport::parse(data, path, err, &workspace.dialect, &workspace.rawForms);
    if (!servers)
        return std::nullopt;
    workspace.servers = std::move(*servers);
    workspace.filePath = info.absoluteFilePath();
    return workspace;
}

bool Workspace::save(const QString& path, QString* error) const
{
    const QString displayPath = QDir::toNativeSeparators(path);
    const auto fail = [&](const QString& message) {
        if (error)
            *error = message;
        return false;
    };

    QSet<QString> names;
    for (const ServerConfig& server : servers) {
        if (names.contains(server.name)) {
            return fail(Text::tr("Cannot save the workspace to %1: two servers are named \"%2\"")
                            .arg(displayPath, server.name));
        }
        names.insert(server.name);
    }

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(Text::tr("Cannot save the workspace to %1: %2").arg(displayPath, file.errorString()));
    const QByteArray data = toJson(QFileInfo(path).absolutePath());
    if (file.write(data) != data.size()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return fail(Text::tr("Cannot save the workspace to %1: %2").arg(displayPath, reason));
    }
    if (!file.commit())
        return fail(Text::tr("Cannot save the workspace to %1: %2").arg(displayPath, file.errorString()));
    if (error)
        error->clear();
    return true;
}

QByteArray Workspace::toJson(const QString& workspaceFolder) const
{
    const QString folder
        = !workspaceFolder.isEmpty() || filePath.isEmpty() ? workspaceFolder : QFileInfo(filePath).absolutePath();
    QJsonObject serverObjects;
    for (const ServerConfig& server : servers) {
        const auto raw = rawForms.constFind(server.name);
        serverObjects.insert(server.name,
            raw == rawForms.constEnd() || folder.isEmpty() ? server.toJson()
                                                           : withPlaceholders(server.toJson(), *raw, folder));
    }
    QJsonObject root;
    root.insert(QLatin1String("mcpscopeWorkspace"), FormatVersion);
    root.insert(QLatin1String("servers"), serverObjects);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace mcpscope
