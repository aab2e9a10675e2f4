#include "schemavalidator.h"

// Without this valijson prints and calls abort() on a schema it cannot parse; this file is the only
// one that includes valijson, so the inline throw helpers stay the same in the whole program.
#define VALIJSON_USE_EXCEPTIONS 1
#include "wideqtjsonadapter.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <regex>

namespace mcpscope {

namespace {

using valijsonadapter::WideQtJsonAdapter;

/// valijson compiles `pattern` with std::regex while validating and throws on one it cannot read,
/// which would lose every other result: such patterns are left out, as a form does not check them.
QJsonValue withoutBadPatterns(const QJsonValue& node)
{
    if (node.isArray()) {
        QJsonArray array = node.toArray();
        for (auto it = array.begin(); it != array.end(); ++it)
            *it = withoutBadPatterns(*it);
        return array;
    }
    if (!node.isObject())
        return node;
    QJsonObject object = node.toObject();
    for (auto it = object.begin(); it != object.end();) {
        if (it.key() == QLatin1String("pattern") && it.value().isString()) {
            try {
                std::regex(it.value().toString().toStdString());
            } catch (const std::regex_error&) {
                it = object.erase(it);
                continue;
            }
        } else {
            it.value() = withoutBadPatterns(it.value());
        }
        ++it;
    }
    return object;
}

valijson::SchemaParser::Version draftOf(const QJsonObject& schema)
{
    const QString uri = schema.value(QStringLiteral("$schema")).toString();
    if (uri.contains(QLatin1String("draft-03")))
        return valijson::SchemaParser::kDraft3;
    if (uri.contains(QLatin1String("draft-04")))
        return valijson::SchemaParser::kDraft4;
    return valijson::SchemaParser::kDraft7;
}

bool parse(
    const QJsonValue& schemaValue, valijson::SchemaParser::Version draft, valijson::Schema& schema, QString* error)
{
    try {
        // valijson reports unsupported or malformed schemas by throwing; keep that inside this file.
        valijson::SchemaParser parser(draft);
        WideQtJsonAdapter adapter(schemaValue);
        parser.populateSchema(adapter, schema);
        return true;
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
}

} // namespace

SchemaValidator::Result SchemaValidator::check(const QJsonObject& schemaJson, const QJsonValue& value)
{
    Result result;
    const QJsonValue schemaValue = withoutBadPatterns(schemaJson);
    const auto draft = draftOf(schemaJson);
    auto schema = std::make_unique<valijson::Schema>();
    if (!parse(schemaValue, draft, *schema, &result.schemaError)) {
        // Schemas without `$schema` still write draft-04's boolean exclusiveMinimum/-Maximum.
        schema = std::make_unique<valijson::Schema>();
        QString draft4Error;
        if (schemaJson.contains(QStringLiteral("$schema"))
            || !parse(schemaValue, valijson::SchemaParser::kDraft4, *schema, &draft4Error))
            return result;
        result.schemaError.clear();
    }
    valijson::Validator validator;
    valijson::ValidationResults results;
    try {
        validator.validate(*schema, WideQtJsonAdapter(value), &results);
    } catch (const std::exception& e) {
        result.schemaError = QString::fromUtf8(e.what());
        return result;
    }
    valijson::ValidationResults::Error error;
    while (results.popError(error)) {
        Error e;
        e.description = QString::fromStdString(error.description);
        for (size_t i = 1; i < error.context.size(); ++i) {
            // valijson writes every step as "[key]" or "[index]".
            const QString part = QString::fromStdString(error.context[i]);
            e.path << (part.startsWith(QLatin1Char('[')) && part.endsWith(QLatin1Char(']'))
                    ? part.mid(1, part.size() - 2)
                    : part);
        }
        result.errors.append(e);
    }
    return result;
}

QString SchemaValidator::validate(const QJsonObject& schemaJson, const QJsonValue& value)
{
    const Result result = check(schemaJson, value);
    if (!result.schemaError.isEmpty())
        return QCoreApplication::translate("SchemaValidator", "the outputSchema could not be used: %1")
            .arg(result.schemaError);
    QStringList problems;
    for (const Error& error : result.errors) {
        if (problems.size() == 5)
            break;
        QString path = QStringLiteral("<root>");
        for (const QString& part : error.path)
            path += QLatin1Char('[') + part + QLatin1Char(']');
        problems.append(path + QStringLiteral(": ") + error.description);
    }
    return problems.join(QStringLiteral("; "));
}

} // namespace mcpscope
