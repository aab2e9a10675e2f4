#include "schemavalidator.h"

#include <QCoreApplication>
#include <QStringList>

#include <valijson/adapters/qtjson_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace mcpscope {

QString SchemaValidator::validate(const QJsonObject& schemaJson, const QJsonValue& value)
{
    valijson::Schema schema;
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    const QJsonValue schemaValue(schemaJson);
    try {
        // valijson reports unsupported or malformed schemas by throwing; keep that inside this function.
        valijson::adapters::QtJsonAdapter schemaAdapter(schemaValue);
        parser.populateSchema(schemaAdapter, schema);
    } catch (const std::exception& e) {
        return QCoreApplication::translate("SchemaValidator", "the outputSchema could not be used: %1")
            .arg(QString::fromUtf8(e.what()));
    }
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::QtJsonAdapter target(value);
    if (validator.validate(schema, target, &results))
        return {};
    QStringList problems;
    valijson::ValidationResults::Error error;
    while (results.popError(error) && problems.size() < 5) {
        QString path;
        for (const std::string& part : error.context)
            path += QString::fromStdString(part);
        problems.append(path + QStringLiteral(": ") + QString::fromStdString(error.description));
    }
    return problems.join(QStringLiteral("; "));
}

} // namespace mcpscope
