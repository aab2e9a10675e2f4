#pragma once

#include "formfield.h"

class QCheckBox;

namespace mcpscope {

/// A check box; tri-state when the field is optional, the middle state meaning "unset".
class BoolField final : public FormField
{
public:
    BoolField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override { return value.isBool(); }
    void showValue(const std::optional<QJsonValue>& value) override;

private:
    void updateText();

    QCheckBox* m_box;
    bool m_absent = false;
};

} // namespace mcpscope
