#pragma once

#include "formfield.h"

#include <memory>
#include <vector>

class QPushButton;
class QToolButton;
class QVBoxLayout;

namespace mcpscope {

/// A list editor: one row per item with a remove button, and an "Add item" button below.
class ArrayField final : public FormField
{
public:
    ArrayField(const InputSchema& field, bool required, bool item, QWidget* parent);

    QWidget* input() const override;

protected:
    std::optional<QJsonValue> widgetValue() const override;
    bool accepts(const QJsonValue& value) const override { return value.isArray(); }
    void showValue(const std::optional<QJsonValue>& value) override;
    QList<const FormField*> innerFields() const override;
    void applyPath() override;

private:
    struct Row
    {
        QWidget* widget;
        FormField* field;
        QToolButton* remove;
    };

    void addRow(const std::optional<QJsonValue>& value);
    void removeRow(size_t index);
    void applyRowPath(size_t index);
    void updateAddButton();

    std::shared_ptr<const InputSchema> m_itemField;
    std::optional<qint64> m_maxItems;
    QVBoxLayout* m_rows;
    QPushButton* m_add;
    std::vector<Row> m_items;
    bool m_explicit = false;
};

} // namespace mcpscope
