#include "inputschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace mcpscope {

namespace {

bool isIntegral(const QJsonValue& value)
{
    if (!value.isDouble())
        return false;
    const double d = value.toDouble();
    return std::isfinite(d) && std::trunc(d) == d;
}

/// Folds the common wrappers around a single schema into it: `anyOf: [X, {type: null}]`
/// (pydantic's Optional[X]), a one-element `allOf`, and `type: [X, "null"]`.
QJsonObject normalize(QJsonObject schema)
{
    for (const auto& combinator : { QStringLiteral("anyOf"), QStringLiteral("oneOf"), QStringLiteral("allOf") }) {
        const QJsonArray branches = schema.value(combinator).toArray();
        if (branches.isEmpty())
            continue;
        QJsonArray nonNull;
        for (const QJsonValue& branch : branches) {
            if (branch.toObject().value(QStringLiteral("type")).toString() != QLatin1String("null"))
                nonNull.append(branch);
        }
        const QJsonObject only = nonNull.size() == 1 ? nonNull.first().toObject() : QJsonObject();
        if (nonNull.size() != 1 || only.contains(QStringLiteral("const")))
            continue;
        schema.remove(combinator);
        for (auto it = only.begin(); it != only.end(); ++it) {
            if (!schema.contains(it.key()))
                schema.insert(it.key(), it.value());
        }
        return normalize(schema);
    }
    const QJsonValue type = schema.value(QStringLiteral("type"));
    if (type.isArray()) {
        QJsonArray nonNull;
        for (const QJsonValue& t : type.toArray()) {
            if (t.toString() != QLatin1String("null"))
                nonNull.append(t);
        }
        if (nonNull.size() == 1)
            schema.insert(QStringLiteral("type"), nonNull.first());
    }
    return schema;
}

/// The allowed values of an enum-like schema: `enum` (with the legacy `enumNames`), `const`, or a
/// `oneOf`/`anyOf` whose branches are all `const` (the titled enums of MCP elicitation).
std::optional<std::vector<InputOption>> enumOptions(const QJsonObject& schema)
{
    std::vector<InputOption> options;
    if (schema.value(QStringLiteral("enum")).isArray()) {
        const QJsonArray values = schema.value(QStringLiteral("enum")).toArray();
        const QJsonArray names = schema.value(QStringLiteral("enumNames")).toArray();
        for (qsizetype i = 0; i < values.size(); ++i) {
            const QString name = i < names.size() ? names.at(i).toString() : QString();
            options.push_back({ values.at(i), name.isEmpty() ? InputJson::label(values.at(i)) : name, {} });
        }
        return options.empty() ? std::nullopt : std::optional(options);
    }
    if (schema.contains(QStringLiteral("const"))) {
        const QJsonValue value = schema.value(QStringLiteral("const"));
        options.push_back({ value, InputJson::label(value), {} });
        return options;
    }
    for (const auto& combinator : { QStringLiteral("oneOf"), QStringLiteral("anyOf") }) {
        const QJsonArray branches = schema.value(combinator).toArray();
        if (branches.isEmpty())
            continue;
        for (const QJsonValue& branchValue : branches) {
            const QJsonObject branch = branchValue.toObject();
            if (!branch.contains(QStringLiteral("const")))
                return std::nullopt;
            const QJsonValue value = branch.value(QStringLiteral("const"));
            const QString title = branch.value(QStringLiteral("title")).toString();
            options.push_back({ value, title.isEmpty() ? InputJson::label(value) : title,
                branch.value(QStringLiteral("description")).toString() });
        }
        return options;
    }
    return std::nullopt;
}

InputSchema::Kind classify(const QJsonObject& schema)
{
    using Kind = InputSchema::Kind;
    if (schema.contains(QStringLiteral("$ref")))
        return Kind::Raw;
    if (enumOptions(schema))
        return Kind::Enum;
    if (schema.contains(QStringLiteral("oneOf")) || schema.contains(QStringLiteral("anyOf"))
        || schema.contains(QStringLiteral("allOf")))
        return Kind::Raw;
    const QString type = schema.value(QStringLiteral("type")).toString();
    if (type == QLatin1String("string"))
        return Kind::String;
    if (type == QLatin1String("number"))
        return Kind::Number;
    if (type == QLatin1String("integer"))
        return Kind::Integer;
    if (type == QLatin1String("boolean"))
        return Kind::Boolean;
    if (type == QLatin1String("array")) {
        const QJsonValue items = schema.value(QStringLiteral("items"));
        if (items.isArray())
            return Kind::Raw; // tuple validation
        if (items.isObject() && enumOptions(normalize(items.toObject())))
            return Kind::EnumSet;
        return Kind::Array;
    }
    if ((type == QLatin1String("object") || type.isEmpty()) && schema.value(QStringLiteral("properties")).isObject())
        return Kind::Object;
    // Maps (`additionalProperties` only), untyped values, null, and type unions.
    return Kind::Raw;
}

std::optional<qint64> count(const QJsonObject& schema, const char* keyword)
{
    const QJsonValue value = schema.value(QLatin1String(keyword));
    return value.isDouble() ? std::optional(value.toInteger(qint64(value.toDouble()))) : std::nullopt;
}

/// draft-04 spells exclusive bounds as booleans beside minimum/maximum, draft-06+ as numbers.
void readBound(const QJsonObject& schema, const char* inclusive, const char* exclusive, std::optional<double>& bound,
    bool& isExclusive)
{
    const QJsonValue value = schema.value(QLatin1String(inclusive));
    const QJsonValue exclusiveValue = schema.value(QLatin1String(exclusive));
    if (value.isDouble()) {
        bound = value.toDouble();
        isExclusive = exclusiveValue.toBool(false);
    }
    if (exclusiveValue.isDouble()) {
        bound = exclusiveValue.toDouble();
        isExclusive = true;
    }
}

} // namespace

InputSchema InputSchema::fromSchema(const QJsonObject& given)
{
    InputSchema field;
    field.source = given;
    field.schema = normalize(given);
    const QJsonObject& schema = field.schema;
    field.kind = classify(schema);
    field.type = schema.value(QStringLiteral("type")).toString();
    field.title = schema.value(QStringLiteral("title")).toString();
    field.description = schema.value(QStringLiteral("description")).toString();
    field.format = schema.value(QStringLiteral("format")).toString();
    field.defaultValue = schema.value(QStringLiteral("default"));
    readBound(schema, "minimum", "exclusiveMinimum", field.minimum, field.exclusiveMinimum);
    readBound(schema, "maximum", "exclusiveMaximum", field.maximum, field.exclusiveMaximum);
    field.minLength = count(schema, "minLength");
    field.maxLength = count(schema, "maxLength");
    field.minItems = count(schema, "minItems");
    field.maxItems = count(schema, "maxItems");
    field.pattern = schema.value(QStringLiteral("pattern")).toString();

    switch (field.kind) {
    case Kind::Enum:
        field.options = *enumOptions(schema);
        break;
    case Kind::EnumSet:
    case Kind::Array:
        field.items = std::make_shared<const InputSchema>(fromSchema(schema.value(QStringLiteral("items")).toObject()));
        if (field.kind == Kind::EnumSet)
            field.options = field.items->options;
        break;
    case Kind::Object: {
        const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
        QStringList requiredKeys;
        for (const QJsonValue& key : schema.value(QStringLiteral("required")).toArray())
            requiredKeys << key.toString();
        // QJsonObject has lost the schema's property order; required fields first reads best.
        QStringList keys = properties.keys();
        std::stable_partition(
            keys.begin(), keys.end(), [&requiredKeys](const QString& key) { return requiredKeys.contains(key); });
        for (const QString& key : keys)
            field.properties.push_back(
                { key, requiredKeys.contains(key), fromSchema(properties.value(key).toObject()) });
        break;
    }
    default:
        break;
    }
    return field;
}

InputSchema InputSchema::forArguments(const QJsonObject& given)
{
    QJsonObject schema = normalize(given);
    if (!schema.contains(QStringLiteral("properties")) && !schema.contains(QStringLiteral("additionalProperties"))
        && !schema.contains(QStringLiteral("$ref")))
        schema.insert(QStringLiteral("properties"), QJsonObject());
    InputSchema field = fromSchema(schema);
    field.source = given;
    return field;
}

const InputSchema* InputSchema::find(const QStringList& path) const
{
    const InputSchema* field = this;
    for (const QString& part : path) {
        if (field->items) {
            field = field->items.get();
        } else if (field->kind == Kind::Object) {
            const auto it = std::find_if(field->properties.begin(), field->properties.end(),
                [&part](const Property& property) { return property.key == part; });
            if (it == field->properties.end())
                return nullptr;
            field = &it->field;
        } else {
            return nullptr;
        }
    }
    return field;
}

std::optional<QJsonValue> InputJson::parse(const QString& text, QString* error)
{
    const QByteArray utf8 = text.toUtf8();
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson("[" + utf8 + "]", &parseError);
    if (parseError.error == QJsonParseError::NoError) {
        const QJsonArray array = doc.array();
        if (array.size() == 1)
            return array.first();
        if (error)
            *error = array.isEmpty() ? InputSchema::tr("empty JSON") : InputSchema::tr("more than one JSON value");
        return std::nullopt;
    }
    if (error) {
        // The offset counts UTF-8 bytes of the wrapped text and mostly lands just past the offending
        // character; map it back to that character's line and column.
        const qsizetype offset = std::clamp<qsizetype>(parseError.offset - 2, 0, utf8.size());
        const QString before = QString::fromUtf8(utf8.left(offset));
        const qsizetype line = before.count(QLatin1Char('\n')) + 1;
        const qsizetype column = before.size() - (before.lastIndexOf(QLatin1Char('\n')) + 1) + 1;
        *error = InputSchema::tr("line %1, column %2: %3").arg(line).arg(column).arg(parseError.errorString());
    }
    return std::nullopt;
}

QString InputJson::compact(const QJsonValue& value)
{
    // QJsonDocument holds only objects and arrays, so scalars travel inside a one-element array.
    const QByteArray wrapped = QJsonDocument(QJsonArray { value }).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

QString InputJson::pretty(const QJsonValue& value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Indented)).trimmed();
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Indented)).trimmed();
    return compact(value);
}

QString InputJson::number(const QJsonValue& value)
{
    const double d = value.toDouble();
    // Integers beyond 2^53 keep every digit: Qt stores them as qint64.
    if (isIntegral(value) && std::abs(d) < 9.3e18)
        return QString::number(value.toInteger(static_cast<qint64>(d)));
    return QString::number(d, 'g', QLocale::FloatingPointShortest);
}

QString InputJson::typeName(const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("boolean");
    case QJsonValue::Double:
        return QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("undefined");
}

QString InputJson::label(const QJsonValue& value)
{
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return number(value);
    return compact(value);
}

QString InputJson::childPath(const QString& path, const QString& key)
{
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_$][A-Za-z0-9_$-]*$"));
    if (identifier.match(key).hasMatch())
        return path + QLatin1Char('.') + key;
    QString escaped = key;
    escaped.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return path + QStringLiteral("[\"") + escaped + QStringLiteral("\"]");
}

bool InputJson::isAtOrBelow(const QString& path, const QString& ancestor)
{
    return path == ancestor || path.startsWith(ancestor + QLatin1Char('.'))
        || path.startsWith(ancestor + QLatin1Char('['));
}

} // namespace mcpscope
