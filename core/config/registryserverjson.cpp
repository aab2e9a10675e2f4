#include "registryserverjson.h"

#include "commandline.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QSet>
#include <QStringList>

namespace mcpscope::RegistryServerJson {

namespace {

struct Text
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::RegistryServerJson)
};

// The schema's camelCase keys; early drafts of the format wrote snake_case.
QJsonValue field(const QJsonObject& object, QLatin1String camel, QLatin1String snake = QLatin1String())
{
    const QJsonValue value = object.value(camel);
    if (!value.isUndefined() || snake.size() == 0)
        return value;
    return object.value(snake);
}

QJsonObject serverOf(const QJsonObject& root)
{
    // GET /v0/servers/{id} answers {"server": {...}, "_meta": {...}}.
    const QJsonValue inner = root.value(QLatin1String("server"));
    return inner.isObject() ? inner.toObject() : root;
}

// An argument's words: a positional one is its value (or its hint), a named one "--flag" and its value.
QStringList argumentWords(const QJsonValue& argument)
{
    if (argument.isString())
        return { argument.toString() };
    const QJsonObject object = argument.toObject();
    QString value = field(object, QLatin1String("value")).toString();
    if (value.isEmpty())
        value = field(object, QLatin1String("default")).toString();
    const QString type = field(object, QLatin1String("type")).toString();
    if (type == QLatin1String("named")) {
        const QString name = field(object, QLatin1String("name")).toString();
        QStringList words { name };
        if (!value.isEmpty())
            words.append(value);
        return name.isEmpty() ? QStringList() : words;
    }
    if (value.isEmpty())
        value = field(object, QLatin1String("valueHint"), QLatin1String("value_hint")).toString();
    return value.isEmpty() ? QStringList() : QStringList { value };
}

QStringList argumentList(const QJsonValue& arguments)
{
    QStringList words;
    for (const QJsonValue& argument : arguments.toArray())
        words += argumentWords(argument);
    return words;
}

// name → value pairs and the names of the secret ones, from environmentVariables or headers.
void readVariables(const QJsonValue& list, QJsonObject* values, QJsonArray* secrets)
{
    for (const QJsonValue& entry : list.toArray()) {
        const QJsonObject object = entry.toObject();
        const QString name = field(object, QLatin1String("name")).toString();
        if (name.isEmpty())
            continue;
        QString value = field(object, QLatin1String("value")).toString();
        if (value.isEmpty())
            value = field(object, QLatin1String("default")).toString();
        values->insert(name, value);
        if (field(object, QLatin1String("isSecret"), QLatin1String("is_secret")).toBool())
            secrets->append(name);
    }
}

QString transportName(const QString& type)
{
    if (type == QLatin1String("sse"))
        return QStringLiteral("sse");
    if (type == QLatin1String("streamable-http") || type == QLatin1String("streamable_http")
        || type == QLatin1String("http"))
        return QStringLiteral("http");
    return {};
}

struct Command
{
    QString program;
    QStringList args;
};

// How the registry type's usual one-shot runner starts the package.
std::optional<Command> packageCommand(
    const QJsonObject& package, const QString& registryType, const QJsonObject& env, QString* unsupported)
{
    const QString identifier = field(package, QLatin1String("identifier"), QLatin1String("name")).toString();
    const QString version = field(package, QLatin1String("version")).toString();
    const QString hint = field(package, QLatin1String("runtimeHint"), QLatin1String("runtime_hint")).toString();
    const QStringList runtimeArgs
        = argumentList(field(package, QLatin1String("runtimeArguments"), QLatin1String("runtime_arguments")));
    const QStringList packageArgs
        = argumentList(field(package, QLatin1String("packageArguments"), QLatin1String("package_arguments")));
    const bool pinned = !version.isEmpty() && version != QLatin1String("latest");
    Command command;
    if (registryType == QLatin1String("npm")) {
        command.program = hint.isEmpty() ? QStringLiteral("npx") : hint;
        command.args = runtimeArgs.isEmpty() && command.program == QLatin1String("npx")
            ? QStringList { QStringLiteral("-y") }
            : runtimeArgs;
        command.args.append(pinned ? identifier + QLatin1Char('@') + version : identifier);
    } else if (registryType == QLatin1String("pypi")) {
        command.program = hint.isEmpty() ? QStringLiteral("uvx") : hint;
        command.args = runtimeArgs;
        command.args.append(pinned ? identifier + QLatin1String("==") + version : identifier);
    } else if (registryType == QLatin1String("oci") || registryType == QLatin1String("docker")) {
        command.program = hint.isEmpty() ? QStringLiteral("docker") : hint;
        command.args = runtimeArgs.isEmpty()
            ? QStringList { QStringLiteral("run"), QStringLiteral("-i"), QStringLiteral("--rm") }
            : runtimeArgs;
        // The container sees the variables the server needs only when they are passed on.
        for (auto it = env.begin(); it != env.end(); ++it)
            command.args += { QStringLiteral("-e"), it.key() };
        command.args.append(
            pinned && !identifier.contains(QLatin1Char(':')) ? identifier + QLatin1Char(':') + version : identifier);
    } else if (registryType == QLatin1String("nuget")) {
        command.program = hint.isEmpty() ? QStringLiteral("dnx") : hint;
        command.args = runtimeArgs;
        command.args.append(pinned ? identifier + QLatin1Char('@') + version : identifier);
        command.args.append(QStringLiteral("--yes"));
    } else {
        *unsupported = registryType;
        return std::nullopt;
    }
    if (identifier.isEmpty()) {
        *unsupported = registryType;
        return std::nullopt;
    }
    command.args += packageArgs;
    return command;
}

} // namespace

bool isServerJson(const QJsonObject& root)
{
    const QJsonObject server = serverOf(root);
    return server.value(QLatin1String("packages")).isArray() || server.value(QLatin1String("remotes")).isArray()
        || server.value(QLatin1String("$schema")).toString().contains(QLatin1String("server.schema.json"));
}

std::optional<QList<QPair<QString, QJsonObject>>> toWorkspaceEntries(const QJsonObject& root, Problem* problem)
{
    const QJsonObject server = serverOf(root);
    QString base = server.value(QLatin1String("name")).toString();
    base = base.mid(base.lastIndexOf(QLatin1Char('/')) + 1);
    if (base.isEmpty())
        base = QStringLiteral("server");

    struct Candidate
    {
        QString kind;
        QJsonObject entry;
    };
    QList<Candidate> candidates;
    QStringList skipped;

    const QJsonArray packages = server.value(QLatin1String("packages")).toArray();
    for (qsizetype i = 0; i < packages.size(); ++i) {
        const QJsonObject package = packages.at(i).toObject();
        const QString registryType
            = field(package, QLatin1String("registryType"), QLatin1String("registry_name")).toString().toLower();
        QJsonObject env;
        QJsonArray secretEnv;
        readVariables(field(package, QLatin1String("environmentVariables"), QLatin1String("environment_variables")),
            &env, &secretEnv);
        QString unsupported;
        const std::optional<Command> command = packageCommand(package, registryType, env, &unsupported);
        if (!command) {
            skipped.append(unsupported.isEmpty() ? Text::tr("a package without a registry type") : unsupported);
            continue;
        }
        const QJsonObject transport = field(package, QLatin1String("transport")).toObject();
        const QString transportType = transportName(field(transport, QLatin1String("type")).toString());
        QJsonObject entry;
        if (!transportType.isEmpty() && !field(transport, QLatin1String("url")).toString().isEmpty()) {
            // A package that serves HTTP: McpScope starts it and connects to its URL.
            entry.insert(QLatin1String("transport"), transportType);
            entry.insert(QLatin1String("url"), field(transport, QLatin1String("url")).toString());
            QStringList words;
            if (!env.isEmpty()) {
                words.append(QStringLiteral("env"));
                for (auto it = env.begin(); it != env.end(); ++it)
                    words.append(it.key() + QLatin1Char('=') + it.value().toString());
            }
            words.append(command->program);
            words += command->args;
            entry.insert(QLatin1String("launchCommand"), CommandLine::join(words));
        } else {
            entry.insert(QLatin1String("transport"), QStringLiteral("stdio"));
            entry.insert(QLatin1String("command"), command->program);
            entry.insert(QLatin1String("args"), QJsonArray::fromStringList(command->args));
            if (!env.isEmpty())
                entry.insert(QLatin1String("env"), env);
            if (!secretEnv.isEmpty())
                entry.insert(QLatin1String("secretEnv"), secretEnv);
        }
        candidates.append({ registryType, entry });
    }

    const QJsonArray remotes = server.value(QLatin1String("remotes")).toArray();
    for (const QJsonValue& value : remotes) {
        const QJsonObject remote = value.toObject();
        const QString type = field(remote, QLatin1String("type"), QLatin1String("transport_type")).toString();
        const QString transport = transportName(type);
        const QString url = field(remote, QLatin1String("url")).toString();
        if (transport.isEmpty() || url.isEmpty()) {
            skipped.append(Text::tr("a remote of type \"%1\"").arg(type));
            continue;
        }
        QJsonObject entry;
        entry.insert(QLatin1String("transport"), transport);
        entry.insert(QLatin1String("url"), url);
        QJsonObject headers;
        QJsonArray secretHeaders;
        readVariables(field(remote, QLatin1String("headers")), &headers, &secretHeaders);
        if (!headers.isEmpty())
            entry.insert(QLatin1String("headers"), headers);
        if (!secretHeaders.isEmpty())
            entry.insert(QLatin1String("secretHeaders"), secretHeaders);
        candidates.append(
            { transport == QLatin1String("sse") ? QStringLiteral("remote, sse") : QStringLiteral("remote"), entry });
    }

    if (candidates.isEmpty()) {
        problem->key = QStringLiteral("packages");
        problem->message = skipped.isEmpty()
            ? Text::tr("this server.json lists no package and no remote to connect to")
            : Text::tr("McpScope cannot run any package or remote of this server.json (%1)")
                  .arg(skipped.join(QStringLiteral(", ")));
        return std::nullopt;
    }
    QList<QPair<QString, QJsonObject>> entries;
    QSet<QString> names;
    for (const Candidate& candidate : std::as_const(candidates)) {
        QString name = candidates.size() == 1 ? base : QStringLiteral("%1 (%2)").arg(base, candidate.kind);
        const QString unique = name;
        for (int n = 2; names.contains(name); ++n)
            name = QStringLiteral("%1 %2").arg(unique).arg(n);
        names.insert(name);
        entries.append({ name, candidate.entry });
    }
    return entries;
}

} // namespace mcpscope::RegistryServerJson
