#include "boolfield.h"

#include <QCheckBox>

namespace mcpscope {

BoolField::BoolField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
    , m_box(new QCheckBox(this))
{
    setEditor(m_box);
    m_box->setTristate(!m_required);
    QObject::connect(m_box, &QCheckBox::stateChanged, this, [this] {
        updateText();
        if (isShowing())
            return;
        m_absent = false;
        edited();
    });
    setValue(field.defaultValue.isBool() ? std::optional(field.defaultValue) : std::nullopt);
    // A fresh required check box starts at false; only setValue() without it leaves it unset.
    m_absent = false;
    updateText();
}

QWidget* BoolField::input() const
{
    return m_box;
}

std::optional<QJsonValue> BoolField::widgetValue() const
{
    if (m_absent || m_box->checkState() == Qt::PartiallyChecked)
        return std::nullopt;
    return QJsonValue(m_box->isChecked());
}

void BoolField::showValue(const std::optional<QJsonValue>& value)
{
    m_absent = !value && !m_box->isTristate();
    m_box->setCheckState(!value ? (m_box->isTristate() ? Qt::PartiallyChecked : Qt::Unchecked)
            : value->toBool()   ? Qt::Checked
                                : Qt::Unchecked);
    updateText();
}

void BoolField::updateText()
{
    const auto v = widgetValue();
    m_box->setText(!v ? tr("not set") : v->toBool() ? QStringLiteral("true") : QStringLiteral("false"));
}

} // namespace mcpscope
