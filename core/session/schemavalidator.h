#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace mcpscope {

/// JSON Schema validation (valijson, Debian's libvalijson-dev) for tool output schemas and for
/// the arguments of the forms built from input schemas.
namespace SchemaValidator {

struct Error
{
    /// Where in the value: object keys and array indices, outermost first (no root element).
    QStringList path;
    /// valijson's own English text, such as "Missing required property 'city'.".
    QString description;
};

struct Result
{
    /// Set when the schema itself cannot be used (a remote $ref, a malformed keyword): why.
    QString schemaError;
    /// Every violation in valijson's order, including the summary errors it adds above nested
    /// ones ("Failed to validate against schema associated with property name 'x'.").
    QList<Error> errors;

    bool isValid() const { return schemaError.isEmpty() && errors.isEmpty(); }
};

/// Validates @p value against @p schema. The draft follows `$schema` (draft 7 when absent, draft 4
/// when only that reads boolean exclusive bounds); `pattern`s std::regex cannot compile are skipped.
Result check(const QJsonObject& schema, const QJsonValue& value);

/// Returns an empty string when value conforms, otherwise the first problems with their JSON paths.
QString validate(const QJsonObject& schema, const QJsonValue& value);

} // namespace SchemaValidator

} // namespace mcpscope
