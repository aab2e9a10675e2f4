#pragma once

#include "formfield.h"

class QLineEdit;

namespace mcpscope {

/// `number` and `integer`: a line edit, so that empty can mean "unset" and 64-bit integers keep
/// every digit (QSpinBox is 32-bit, QDoubleSpinBox rounds to its decimals).
class NumberField final : public FormField
{
public:
    NumberField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override { return value.isDouble(); }
    void showValue(const std::optional<QJsonValue>& value) override;
    std::optional<QString> inputProblem() const override;

private:
    bool m_integer;
    QLineEdit* m_line;
};

} // namespace mcpscope
