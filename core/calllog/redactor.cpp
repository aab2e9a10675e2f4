#include "redactor.h"

#include "config/serverconfig.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace mcpscope {

namespace {
constexpr qsizetype MinSecretLength = 4;

/// How value appears inside a JSON string literal, so a secret is found in raw JSON text too.
QString jsonEscaped(const QString& value)
{
    const QByteArray array = QJsonDocument(QJsonArray { value }).toJson(QJsonDocument::Compact);
    // ["..."] -> ...
    return QString::fromUtf8(array.mid(2, array.size() - 4));
}
} // namespace

Redactor::Redactor()
    : m_headers(defaultSensitiveHeaders())
{
    rebuild();
}

QStringList Redactor::defaultSensitiveHeaders()
{
    return { QStringLiteral("Authorization"), QStringLiteral("Proxy-Authorization"), QStringLiteral("Cookie"),
        QStringLiteral("Set-Cookie") };
}

void Redactor::addSensitiveHeader(const QString& name)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || isSensitiveName(trimmed))
        return;
    m_headers.append(trimmed);
    rebuild();
}

void Redactor::addSecretValue(const QString& value)
{
    if (value.size() < MinSecretLength)
        return;
    for (const QString& form : { value, jsonEscaped(value) }) {
        if (!m_values.contains(form))
            m_values.append(form);
    }
    // Longest first, so a secret that contains another is replaced whole.
    std::sort(m_values.begin(), m_values.end(), [](const QString& a, const QString& b) { return a.size() > b.size(); });
}

void Redactor::addServer(const ServerConfig& config)
{
    for (const QString& name : config.secretEnv)
        addSecretValue(config.env.value(name));
    for (const auto& [name, value] : config.headers) {
        if (!isSensitiveName(name))
            continue;
        addSecretValue(value);
        // "Bearer abc" is also sent as just the token elsewhere (e.g. in a query or an error text).
        const qsizetype space = value.indexOf(QLatin1Char(' '));
        if (space > 0)
            addSecretValue(value.mid(space + 1).trimmed());
    }
}

void Redactor::rebuild()
{
    QStringList escaped;
    for (const QString& name : std::as_const(m_headers))
        escaped.append(QRegularExpression::escape(name));
    const QString names = escaped.join(QLatin1Char('|'));
    m_jsonMember = QRegularExpression(QStringLiteral("(\"(?:%1)\"\\s*:\\s*)\"(?:[^\"\\\\]|\\\\.)*\"").arg(names),
        QRegularExpression::CaseInsensitiveOption);
    // A value ends at a line break, at a quote or at a backslash: the end of a header line, of a JSON
    // string, or an escaped line break inside raw JSON.
    m_headerLine
        = QRegularExpression(QStringLiteral("\\b((?:%1)\\s*:[ \\t]*)(?!\\[redacted\\])[^\\r\\n\"\\\\]+").arg(names),
            QRegularExpression::CaseInsensitiveOption);
}

bool Redactor::isSensitiveName(const QString& name) const
{
    return m_headers.contains(name, Qt::CaseInsensitive);
}

bool Redactor::mentionsHeader(const QString& text) const
{
    for (const QString& name : m_headers) {
        if (text.contains(name, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

QString Redactor::redactText(const QString& text) const
{
    QString out = text;
    for (const QString& value : m_values)
        out.replace(value, placeholder());
    if (mentionsHeader(out)) {
        out.replace(m_jsonMember, QStringLiteral("\\1\"[redacted]\""));
        out.replace(m_headerLine, QStringLiteral("\\1[redacted]"));
    }
    return out;
}

QJsonValue Redactor::redactJson(const QJsonValue& value) const
{
    switch (value.type()) {
    case QJsonValue::String:
        return redactText(value.toString());
    case QJsonValue::Array: {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            array[i] = redactJson(array.at(i));
        return array;
    }
    case QJsonValue::Object: {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (isSensitiveName(it.key()))
                it.value() = placeholder();
            else
                it.value() = redactJson(it.value());
        }
        return object;
    }
    default:
        return value;
    }
}

QJsonObject Redactor::redactRecord(const CallRecord& record) const
{
    return redactJson(record.toJson()).toObject();
}

QByteArray Redactor::redactWire(const QByteArray& bytes) const
{
    const QString text = QString::fromUtf8(bytes);
    const QString redacted = redactText(text);
    if (redacted == text)
        return bytes;
    return redacted.toUtf8();
}

} // namespace mcpscope
