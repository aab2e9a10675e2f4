#include "uritemplate.h"

#include <QRegularExpression>

namespace mcpscope::UriTemplate {

namespace {

struct Operator
{
    QString first;
    QString separator;
    bool named = false;
    QString ifEmpty;
    bool allowReserved = false;
};

Operator operatorOf(QChar c)
{
    switch (c.unicode()) {
    case '+':
        return { QString(), QStringLiteral(","), false, QString(), true };
    case '#':
        return { QStringLiteral("#"), QStringLiteral(","), false, QString(), true };
    case '.':
        return { QStringLiteral("."), QStringLiteral("."), false, QString(), false };
    case '/':
        return { QStringLiteral("/"), QStringLiteral("/"), false, QString(), false };
    case ';':
        return { QStringLiteral(";"), QStringLiteral(";"), true, QString(), false };
    case '?':
        return { QStringLiteral("?"), QStringLiteral("&"), true, QStringLiteral("="), false };
    case '&':
        return { QStringLiteral("&"), QStringLiteral("&"), true, QStringLiteral("="), false };
    default:
        return { QString(), QStringLiteral(","), false, QString(), false };
    }
}

bool isOperator(QChar c)
{
    return QStringView(u"+#./;?&").contains(c);
}

/// Percent-encodes everything outside unreserved (and, for + and #, reserved and existing
/// pct-encoded triplets), UTF-8 first (RFC 6570 §3.2.1).
QString encode(const QString& value, bool allowReserved)
{
    static const QByteArray unreserved = QByteArrayLiteral("-._~");
    static const QByteArray reserved = QByteArrayLiteral(":/?#[]@!$&'()*+,;=");
    const QByteArray utf8 = value.toUtf8();
    QString out;
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const char c = utf8.at(i);
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum || unreserved.contains(c) || (allowReserved && reserved.contains(c))) {
            out += QLatin1Char(c);
        } else if (allowReserved && c == '%' && i + 2 < utf8.size() && isxdigit(uchar(utf8.at(i + 1)))
            && isxdigit(uchar(utf8.at(i + 2)))) {
            out += QLatin1Char(c);
        } else {
            out += QStringLiteral("%%1").arg(uint(uchar(c)), 2, 16, QLatin1Char('0')).toUpper();
        }
    }
    return out;
}

struct VarSpec
{
    QString name;
    int prefix = 0;
    bool explode = false;
};

QList<VarSpec> specsOf(QStringView expression)
{
    QList<VarSpec> specs;
    for (QStringView part : expression.split(u',')) {
        VarSpec spec;
        if (part.endsWith(u'*')) {
            spec.explode = true;
            part.chop(1);
        }
        const qsizetype colon = part.indexOf(u':');
        if (colon >= 0) {
            spec.prefix = part.mid(colon + 1).toInt();
            part = part.left(colon);
        }
        spec.name = part.toString();
        specs.append(spec);
    }
    return specs;
}

QString expandExpression(QStringView expression, const QVariantMap& values)
{
    Operator op = operatorOf(QChar());
    if (!expression.isEmpty() && isOperator(expression.front())) {
        op = operatorOf(expression.front());
        expression = expression.mid(1);
    }
    QStringList parts;
    for (const VarSpec& spec : specsOf(expression)) {
        const QVariant value = values.value(spec.name);
        if (!value.isValid() || value.isNull())
            continue;
        const auto named = [&](const QString& name, const QString& encoded) {
            if (!op.named)
                return encoded;
            return encoded.isEmpty() ? QString(name + op.ifEmpty) : QString(name + QLatin1Char('=') + encoded);
        };
        if (value.typeId() == QMetaType::QVariantList) {
            // An ordered map: a list of [key, value] pairs.
            const QVariantList pairs = value.toList();
            if (pairs.isEmpty())
                continue;
            QStringList items;
            for (const QVariant& pair : pairs) {
                const QStringList kv = pair.toStringList();
                const QString k = encode(kv.value(0), op.allowReserved);
                const QString v = encode(kv.value(1), op.allowReserved);
                if (spec.explode)
                    items.append(op.named && v.isEmpty() ? QString(k + op.ifEmpty) : QString(k + QLatin1Char('=') + v));
                else
                    items << k << v;
            }
            parts.append(spec.explode ? items.join(op.separator) : named(spec.name, items.join(QLatin1Char(','))));
        } else if (value.typeId() == QMetaType::QStringList) {
            const QStringList list = value.toStringList();
            if (list.isEmpty())
                continue;
            QStringList items;
            for (const QString& item : list)
                items.append(
                    spec.explode ? named(spec.name, encode(item, op.allowReserved)) : encode(item, op.allowReserved));
            parts.append(spec.explode ? items.join(op.separator) : named(spec.name, items.join(QLatin1Char(','))));
        } else {
            QString text = value.toString();
            if (spec.prefix > 0)
                text = text.left(spec.prefix);
            parts.append(named(spec.name, encode(text, op.allowReserved)));
        }
    }
    return parts.isEmpty() ? QString() : op.first + parts.join(op.separator);
}

} // namespace

QStringList variables(const QString& uriTemplate)
{
    QStringList names;
    static const QRegularExpression expressionPattern(QStringLiteral("\\{([^}]*)\\}"));
    for (const QRegularExpressionMatch& match : expressionPattern.globalMatch(uriTemplate)) {
        QStringView expression = match.capturedView(1);
        if (!expression.isEmpty() && isOperator(expression.front()))
            expression = expression.mid(1);
        for (const VarSpec& spec : specsOf(expression)) {
            if (!spec.name.isEmpty() && !names.contains(spec.name))
                names.append(spec.name);
        }
    }
    return names;
}

QString expand(const QString& uriTemplate, const QVariantMap& values)
{
    QString out;
    qsizetype i = 0;
    while (i < uriTemplate.size()) {
        const qsizetype open = uriTemplate.indexOf(QLatin1Char('{'), i);
        const qsizetype close = open < 0 ? -1 : uriTemplate.indexOf(QLatin1Char('}'), open);
        if (open < 0 || close < 0) {
            out += QStringView(uriTemplate).mid(i);
            break;
        }
        out += QStringView(uriTemplate).mid(i, open - i);
        out += expandExpression(QStringView(uriTemplate).mid(open + 1, close - open - 1), values);
        i = close + 1;
    }
    return out;
}

} // namespace mcpscope::UriTemplate
