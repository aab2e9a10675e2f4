#include "enumfield.h"

#include <QComboBox>

namespace mcpscope {

EnumField::EnumField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
    , m_options(field.options)
    , m_combo(new QComboBox(this))
{
    setEditor(m_combo);
    if (!m_required)
        m_combo->addItem(tr("(not set)"));
    else
        m_combo->setPlaceholderText(tr("Choose…"));
    for (const InputOption& option : m_options) {
        m_combo->addItem(option.label);
        // A titled value shows its JSON beside the description, so the tooltip says what is sent.
        const QString tip = option.description.isEmpty() || option.label == InputJson::label(option.value)
            ? option.description
            : InputJson::compact(option.value) + QStringLiteral(" — ") + option.description;
        if (!tip.isEmpty())
            m_combo->setItemData(m_combo->count() - 1, tip, Qt::ToolTipRole);
    }
    QObject::connect(m_combo, &QComboBox::currentIndexChanged, this, [this] { edited(); });
    const QJsonValue& def = field.defaultValue;
    setValue(def.isUndefined() || !accepts(def) ? std::nullopt : std::optional(def));
}

QWidget* EnumField::input() const
{
    return m_combo;
}

std::optional<QJsonValue> EnumField::widgetValue() const
{
    const qsizetype index = m_combo->currentIndex() - offset();
    if (index < 0 || index >= qsizetype(m_options.size()))
        return std::nullopt;
    return m_options[size_t(index)].value;
}

void EnumField::showValue(const std::optional<QJsonValue>& value)
{
    m_combo->setCurrentIndex(value ? int(indexOf(*value) + offset()) : (m_required ? -1 : 0));
}

qsizetype EnumField::indexOf(const QJsonValue& value) const
{
    for (size_t i = 0; i < m_options.size(); ++i) {
        if (m_options[i].value == value)
            return qsizetype(i);
    }
    return -1;
}

} // namespace mcpscope
