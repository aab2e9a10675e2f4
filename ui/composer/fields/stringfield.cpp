#include "stringfield.h"

#include <QLineEdit>
#include <QPlainTextEdit>

namespace mcpscope {

namespace {

// Strings longer than this get a multi-line editor.
constexpr qint64 MultiLineMaxLength = 200;

} // namespace

StringField::StringField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
{
    if (field.maxLength.value_or(0) > MultiLineMaxLength) {
        m_text = new QPlainTextEdit(this);
        m_text->setPlaceholderText(field.description);
        m_text->setTabChangesFocus(true);
        m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 4 + 12);
        setEditor(m_text);
        QObject::connect(m_text, &QPlainTextEdit::textChanged, this, [this] { userEdit(); });
    } else {
        m_line = new QLineEdit(this);
        m_line->setPlaceholderText(field.description.isEmpty() ? field.format : field.description);
        setEditor(m_line);
        QObject::connect(m_line, &QLineEdit::textChanged, this, [this] { userEdit(); });
    }
    setValue(field.defaultValue.isString() ? std::optional(field.defaultValue) : std::nullopt);
}

QWidget* StringField::input() const
{
    return m_line ? static_cast<QWidget*>(m_line) : m_text;
}

std::optional<QJsonValue> StringField::widgetValue() const
{
    const QString t = text();
    if (t.isEmpty() && !m_item && !m_explicitEmpty)
        return std::nullopt;
    return QJsonValue(t);
}

void StringField::showValue(const std::optional<QJsonValue>& value)
{
    const QString t = value ? value->toString() : QString();
    m_explicitEmpty = value && t.isEmpty();
    if (m_line) {
        m_line->setText(t);
        // Show where a long default (a URL) starts, not where it ends.
        m_line->setCursorPosition(0);
    } else {
        m_text->setPlainText(t);
    }
}

QString StringField::text() const
{
    return m_line ? m_line->text() : m_text->toPlainText();
}

void StringField::userEdit()
{
    if (isShowing())
        return;
    m_explicitEmpty = false;
    edited();
}

} // namespace mcpscope
