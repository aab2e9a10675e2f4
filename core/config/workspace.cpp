#include "workspace.h"

#include "regularfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSet>

namespace mcpscope {

namespace {

struct Text
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::Workspace)
};

// Far above any real configuration; stops a mistaken pick of a huge file from being read
// into memory whole.
constexpr qint64 kMaxFileSize = 16LL * 1024 * 1024;

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
    std::optional<QList<ServerConfig>> servers = McpJsonImport::parse(data, path, err, &workspace.dialect);
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
    const QByteArray data = toJson();
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

QByteArray Workspace::toJson() const
{
    QJsonObject serverObjects;
    for (const ServerConfig& server : servers)
        serverObjects.insert(server.name, server.toJson());
    QJsonObject root;
    root.insert(QLatin1String("mcpscopeWorkspace"), FormatVersion);
    root.insert(QLatin1String("servers"), serverObjects);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace mcpscope
