#include "enumsetfield.h"

#include <QJsonArray>
#include <QListWidget>

#include <algorithm>

namespace mcpscope {

EnumSetField::EnumSetField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
    , m_options(field.options)
    , m_list(new QListWidget(this))
{
    setEditor(m_list);
    for (const InputOption& option : m_options) {
        auto* entry = new QListWidgetItem(option.label, m_list);
        entry->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        entry->setCheckState(Qt::Unchecked);
        if (!option.description.isEmpty())
            entry->setToolTip(option.description);
    }
    const int rows = int(std::min<size_t>(m_options.size(), 6));
    m_list->setFixedHeight(m_list->sizeHintForRow(0) * rows + 2 * m_list->frameWidth() + 2);
    QObject::connect(m_list, &QListWidget::itemChanged, this, [this] {
        if (isShowing())
            return;
        m_explicit = false;
        edited();
    });
    setValue(field.defaultValue.isArray() ? std::optional(field.defaultValue) : std::nullopt);
}

QWidget* EnumSetField::input() const
{
    return m_list;
}

std::optional<QJsonValue> EnumSetField::widgetValue() const
{
    QJsonArray values;
    for (size_t i = 0; i < m_options.size(); ++i) {
        if (m_list->item(int(i))->checkState() == Qt::Checked)
            values.append(m_options[i].value);
    }
    if (values.isEmpty() && !m_required && !m_explicit)
        return std::nullopt;
    return values;
}

bool EnumSetField::accepts(const QJsonValue& value) const
{
    if (!value.isArray())
        return false;
    const QJsonArray values = value.toArray();
    return std::all_of(values.begin(), values.end(), [this](const QJsonValue& v) {
        return std::any_of(
            m_options.begin(), m_options.end(), [&v](const InputOption& option) { return option.value == v; });
    });
}

void EnumSetField::showValue(const std::optional<QJsonValue>& value)
{
    const QJsonArray values = value ? value->toArray() : QJsonArray();
    m_explicit = value.has_value();
    for (size_t i = 0; i < m_options.size(); ++i)
        m_list->item(int(i))->setCheckState(values.contains(m_options[i].value) ? Qt::Checked : Qt::Unchecked);
}

} // namespace mcpscope
