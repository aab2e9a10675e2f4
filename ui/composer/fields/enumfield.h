#pragma once

#include "formfield.h"

#include <vector>

class QComboBox;

namespace mcpscope {

/// A combo box over the allowed values. Optional fields get a "not set" entry first; required
/// ones start on a placeholder until a value is chosen.
class EnumField final : public FormField
{
public:
    EnumField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override { return indexOf(value) >= 0; }
    void showValue(const std::optional<QJsonValue>& value) override;

private:
    qsizetype offset() const { return m_required ? 0 : 1; }
    qsizetype indexOf(const QJsonValue& value) const;

    std::vector<InputOption> m_options;
    QComboBox* m_combo;
};

} // namespace mcpscope
