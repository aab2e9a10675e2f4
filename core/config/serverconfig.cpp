#include "serverconfig.h"

#include "jsonrpc/enumnames.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonValue>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace mcpscope {

namespace {

struct Text
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::ServerConfig)
};

constexpr QLatin1String kTransport("transport");
constexpr QLatin1String kCommand("command");
constexpr QLatin1String kArgs("args");
constexpr QLatin1String kEnv("env");
constexpr QLatin1String kCwd("cwd");
constexpr QLatin1String kSecretEnv("secretEnv");
constexpr QLatin1String kUrl("url");
constexpr QLatin1String kHeaders("headers");
constexpr QLatin1String kSecretHeaders("secretHeaders");
constexpr QLatin1String kTlsVerify("tlsVerify");
constexpr QLatin1String kLaunchCommand("launchCommand");
constexpr QLatin1String kOAuthClientId("oauthClientId");
constexpr QLatin1String kOAuthGrant("oauthGrant");
constexpr QLatin1String kRoots("roots");
constexpr QLatin1String kAutoReply("autoReply");
constexpr QLatin1String kEra("era");
constexpr QLatin1String kKnownEra("knownEra");
constexpr QLatin1String kRequestTimeoutMs("requestTimeoutMs");
constexpr QLatin1String kKeepaliveIntervalSec("keepaliveIntervalSec");
constexpr QLatin1String kMaxResponseBytes("maxResponseBytes");
constexpr QLatin1String kBreakerThreshold("breakerThreshold");
constexpr QLatin1String kBreakerCooldownSec("breakerCooldownSec");
constexpr QLatin1String kCountToolErrors("countToolErrors");
constexpr QLatin1String kIdempotentReplay("idempotentReplay");
constexpr QLatin1String kViaFaultProxy("viaFaultProxy");
constexpr QLatin1String kExitWaitMs("exitWaitMs");

// Doubles hold integers exactly only up to 2^53, and JSON numbers arrive as doubles.
constexpr qint64 kMaxJsonInteger = qint64(1) << 53;

// Reads typed fields of one JSON object and records the first problem with its key path.
// After a failure every further read is a no-op, so callers can read all fields and check once.
class FieldReader
{
public:
    FieldReader(QJsonObject object, QString path, ConfigError* error)
        : m_object(std::move(object))
        , m_path(std::move(path))
        , m_error(error)
    { }

    bool failed() const { return !m_error->isNull(); }

    void fail(QLatin1String key, const QString& message) { failAt(configKeyPath(m_path, key), message); }

    void failAt(const QString& keyPath, const QString& message)
    {
        if (failed())
            return;
        m_error->key = keyPath;
        m_error->message = message;
    }

    // A null value counts as absent: some generators write "cwd": null for "not set".
    bool present(QLatin1String key) const
    {
        const QJsonValue value = m_object.value(key);
        return !value.isUndefined() && !value.isNull();
    }

    void string(QLatin1String key, QString* out)
    {
        if (failed() || !present(key))
            return;
        const QJsonValue value = m_object.value(key);
        if (!value.isString())
            return fail(key, Text::tr("expected a string"));
        *out = value.toString();
    }

    void stringList(QLatin1String key, QStringList* out)
    {
        if (failed() || !present(key))
            return;
        const QJsonValue value = m_object.value(key);
        if (!value.isArray())
            return fail(key, Text::tr("expected an array of strings"));
        QStringList list;
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (!array.at(i).isString()) {
                return fail(key, Text::tr("expected an array of strings (item %1 is not a string)").arg(i + 1));
            }
            list.append(array.at(i).toString());
        }
        *out = list;
    }

    void stringObject(QLatin1String key, QList<QPair<QString, QString>>* out)
    {
        if (failed() || !present(key))
            return;
        const QJsonValue value = m_object.value(key);
        if (!value.isObject())
            return fail(key, Text::tr("expected an object of strings"));
        QList<QPair<QString, QString>> pairs;
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (!it.value().isString()) {
                return fail(key, Text::tr("expected an object of strings (\"%1\" is not a string)").arg(it.key()));
            }
            pairs.append({ it.key(), it.value().toString() });
        }
        *out = pairs;
    }

    void stringMap(QLatin1String key, QMap<QString, QString>* out)
    {
        QList<QPair<QString, QString>> pairs;
        stringObject(key, &pairs);
        if (failed() || !present(key))
            return;
        QMap<QString, QString> map;
        for (const auto& pair : std::as_const(pairs))
            map.insert(pair.first, pair.second);
        *out = map;
    }

    void object(QLatin1String key, QJsonObject* out)
    {
        if (failed() || !present(key))
            return;
        const QJsonValue value = m_object.value(key);
        if (!value.isObject())
            return fail(key, Text::tr("expected an object"));
        *out = value.toObject();
    }

    void boolean(QLatin1String key, bool* out)
    {
        if (failed() || !present(key))
            return;
        const QJsonValue value = m_object.value(key);
        if (!value.isBool())
            return fail(key, Text::tr("expected true or false"));
        *out = value.toBool();
    }

    void integer(QLatin1String key, qint64 min, qint64 max, qint64* out)
    {
        if (failed() || !present(key))
            return;
        const QJsonValue value = m_object.value(key);
        const double number = value.toDouble();
        if (!value.isDouble() || !std::isfinite(number) || std::trunc(number) != number)
            return fail(key, Text::tr("expected a whole number"));
        if (number < double(min))
            return fail(key, Text::tr("must be at least %1").arg(min));
        if (number > double(max))
            return fail(key, Text::tr("must be at most %1").arg(max));
        *out = value.toInteger();
    }

    void integer(QLatin1String key, int min, int* out)
    {
        qint64 wide = *out;
        integer(key, min, std::numeric_limits<int>::max(), &wide);
        *out = int(wide);
    }

private:
    QJsonObject m_object;
    QString m_path;
    ConfigError* m_error;
};

bool isValidServerUrl(const QUrl& url)
{
    const QString scheme = url.scheme();
    return url.isValid() && (scheme == QLatin1String("http") || scheme == QLatin1String("https"))
        && !url.host().isEmpty();
}

bool isPlainKey(const QString& name)
{
    const auto plain = [](QChar ch) {
        const char16_t c = ch.unicode();
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') || c == u'_'
            || c == u'-' || c == u'$';
    };
    return !name.isEmpty() && std::all_of(name.begin(), name.end(), plain);
}

} // namespace

namespace {
constexpr EnumName<TransportKind> TransportKindEntries[] = {
    { TransportKind::Stdio, u"stdio" },
    { TransportKind::StreamableHttp, u"http" },
    { TransportKind::LegacySse, u"sse" },
    { TransportKind::AutoHttp, u"auto" },
};
constexpr EnumNames<TransportKind> TransportKindNames(TransportKindEntries);
} // namespace

QString transportKindName(TransportKind kind)
{
    return TransportKindNames.name(kind);
}

std::optional<TransportKind> transportKindFromName(QStringView name)
{
    return TransportKindNames.fromName(name);
}

QString ConfigError::toString() const
{
    QString out = file;
    if (line > 0) {
        out += QLatin1Char(':') + QString::number(line);
        if (column > 0)
            out += QLatin1Char(':') + QString::number(column);
    }
    if (!out.isEmpty())
        out += QLatin1String(": ");
    if (!key.isEmpty())
        out += key + QLatin1String(": ");
    return out + message;
}

QString configKeyPath(const QString& parent, const QString& child)
{
    if (isPlainKey(child))
        return parent.isEmpty() ? child : parent + QLatin1Char('.') + child;
    QString escaped = child;
    escaped.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('"'), QLatin1String("\\\""));
    return parent + QLatin1String("[\"") + escaped + QLatin1String("\"]");
}

QJsonArray ServerConfig::rootsJson() const
{
    QJsonArray list;
    for (const QString& root : roots) {
        const QUrl url = root.startsWith(QLatin1String("file:")) ? QUrl(root) : QUrl::fromLocalFile(root);
        QString name = QFileInfo(url.toLocalFile()).fileName();
        if (name.isEmpty())
            name = url.toLocalFile();
        list.append(QJsonObject {
            { QStringLiteral("uri"), url.toString(QUrl::FullyEncoded) }, { QStringLiteral("name"), name } });
    }
    return list;
}

QJsonObject ServerConfig::toJson() const
{
    const ServerConfig defaults;
    QJsonObject json;
    if (transport != defaults.transport)
        json.insert(kTransport, transportKindName(transport));
    if (!command.isEmpty())
        json.insert(kCommand, command);
    if (!args.isEmpty())
        json.insert(kArgs, QJsonArray::fromStringList(args));
    if (!env.isEmpty()) {
        QJsonObject object;
        for (auto it = env.cbegin(); it != env.cend(); ++it)
            object.insert(it.key(), it.value());
        json.insert(kEnv, object);
    }
    if (!cwd.isEmpty())
        json.insert(kCwd, cwd);
    if (!secretEnv.isEmpty())
        json.insert(kSecretEnv, QJsonArray::fromStringList(secretEnv));
    if (!url.isEmpty())
        json.insert(kUrl, url.toString(QUrl::FullyEncoded));
    if (!headers.isEmpty()) {
        QJsonObject object;
        for (const auto& header : headers)
            object.insert(header.first, header.second);
        json.insert(kHeaders, object);
    }
    if (!secretHeaders.isEmpty())
        json.insert(kSecretHeaders, QJsonArray::fromStringList(secretHeaders));
    if (tlsVerify != defaults.tlsVerify)
        json.insert(kTlsVerify, tlsVerify);
    if (!launchCommand.isEmpty())
        json.insert(kLaunchCommand, launchCommand);
    if (!oauthClientId.isEmpty())
        json.insert(kOAuthClientId, oauthClientId);
    if (!oauthGrant.isEmpty())
        json.insert(kOAuthGrant, oauthGrant);
    if (!roots.isEmpty())
        json.insert(kRoots, QJsonArray::fromStringList(roots));
    if (!autoReply.isEmpty())
        json.insert(kAutoReply, autoReply);
    if (requestTimeoutMs != defaults.requestTimeoutMs)
        json.insert(kRequestTimeoutMs, requestTimeoutMs);
    if (era != defaults.era)
        json.insert(kEra, protocolEraName(era));
    if (knownEra)
        json.insert(kKnownEra, protocolEraName(*knownEra));
    if (keepaliveIntervalSec != defaults.keepaliveIntervalSec)
        json.insert(kKeepaliveIntervalSec, keepaliveIntervalSec);
    if (maxResponseBytes != defaults.maxResponseBytes)
        json.insert(kMaxResponseBytes, maxResponseBytes);
    if (breakerThreshold != defaults.breakerThreshold)
        json.insert(kBreakerThreshold, breakerThreshold);
    if (breakerCooldownSec != defaults.breakerCooldownSec)
        json.insert(kBreakerCooldownSec, breakerCooldownSec);
    if (countToolErrors != defaults.countToolErrors)
        json.insert(kCountToolErrors, countToolErrors);
    if (idempotentReplay != defaults.idempotentReplay)
        json.insert(kIdempotentReplay, idempotentReplay);
    if (viaFaultProxy != defaults.viaFaultProxy)
        json.insert(kViaFaultProxy, viaFaultProxy);
    if (exitWaitMs)
        json.insert(kExitWaitMs, *exitWaitMs);
    return json;
}

ServerConfig ServerConfig::fromJson(
    const QString& name, const QJsonObject& json, ConfigError* error, const QString& keyPath)
{
    ConfigError localError;
    ConfigError* err = error ? error : &localError;
    *err = ConfigError {};
    const QString path = keyPath.isEmpty() ? configKeyPath(QStringLiteral("servers"), name) : keyPath;

    if (name.isEmpty()) {
        err->key = path;
        err->message = Text::tr("the server name is empty");
        return {};
    }

    ServerConfig config;
    config.name = name;
    FieldReader reader(json, path, err);

    QString transportName;
    reader.string(kTransport, &transportName);
    std::optional<TransportKind> transport;
    if (!reader.failed() && !transportName.isEmpty()) {
        transport = transportKindFromName(transportName);
        if (!transport) {
            reader.fail(kTransport,
                Text::tr("unknown transport type \"%1\" (expected \"stdio\", \"http\", \"sse\" or \"auto\")")
                    .arg(transportName));
        }
    }

    reader.string(kCommand, &config.command);
    reader.stringList(kArgs, &config.args);
    reader.stringMap(kEnv, &config.env);
    reader.string(kCwd, &config.cwd);
    reader.stringList(kSecretEnv, &config.secretEnv);

    QString urlText;
    reader.string(kUrl, &urlText);
    if (!reader.failed() && !urlText.isEmpty()) {
        config.url = QUrl(urlText);
        if (!isValidServerUrl(config.url)) {
            reader.fail(kUrl, Text::tr("invalid URL \"%1\": expected an http or https URL with a host").arg(urlText));
        }
    }
    reader.stringObject(kHeaders, &config.headers);
    reader.stringList(kSecretHeaders, &config.secretHeaders);
    reader.boolean(kTlsVerify, &config.tlsVerify);
    reader.string(kLaunchCommand, &config.launchCommand);
    reader.string(kOAuthClientId, &config.oauthClientId);
    reader.string(kOAuthGrant, &config.oauthGrant);
    if (!reader.failed() && !config.oauthGrant.isEmpty() && config.oauthGrant != QLatin1String("authorization_code")
        && config.oauthGrant != QLatin1String("client_credentials"))
        reader.fail(kOAuthGrant,
            Text::tr("unknown OAuth grant \"%1\" (expected \"authorization_code\" or \"client_credentials\")")
                .arg(config.oauthGrant));

    reader.stringList(kRoots, &config.roots);
    reader.object(kAutoReply, &config.autoReply);
    QString eraName;
    reader.string(kEra, &eraName);
    if (!reader.failed() && !eraName.isEmpty()) {
        const std::optional<ProtocolEra> era = protocolEraFromName(eraName);
        if (era)
            config.era = *era;
        else
            reader.fail(kEra,
                Text::tr("unknown protocol era \"%1\" (expected \"auto\", \"legacy\" or \"modern\")").arg(eraName));
    }
    QString knownEraName;
    reader.string(kKnownEra, &knownEraName);
    // A cache, not a setting: a value McpScope cannot read is forgotten, never an error.
    if (const std::optional<ProtocolEra> known = protocolEraFromName(knownEraName);
        known && *known != ProtocolEra::Auto)
        config.knownEra = known;
    reader.integer(kRequestTimeoutMs, 1, &config.requestTimeoutMs);
    reader.integer(kKeepaliveIntervalSec, 0, &config.keepaliveIntervalSec);
    reader.integer(kMaxResponseBytes, 1, kMaxJsonInteger, &config.maxResponseBytes);
    reader.integer(kBreakerThreshold, 1, &config.breakerThreshold);
    reader.integer(kBreakerCooldownSec, 0, &config.breakerCooldownSec);
    reader.boolean(kCountToolErrors, &config.countToolErrors);
    reader.boolean(kIdempotentReplay, &config.idempotentReplay);
    reader.boolean(kViaFaultProxy, &config.viaFaultProxy);
    if (json.contains(kExitWaitMs)) {
        int exitWaitMs = 0;
        reader.integer(kExitWaitMs, 0, &exitWaitMs);
        config.exitWaitMs = exitWaitMs;
    }
    if (reader.failed())
        return {};

    if (transport)
        config.transport = *transport;
    else if (config.command.isEmpty() && !config.url.isEmpty())
        config.transport = TransportKind::AutoHttp;

    if (config.transport == TransportKind::Stdio && config.command.isEmpty()) {
        reader.failAt(path,
            transport || !config.url.isEmpty()
                ? Text::tr("missing \"command\", which a stdio server needs")
                : Text::tr("missing \"command\" or \"url\": a server needs one of them"));
        return {};
    }
    if (config.isHttp() && config.url.isEmpty()) {
        reader.failAt(path, Text::tr("missing \"url\", which an HTTP server needs"));
        return {};
    }
    return config;
}

} // namespace mcpscope
