#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace mcpscope {

/// JSON Schema validation (valijson, Debian's libvalijson-dev) for tool output schemas.
namespace SchemaValidator {
/// Returns an empty string when value conforms, otherwise the first problems with their JSON paths.
QString validate(const QJsonObject& schema, const QJsonValue& value);
} // namespace SchemaValidator

} // namespace mcpscope
