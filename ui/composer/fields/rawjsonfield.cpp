#include "rawjsonfield.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace mcpscope {

RawJsonField::RawJsonField(const InputSchema& field, bool required, bool item, QWidget* parent)
    : FormField(required, item, parent)
    , m_edit(new QPlainTextEdit(this))
    , m_error(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_edit);
    layout->addWidget(m_error);
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setTabChangesFocus(true);
    m_edit->setFixedHeight(m_edit->fontMetrics().lineSpacing() * 4 + 12);
    m_edit->setPlaceholderText(field.type.isEmpty() ? tr("JSON value") : tr("JSON %1").arg(field.type));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->hide();
    QObject::connect(m_edit, &QPlainTextEdit::textChanged, this, [this] {
        updateError();
        edited();
    });
    setValue(field.defaultValue.isUndefined() ? std::nullopt : std::optional(field.defaultValue));
}

QWidget* RawJsonField::input() const
{
    return m_edit;
}

std::optional<QJsonValue> RawJsonField::widgetValue() const
{
    const QString text = m_edit->toPlainText();
    if (text.trimmed().isEmpty())
        return std::nullopt;
    return InputJson::parse(text);
}

void RawJsonField::showValue(const std::optional<QJsonValue>& value)
{
    m_edit->setPlainText(value ? InputJson::pretty(*value) : QString());
}

std::optional<QString> RawJsonField::inputProblem() const
{
    const QString text = m_edit->toPlainText();
    QString error;
    if (text.trimmed().isEmpty() || InputJson::parse(text, &error))
        return std::nullopt;
    return tr("invalid JSON at %1").arg(error);
}

void RawJsonField::applyPath()
{
    m_edit->setObjectName(m_path);
    m_error->setObjectName(m_path + QStringLiteral(":error"));
}

void RawJsonField::updateError()
{
    QString error;
    const QString text = m_edit->toPlainText();
    const bool bad = !text.trimmed().isEmpty() && !InputJson::parse(text, &error);
    m_error->setText(bad ? tr("Invalid JSON at %1").arg(error) : QString());
    m_error->setVisible(bad);
}

} // namespace mcpscope
