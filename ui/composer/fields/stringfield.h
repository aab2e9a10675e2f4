#pragma once

#include "formfield.h"

class QLineEdit;
class QPlainTextEdit;

namespace mcpscope {

/// A line edit, or a multi-line editor for strings whose maxLength allows long text.
class StringField final : public FormField
{
public:
    StringField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override { return value.isString(); }
    void showValue(const std::optional<QJsonValue>& value) override;

private:
    QString text() const;
    void userEdit();

    QLineEdit* m_line = nullptr;
    QPlainTextEdit* m_text = nullptr;
    // setValue("") keeps an empty string present; an emptied field is otherwise unset.
    bool m_explicitEmpty = false;
};

} // namespace mcpscope
