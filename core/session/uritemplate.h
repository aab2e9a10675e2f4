#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace mcpscope {

/// RFC 6570 URI templates, level 4: the simple {x}, reserved {+x}, fragment {#x}, label {.x},
/// path {/x}, path-parameter {;x}, query {?x} and continuation {&x} forms, with prefixes {x:3}
/// and explosion {x*}. Pure functions: no state, safe on any thread.
namespace UriTemplate {

/// The variable names of template, in order of first appearance, each once.
QStringList variables(const QString& uriTemplate);

/// Expands template with values: a QString (or anything convertible to one), a QStringList (a
/// list), or a QVariantList of two-element QStringLists (an ordered map of key, value pairs).
/// An absent or null variable, an empty list and an empty map are undefined and expand to nothing.
QString expand(const QString& uriTemplate, const QVariantMap& values);

} // namespace UriTemplate

} // namespace mcpscope
