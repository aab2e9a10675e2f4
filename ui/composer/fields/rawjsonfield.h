#pragma once

#include "formfield.h"

class QLabel;
class QPlainTextEdit;

namespace mcpscope {

/// Any JSON value, typed as text: the fallback for schema parts the form cannot express.
class RawJsonField final : public FormField
{
public:
    RawJsonField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& /*value*/) const override { return true; }
    void showValue(const std::optional<QJsonValue>& value) override;
    std::optional<QString> inputProblem() const override;
    void applyPath() override;

private:
    void updateError();

    QPlainTextEdit* m_edit;
    QLabel* m_error;
};

} // namespace mcpscope
