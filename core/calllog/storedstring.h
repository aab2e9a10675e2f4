#pragma once

// The bytes of a JSON string as the parsed document holds them, without QJsonValue::toString().

#include <QByteArray>
#include <QByteArrayView>
#include <QCborValue>

#include <functional>

namespace mcpscope {

/// Hands the UTF-8 bytes of a string value to sink, in one or more pieces, straight from the storage of
/// the document it was parsed into. QJsonValue::toString() of a 20 MB text builds a 40 MB QString (and
/// takes 12 ms); a document keeps an ASCII string as its bytes, and QCborValue::toCbor() passes those on
/// without a copy. A string the document keeps as UTF-16 arrives through one UTF-8 conversion, with a
/// lone surrogate as '?' or U+FFFD (as QString::toUtf8() writes it).
///
/// The value must share the document's storage: take it from QCborMap::fromJsonObject() or
/// QCborArray::fromJsonArray() of the parsed object or array (those share; QCborValue::fromJsonValue()
/// of a string converts it). Returns false, without calling sink, when value is no string.
bool storedStringUtf8(const QCborValue& value, const std::function<void(QByteArrayView)>& sink);

/// The same bytes, gathered in one QByteArray. A null QByteArray when value is no string.
QByteArray storedStringUtf8(const QCborValue& value);

} // namespace mcpscope
