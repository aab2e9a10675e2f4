#include "objectfield.h"

#include "fieldfactory.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QVBoxLayout>

namespace mcpscope {

ObjectField::ObjectField(const InputSchema& field, bool root, bool required, bool item, QWidget* parent)
    : FormField(required || root, item, parent)
    , m_input(this)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    QWidget* body = this;
    if (!root) {
        m_group = new QGroupBox(this);
        outer->addWidget(m_group);
        body = m_group;
        m_input = m_group;
    }
    m_form = new QFormLayout;
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (root) {
        m_form->setContentsMargins(0, 0, 0, 0);
        outer->addLayout(m_form);
    } else {
        m_group->setLayout(m_form);
    }

    for (const InputSchema::Property& property : field.properties) {
        FormField* input = createField(property.field, property.required, false, body);
        input->onChanged = [this] { edited(); };
        QString plainLabel = property.key;
        if (property.required)
            plainLabel += QStringLiteral(" *");
        const QString toolTip = fieldToolTip(property.key, property.field);
        input->setBaseToolTip(toolTip);
        QLabel* label = nullptr;
        if (input->spansRow()) {
            input->setLabel(plainLabel);
            m_form->addRow(input);
        } else {
            QString richLabel = property.key.toHtmlEscaped();
            if (property.required)
                richLabel += QStringLiteral("<span style=\"color:#c0392b\">&nbsp;*</span>");
            label = new QLabel(richLabel, body);
            label->setTextFormat(Qt::RichText);
            label->setToolTip(toolTip);
            label->setBuddy(input->input());
            m_form->addRow(label, input);
        }
        m_properties.push_back({ property.key, input, label });
    }
    if (m_properties.empty()) {
        auto* none = new QLabel(tr("No arguments."), body);
        none->setEnabled(false);
        m_form->addRow(none);
    }
    m_extraNote = new QLabel(body);
    m_extraNote->setWordWrap(true);
    m_extraNote->setEnabled(false);
    m_extraNote->hide();
    m_form->addRow(m_extraNote);

    if (field.defaultValue.isObject())
        setValue(field.defaultValue);
}

void ObjectField::setLabel(const QString& label)
{
    if (m_group)
        m_group->setTitle(label);
}

std::optional<QJsonValue> ObjectField::widgetValue() const
{
    QJsonObject object = m_extra;
    for (const Property& property : m_properties) {
        if (const auto v = property.field->value())
            object.insert(property.key, *v);
    }
    if (object.isEmpty() && !m_required && !m_explicit)
        return std::nullopt;
    return object;
}

void ObjectField::showValue(const std::optional<QJsonValue>& value)
{
    const QJsonObject object = value ? value->toObject() : QJsonObject();
    m_explicit = value.has_value();
    m_extra = object;
    for (const Property& property : m_properties) {
        m_extra.remove(property.key);
        property.field->setValue(
            object.contains(property.key) ? std::optional(object.value(property.key)) : std::nullopt);
    }
    m_extraNote->setText(tr("Also sends keys the schema does not describe (edit them as JSON): %1")
                             .arg(m_extra.keys().join(QStringLiteral(", "))));
    m_extraNote->setVisible(!m_extra.isEmpty());
}

QList<const FormField*> ObjectField::innerFields() const
{
    QList<const FormField*> fields;
    for (const Property& property : m_properties)
        fields << property.field;
    return fields;
}

void ObjectField::applyPath()
{
    input()->setObjectName(m_path);
    for (const Property& property : m_properties) {
        property.field->setPath(m_path.isEmpty() ? QString() : InputJson::childPath(m_path, property.key));
        if (property.label)
            property.label->setObjectName(property.field->path() + QStringLiteral(":label"));
    }
}

} // namespace mcpscope
