#pragma once

#include <QHash>
#include <QString>

#include <functional>

namespace mcpscope::secretmask {

/// What the server dialog shows in place of a secret value until the user asks to see it.
QString token();

/// Text of "KEY=value" or "Name: value" lines with the value of each line whose key is secret replaced by
/// token(); the values go into *hidden (key → value). Every other line stays as typed.
QString hide(const QString& text, QChar separator, const std::function<bool(const QString&)>& isSecret,
    QHash<QString, QString>* hidden);
/// The reverse: each line whose value is token() gets its key's hidden value back (a line the user retyped
/// keeps what was typed).
QString reveal(const QString& text, QChar separator, const QHash<QString, QString>& hidden);

/// A URL's text with its password replaced by token(), the password into *hidden; unchanged without one.
QString hideUrlPassword(const QString& url, QString* hidden);
/// The reverse of hideUrlPassword for a URL whose password is still token().
QString revealUrlPassword(const QString& url, const QString& hidden);

} // namespace mcpscope::secretmask
