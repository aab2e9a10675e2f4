#pragma once

#include "formfield.h"

#include <QJsonObject>

#include <vector>

class QFormLayout;
class QGroupBox;
class QLabel;

namespace mcpscope {

/// The arguments object itself, or a nested object in a group box: one labelled row per property,
/// required ones first. Keys the schema does not describe are kept and sent along.
class ObjectField final : public FormField
{
public:
    ObjectField(const InputSchema& field, bool root, bool required, bool item, QWidget* parent);

    QWidget* input() const override { return m_input; }
    bool spansRow() const override { return true; }
    void setLabel(const QString& label) override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override { return value.isObject(); }
    void showValue(const std::optional<QJsonValue>& value) override;
    QList<const FormField*> innerFields() const override;
    void applyPath() override;

private:
    struct Property
    {
        QString key;
        FormField* field;
        QLabel* label;
    };

    QWidget* m_input;
    QGroupBox* m_group = nullptr;
    QFormLayout* m_form = nullptr;
    QLabel* m_extraNote = nullptr;
    std::vector<Property> m_properties;
    QJsonObject m_extra;
    bool m_explicit = false;
};

} // namespace mcpscope
