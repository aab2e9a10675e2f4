#include "numberfield.h"

#include <QDoubleValidator>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QRegularExpressionValidator>

#include <cmath>

namespace mcpscope {

NumberField::NumberField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
    , m_integer(field.kind == InputSchema::Kind::Integer)
    , m_line(new QLineEdit(this))
{
    setEditor(m_line);
    if (m_integer) {
        m_line->setValidator(
            new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[+-]?[0-9]*")), m_line));
    } else {
        auto* validator = new QDoubleValidator(m_line);
        validator->setLocale(QLocale::c());
        validator->setNotation(QDoubleValidator::ScientificNotation);
        m_line->setValidator(validator);
    }
    m_line->setPlaceholderText(
        field.description.isEmpty() ? (m_integer ? tr("integer") : tr("number")) : field.description);
    QObject::connect(m_line, &QLineEdit::textChanged, this, [this] { edited(); });
    setValue(field.defaultValue.isDouble() ? std::optional(field.defaultValue) : std::nullopt);
}

QWidget* NumberField::input() const
{
    return m_line;
}

std::optional<QJsonValue> NumberField::widgetValue() const
{
    const QString t = m_line->text().trimmed();
    if (t.isEmpty())
        return std::nullopt;
    bool ok = false;
    if (m_integer) {
        const qint64 i = t.toLongLong(&ok);
        if (ok)
            return QJsonValue(i);
    }
    const double d = QLocale::c().toDouble(t, &ok);
    if (ok && std::isfinite(d))
        return QJsonValue(d);
    return std::nullopt;
}

void NumberField::showValue(const std::optional<QJsonValue>& value)
{
    m_line->setText(value ? InputJson::number(*value) : QString());
}

std::optional<QString> NumberField::inputProblem() const
{
    const QString t = m_line->text().trimmed();
    if (t.isEmpty())
        return std::nullopt;
    if (!widgetValue())
        return tr("\"%1\" is not a number").arg(t);
    // Digits beyond 64 bits go out as a rounded double: not the number typed.
    static const QRegularExpression digits(QStringLiteral("^[+-]?[0-9]+$"));
    if (m_integer) {
        bool ok = false;
        t.toLongLong(&ok);
        if (!ok && digits.match(t).hasMatch())
            return tr("outside the 64-bit integer range");
    }
    return std::nullopt;
}

} // namespace mcpscope
