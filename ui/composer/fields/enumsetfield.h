#pragma once

#include "formfield.h"

#include <vector>

class QListWidget;

namespace mcpscope {

/// An array of enum values: a list of check boxes, one per allowed value.
class EnumSetField final : public FormField
{
public:
    EnumSetField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override;
    void showValue(const std::optional<QJsonValue>& value) override;

private:
    std::vector<InputOption> m_options;
    QListWidget* m_list;
    bool m_explicit = false;
};

} // namespace mcpscope
