#include "arrayfield.h"

#include "fieldfactory.h"

#include <QHBoxLayout>
#include <QJsonArray>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace mcpscope {

ArrayField::ArrayField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
    , m_itemField(field.items)
    , m_maxItems(field.maxItems)
    , m_rows(new QVBoxLayout)
    , m_add(new QPushButton(tr("Add item"), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_rows->setContentsMargins(0, 0, 0, 0);
    m_rows->setSpacing(4);
    layout->addLayout(m_rows);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addStretch();
    layout->addLayout(buttons);
    QObject::connect(m_add, &QPushButton::clicked, this, [this] {
        m_explicit = false;
        addRow(std::nullopt);
        edited();
    });
    setValue(field.defaultValue.isArray() ? std::optional(field.defaultValue) : std::nullopt);
}

QWidget* ArrayField::input() const
{
    return m_add;
}

std::optional<QJsonValue> ArrayField::widgetValue() const
{
    if (m_items.empty() && !m_required && !m_explicit)
        return std::nullopt;
    QJsonArray values;
    for (const Row& row : m_items)
        values.append(row.field->value().value_or(QJsonValue(QJsonValue::Null)));
    return values;
}

void ArrayField::showValue(const std::optional<QJsonValue>& value)
{
    while (!m_items.empty())
        removeRow(m_items.size() - 1);
    m_explicit = value.has_value();
    if (value) {
        for (const QJsonValue& element : value->toArray())
            addRow(element);
    }
}

QList<const FormField*> ArrayField::innerFields() const
{
    QList<const FormField*> fields;
    for (const Row& row : m_items)
        fields << row.field;
    return fields;
}

void ArrayField::applyPath()
{
    setObjectName(m_path);
    m_add->setObjectName(m_path + QStringLiteral(":add"));
    for (size_t i = 0; i < m_items.size(); ++i)
        applyRowPath(i);
}

void ArrayField::addRow(const std::optional<QJsonValue>& value)
{
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    FormField* field = createField(*m_itemField, true, true, row);
    field->setBaseToolTip(fieldToolTip(QString(), *m_itemField));
    if (value)
        field->setValue(value);
    auto* remove = new QToolButton(row);
    remove->setText(QStringLiteral("−"));
    remove->setToolTip(tr("Remove this item"));
    layout->addWidget(field, 1);
    layout->addWidget(remove, 0, Qt::AlignTop);
    m_rows->addWidget(row);
    m_items.push_back({ row, field, remove });
    field->onChanged = [this] { edited(); };
    QObject::connect(remove, &QToolButton::clicked, this, [this, row] {
        for (size_t i = 0; i < m_items.size(); ++i) {
            if (m_items[i].widget == row) {
                m_explicit = false;
                removeRow(i);
                edited();
                return;
            }
        }
    });
    applyRowPath(m_items.size() - 1);
    updateAddButton();
}

void ArrayField::removeRow(size_t index)
{
    const Row row = m_items[index];
    m_items.erase(m_items.begin() + qsizetype(index));
    row.field->onChanged = nullptr;
    m_rows->removeWidget(row.widget);
    row.widget->hide();
    // The click that asked for the removal is still being delivered to this row's button.
    row.widget->deleteLater();
    row.widget->setObjectName(QString());
    row.remove->setObjectName(QString());
    row.field->setPath(QString());
    for (size_t i = index; i < m_items.size(); ++i)
        applyRowPath(i);
    updateAddButton();
}

void ArrayField::applyRowPath(size_t index)
{
    const QString path = m_path + QStringLiteral("[%1]").arg(index);
    m_items[index].field->setPath(path);
    m_items[index].field->setLabel(QStringLiteral("[%1]").arg(index));
    m_items[index].remove->setObjectName(path + QStringLiteral(":remove"));
}

void ArrayField::updateAddButton()
{
    m_add->setEnabled(!m_maxItems || qsizetype(m_items.size()) < *m_maxItems);
}

} // namespace mcpscope
