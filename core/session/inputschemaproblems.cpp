#include "inputschema.h"
#include "schemavalidator.h"

#include <QDate>
#include <QJsonArray>
#include <QRegularExpression>
#include <QUrl>
#include <QUuid>

#include <algorithm>
#include <cmath>

// InputSchema::problems(): valijson decides what is wrong; this file says it in the form's words,
// with the field's path and the schema's own numbers, and drops valijson's summary lines
// ("Failed to validate item #0 in array.") above the nested problems that explain them.

namespace mcpscope {

namespace {

/// One valijson error, placed in the form: its path as the form names fields, the field the
/// form shows there (nullptr inside a Raw value) and the value found there.
struct Located
{
    QString path;
    const InputSchema* field = nullptr;
    QJsonValue value;
    QString description;
    bool summary = false;
};

bool isSummary(const QString& description)
{
    static const char* const prefixes[] = {
        "Failed to validate against schema associated with property name",
        "Failed to validate item #",
        "Failed to validate against any schemas allowed by anyOf",
        "Failed to validate against any child schemas allowed by oneOf",
        "Failed to validate against child schema #",
        "Failed to validate against additional properties schema",
        "Failed to validate against a conditional schema",
        "Failed to validate against dependent schema",
        "Failed to validate against schema associated with pattern",
    };
    return std::any_of(std::begin(prefixes), std::end(prefixes),
        [&description](const char* prefix) { return description.startsWith(QLatin1String(prefix)); });
}

Located locate(
    const InputSchema& root, const QString& rootPath, const QJsonValue& rootValue, const SchemaValidator::Error& error)
{
    Located where;
    where.path = rootPath;
    where.value = rootValue;
    where.description = error.description;
    where.summary = isSummary(error.description);
    QStringList steps = error.path;
    // A missing property is reported on its object; the form reports it on the field.
    static const QRegularExpression missing(QStringLiteral("^Missing required property '(.*)'\\.$"));
    const QRegularExpressionMatch m = missing.match(error.description);
    if (m.hasMatch())
        steps << m.captured(1);
    for (const QString& step : steps) {
        if (where.value.isArray()) {
            where.path += QLatin1Char('[') + step + QLatin1Char(']');
            where.value = where.value.toArray().at(step.toInt());
        } else if (where.value.isObject() || m.hasMatch()) {
            where.path = InputJson::childPath(where.path, step);
            where.value = where.value.toObject().value(step);
        } else {
            where.path += QLatin1Char('[') + step + QLatin1Char(']');
            where.value = QJsonValue::Undefined;
        }
    }
    where.field = root.find(steps);
    if (m.hasMatch())
        where.description = QStringLiteral("required");
    return where;
}

QString withArticle(const QString& type)
{
    if (type == QLatin1String("integer"))
        return InputSchema::tr("an integer");
    if (type == QLatin1String("object"))
        return InputSchema::tr("an object");
    if (type == QLatin1String("array"))
        return InputSchema::tr("an array");
    if (type == QLatin1String("null"))
        return QStringLiteral("null");
    return InputSchema::tr("a %1").arg(type);
}

bool hasType(const QJsonValue& value, const QString& type)
{
    if (type == QLatin1String("integer"))
        return value.isDouble() && std::trunc(value.toDouble()) == value.toDouble();
    return InputJson::typeName(value) == type;
}

QString oneOfText(const InputSchema& field, const QJsonValue& value)
{
    QStringList values;
    for (const InputOption& option : field.options)
        values << InputJson::compact(option.value);
    return InputSchema::tr("expected one of %1, got %2")
        .arg(values.join(QStringLiteral(", ")), InputJson::compact(value));
}

/// The schema's own number behind one of valijson's messages, which prints it with "%f".
QString boundText(const InputSchema* field, const QStringList& keywords, double printed)
{
    if (field) {
        for (const QString& keyword : keywords) {
            const QJsonValue value = field->schema.value(keyword);
            if (value.isDouble() && std::abs(value.toDouble() - printed) <= 1e-6 * std::max(1.0, std::abs(printed)))
                return InputJson::number(value);
        }
    }
    return InputJson::number(QJsonValue(printed));
}

/// The form's text for one of valijson's descriptions; an empty string drops the error.
QString translate(const Located& where)
{
    using Tr = InputSchema;
    const QString& d = where.description;
    const InputSchema* field = where.field;
    if (d == QLatin1String("required"))
        return Tr::tr("required");
    if (d == QLatin1String("Value type not permitted by 'type' constraint.")) {
        if (field && field->kind == InputSchema::Kind::Enum)
            return oneOfText(*field, where.value);
        if (!field || field->type.isEmpty()) {
            QStringList types;
            const QJsonValue type = field ? field->schema.value(QStringLiteral("type")) : QJsonValue();
            for (const QJsonValue& t : type.toArray())
                types << withArticle(t.toString());
            if (types.isEmpty())
                return Tr::tr("has the wrong type, got %1").arg(InputJson::compact(where.value));
            return Tr::tr("expected %1, got %2").arg(types.join(Tr::tr(" or ")), InputJson::compact(where.value));
        }
        // The value has the field's own type: the error is from a branch it was not meant for,
        // such as the `null` of Optional[X].
        if (hasType(where.value, field->type))
            return {};
        if (field->type == QLatin1String("integer") && where.value.isDouble())
            return Tr::tr("must be an integer, not %1").arg(InputJson::number(where.value));
        return Tr::tr("expected %1, got %2").arg(withArticle(field->type), InputJson::compact(where.value));
    }
    if (d == QLatin1String("Failed to match against any enum values.")
        || d == QLatin1String("Failed to match expected value set by 'const' constraint.")) {
        if (field && field->kind == InputSchema::Kind::Enum)
            return oneOfText(*field, where.value);
        return Tr::tr("not one of the allowed values, got %1").arg(InputJson::compact(where.value));
    }
    static const QRegularExpression bound(
        QStringLiteral("^Expected number (less|greater) than( or equal to)? (\\S+)$"));
    if (const auto m = bound.match(d); m.hasMatch()) {
        const bool less = m.captured(1) == QLatin1String("less");
        const bool orEqual = !m.captured(2).isEmpty();
        const QString number = boundText(field,
            less ? QStringList { QStringLiteral("maximum"), QStringLiteral("exclusiveMaximum") }
                 : QStringList { QStringLiteral("minimum"), QStringLiteral("exclusiveMinimum") },
            m.captured(3).toDouble());
        if (less)
            return (orEqual ? Tr::tr("must be ≤ %1") : Tr::tr("must be < %1")).arg(number);
        return (orEqual ? Tr::tr("must be ≥ %1") : Tr::tr("must be > %1")).arg(number);
    }
    static const QRegularExpression multiple(QStringLiteral("^Value should be a multiple of (\\S+)$"));
    if (const auto m = multiple.match(d); m.hasMatch())
        return Tr::tr("must be a multiple of %1")
            .arg(boundText(field, { QStringLiteral("multipleOf") }, m.captured(1).toDouble()));
    static const QRegularExpression length(
        QStringLiteral("^String should be no (fewer|more) than (\\d+) characters in length\\.$"));
    if (const auto m = length.match(d); m.hasMatch())
        return (m.captured(1) == QLatin1String("fewer") ? Tr::tr("shorter than %1 characters")
                                                        : Tr::tr("longer than %1 characters"))
            .arg(m.captured(2));
    static const QRegularExpression items(
        QStringLiteral("^Array should contain no (fewer|more) than (\\d+) elements\\.$"));
    if (const auto m = items.match(d); m.hasMatch()) {
        const bool choices = field && field->kind == InputSchema::Kind::EnumSet;
        if (m.captured(1) == QLatin1String("fewer"))
            return (choices ? Tr::tr("choose at least %1") : Tr::tr("needs at least %1 items")).arg(m.captured(2));
        return (choices ? Tr::tr("choose at most %1") : Tr::tr("allows at most %1 items")).arg(m.captured(2));
    }
    static const QRegularExpression properties(
        QStringLiteral("^Object should have no (fewer|more) than (\\d+) properties\\.$"));
    if (const auto m = properties.match(d); m.hasMatch())
        return (m.captured(1) == QLatin1String("fewer") ? Tr::tr("needs at least %1 properties")
                                                        : Tr::tr("allows at most %1 properties"))
            .arg(m.captured(2));
    static const QRegularExpression unique(
        QStringLiteral("^Elements at indexes #(\\d+) and #(\\d+) violate uniqueness constraint\\.$"));
    if (const auto m = unique.match(d); m.hasMatch())
        return Tr::tr("items %1 and %2 are equal").arg(m.captured(1), m.captured(2));
    static const QRegularExpression unexpected(QStringLiteral("^Object contains a property that could not be "
                                                              "validated using 'properties' or "
                                                              "'additionalProperties' constraints: '(.*)'\\.$"));
    if (const auto m = unexpected.match(d); m.hasMatch())
        return Tr::tr("unexpected property \"%1\"").arg(m.captured(1));
    static const QRegularExpression format(QStringLiteral("^String should be a valid (\\S+)$"));
    if (const auto m = format.match(d); m.hasMatch())
        return Tr::tr("not a valid %1").arg(m.captured(1));
    if (d == QLatin1String("Failed to match regex specified by 'pattern' constraint."))
        return field && !field->pattern.isEmpty() ? Tr::tr("does not match the pattern %1").arg(field->pattern)
                                                  : Tr::tr("does not match its pattern");
    if (d.startsWith(QLatin1String("Failed to validate against any schemas allowed by anyOf")))
        return Tr::tr("matches none of the schemas its anyOf allows");
    if (d.startsWith(QLatin1String("Failed to validate against any child schemas allowed by oneOf")))
        return Tr::tr("matches none of the schemas its oneOf allows");
    if (d == QLatin1String("Failed to validate against exactly one child schema."))
        return Tr::tr("matches more than one of the schemas its oneOf allows");
    return d;
}

/// The formats valijson 1.0 does not check (it checks date, time and date-time).
bool formatOk(const QString& format, const QString& s)
{
    if (format == QLatin1String("uri") || format == QLatin1String("url")) {
        const QUrl url(s, QUrl::StrictMode);
        return url.isValid() && !url.scheme().isEmpty();
    }
    if (format == QLatin1String("email")) {
        static const QRegularExpression email(QStringLiteral("^[^@\\s]+@[^@\\s]+$"));
        return email.match(s).hasMatch();
    }
    if (format == QLatin1String("uuid"))
        return !QUuid::fromString(s).isNull();
    return true;
}

void checkFormats(const InputSchema& field, const QJsonValue& value, const QString& path, QList<InputProblem>& out)
{
    if (value.isString() && !field.format.isEmpty() && !formatOk(field.format, value.toString()))
        out << InputProblem { path, InputSchema::tr("not a valid %1").arg(field.format) };
    if (field.kind == InputSchema::Kind::Object && value.isObject()) {
        const QJsonObject object = value.toObject();
        for (const InputSchema::Property& property : field.properties) {
            if (object.contains(property.key))
                checkFormats(property.field, object.value(property.key), InputJson::childPath(path, property.key), out);
        }
    } else if (field.items && value.isArray()) {
        const QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            checkFormats(*field.items, array.at(i), path + QStringLiteral("[%1]").arg(i), out);
    }
}

} // namespace

QList<InputProblem> InputSchema::problems(const QJsonValue& value, const QString& rootPath) const
{
    QList<InputProblem> out;
    const SchemaValidator::Result result = SchemaValidator::check(source, value);
    if (!result.schemaError.isEmpty())
        out << InputProblem { rootPath, tr("the schema cannot be checked: %1").arg(result.schemaError) };
    std::vector<Located> found;
    for (const SchemaValidator::Error& error : result.errors)
        found.push_back(locate(*this, rootPath, value, error));
    for (const Located& where : found) {
        if (where.summary) {
            const bool explained = std::any_of(found.begin(), found.end(), [&where](const Located& other) {
                return !other.summary && InputJson::isAtOrBelow(other.path, where.path);
            });
            if (explained)
                continue;
        }
        const QString text = translate(where);
        const InputProblem problem { where.path, text };
        if (!text.isEmpty() && !out.contains(problem))
            out << problem;
    }
    checkFormats(*this, value, rootPath, out);
    return out;
}

} // namespace mcpscope
