#include "mcpheaders.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>

#include <cmath>

namespace mcpscope::McpHeaders {

namespace {
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::McpHeaders)
};

const QLatin1String Annotation("x-mcp-header");
const QLatin1String SentinelPrefix("=?base64?");
const QLatin1String SentinelSuffix("?=");

// Keywords whose subschemas are not reached through `properties` alone: an annotation under one of them
// makes the tool definition invalid.
const QStringList& unreachableKeywords()
{
    static const QStringList keywords { QStringLiteral("items"), QStringLiteral("prefixItems"),
        QStringLiteral("contains"), QStringLiteral("additionalProperties"), QStringLiteral("unevaluatedProperties"),
        QStringLiteral("unevaluatedItems"), QStringLiteral("propertyNames"), QStringLiteral("patternProperties"),
        QStringLiteral("dependentSchemas"), QStringLiteral("oneOf"), QStringLiteral("anyOf"), QStringLiteral("allOf"),
        QStringLiteral("not"), QStringLiteral("if"), QStringLiteral("then"), QStringLiteral("else"),
        QStringLiteral("$defs"), QStringLiteral("definitions") };
    return keywords;
}

bool isObjectValued(const QString& keyword)
{
    return keyword == QLatin1String("patternProperties") || keyword == QLatin1String("dependentSchemas")
        || keyword == QLatin1String("$defs") || keyword == QLatin1String("definitions");
}

bool isToken(const QString& text)
{
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$"));
    return token.match(text).hasMatch();
}

QString pathName(const QStringList& path)
{
    return path.isEmpty() ? QStringLiteral("<root>") : path.join(QLatin1Char('.'));
}

class Scanner
{
public:
    Scan result;

    bool visit(const QJsonValue& node, const QStringList& path, bool reachable)
    {
        if (!node.isObject())
            return true;
        const QJsonObject schema = node.toObject();
        if (schema.contains(Annotation) && !declare(schema, path, reachable))
            return false;
        const QJsonObject properties = schema.value(QLatin1String("properties")).toObject();
        for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
            if (!visit(it.value(), path + QStringList { it.key() }, reachable))
                return false;
        }
        for (const QString& keyword : unreachableKeywords()) {
            const QJsonValue sub = schema.value(keyword);
            if (sub.isUndefined())
                continue;
            const QStringList subPath = path + QStringList { QLatin1Char('<') + keyword + QLatin1Char('>') };
            QJsonArray branches;
            if (sub.isArray())
                branches = sub.toArray();
            else if (sub.isObject() && isObjectValued(keyword))
                for (const QJsonValue& v : sub.toObject())
                    branches.append(v);
            else
                branches.append(sub);
            for (const QJsonValue& branch : std::as_const(branches)) {
                if (!visit(branch, subPath, false))
                    return false;
            }
        }
        return true;
    }

private:
    QHash<QString, QString> m_seen;

    bool declare(const QJsonObject& schema, const QStringList& path, bool reachable)
    {
        if (!reachable || path.isEmpty()) {
            result.invalidReason = Text::tr("%1: x-mcp-header is only allowed on properties reached through "
                                            "'properties' alone (not items, oneOf/anyOf/allOf, $defs, …)")
                                       .arg(pathName(path));
            return false;
        }
        const QJsonValue raw = schema.value(Annotation);
        if (!raw.isString() || raw.toString().isEmpty()) {
            result.invalidReason = Text::tr("%1: x-mcp-header must be a non-empty string").arg(pathName(path));
            return false;
        }
        const QString header = raw.toString();
        if (!isToken(header)) {
            result.invalidReason = Text::tr("%1: x-mcp-header '%2' is not a valid HTTP header name (RFC 9110 token)")
                                       .arg(pathName(path), header);
            return false;
        }
        const QString type = schema.value(QLatin1String("type")).toString();
        // SEP-2243: string, integer and boolean only. The SDK v2 also takes `number`; conformance
        // 0.2.0-alpha.12 (http-invalid-tool-headers) and the spec do not.
        if (type != QLatin1String("string") && type != QLatin1String("integer") && type != QLatin1String("boolean")) {
            result.invalidReason = Text::tr("%1: x-mcp-header is only allowed on string, integer or boolean "
                                            "properties, not '%2'")
                                       .arg(pathName(path), type.isEmpty() ? QStringLiteral("<none>") : type);
            return false;
        }
        const QString lower = header.toLower();
        if (m_seen.contains(lower)) {
            result.invalidReason
                = Text::tr("x-mcp-header '%1' is declared twice (also as '%2')").arg(header, m_seen.value(lower));
            return false;
        }
        m_seen.insert(lower, header);
        result.params.append({ path, header });
        return true;
    }
};

bool needsBase64(const QString& value)
{
    if (value.isEmpty())
        return true;
    if (value.startsWith(SentinelPrefix) && value.endsWith(SentinelSuffix))
        return true;
    if (value != value.trimmed())
        return true;
    return std::any_of(value.cbegin(), value.cend(), [](QChar c) {
        const char16_t u = c.unicode();
        return !(u == 9 || (u >= 32 && u <= 126));
    });
}

std::optional<QString> primitiveText(const QJsonValue& value)
{
    if (value.isString())
        return value.toString();
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble()) {
        const double d = value.toDouble();
        if (!std::isfinite(d))
            return std::nullopt;
        constexpr double maxSafe = 9007199254740991.0;
        if (std::floor(d) == d) {
            if (std::abs(d) > maxSafe)
                return std::nullopt;
            return QString::number(qint64(d));
        }
        return QString::number(d, 'g', 17);
    }
    return std::nullopt;
}
} // namespace

Scan scan(const QJsonObject& inputSchema)
{
    Scanner scanner;
    scanner.visit(inputSchema, {}, true);
    if (!scanner.result.valid())
        scanner.result.params.clear();
    return scanner.result;
}

QByteArray encodeValue(const QString& value)
{
    if (!needsBase64(value))
        return value.toLatin1();
    return SentinelPrefix.latin1() + value.toUtf8().toBase64() + SentinelSuffix.latin1();
}

HeaderList paramHeaders(const QList<ParamHeader>& params, const QJsonObject& arguments)
{
    HeaderList out;
    for (const ParamHeader& param : params) {
        QJsonValue node = arguments;
        for (const QString& key : param.path) {
            if (!node.isObject()) {
                node = QJsonValue(QJsonValue::Undefined);
                break;
            }
            node = node.toObject().value(key);
        }
        if (node.isUndefined() || node.isNull())
            continue;
        const std::optional<QString> text = primitiveText(node);
        if (!text)
            continue;
        out.append({ QByteArrayLiteral("Mcp-Param-") + param.header.toLatin1(), encodeValue(*text) });
    }
    return out;
}

QString nameSource(const QString& method)
{
    if (method == QLatin1String("tools/call") || method == QLatin1String("prompts/get"))
        return QStringLiteral("name");
    if (method == QLatin1String("resources/read"))
        return QStringLiteral("uri");
    if (method == QLatin1String("tasks/get") || method == QLatin1String("tasks/update")
        || method == QLatin1String("tasks/cancel"))
        return QStringLiteral("taskId");
    return {};
}

} // namespace mcpscope::McpHeaders
