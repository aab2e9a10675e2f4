#include "secretmask.h"

#include <QStringList>
#include <QUrl>

namespace mcpscope::secretmask {

namespace {

/// Calls map(key, value) for each "key<separator>value" line and puts back what it returns as the value;
/// a line without the separator stays as it is.
QString mapValues(
    const QString& text, QChar separator, const std::function<QString(const QString&, const QString&)>& map)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString& line : lines) {
        const qsizetype at = line.indexOf(separator);
        if (at <= 0)
            continue;
        const QString key = line.left(at).trimmed();
        const QString value = line.mid(at + 1).trimmed();
        const QString mapped = map(key, value);
        if (mapped != value)
            line = line.left(at + 1) + (separator == QLatin1Char(':') ? QStringLiteral(" ") : QString()) + mapped;
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString token()
{
    return QStringLiteral("••••••••");
}

QString hide(const QString& text, QChar separator, const std::function<bool(const QString&)>& isSecret,
    QHash<QString, QString>* hidden)
{
    return mapValues(text, separator, [&](const QString& key, const QString& value) {
        if (!isSecret(key) || value.isEmpty() || value == token())
            return value;
        hidden->insert(key, value);
        return token();
    });
}

QString reveal(const QString& text, QChar separator, const QHash<QString, QString>& hidden)
{
    return mapValues(text, separator, [&](const QString& key, const QString& value) {
        return value == token() && hidden.contains(key) ? hidden.value(key) : value;
    });
}

QString hideUrlPassword(const QString& url, QString* hidden)
{
    QUrl parsed(url);
    if (parsed.password().isEmpty() || parsed.password() == token())
        return url;
    *hidden = parsed.password();
    parsed.setPassword(token());
    return parsed.toString();
}

QString revealUrlPassword(const QString& url, const QString& hidden)
{
    QUrl parsed(url);
    if (hidden.isEmpty() || parsed.password() != token())
        return url;
    parsed.setPassword(hidden);
    return parsed.toString();
}

} // namespace mcpscope::secretmask
