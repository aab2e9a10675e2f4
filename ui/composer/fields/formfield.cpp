#include "formfield.h"

#include <QHBoxLayout>

#include <utility>

namespace mcpscope {

FormField::FormField(bool required, bool item, QWidget* parent)
    : QWidget(parent)
    , m_required(required || item)
    , m_item(item)
{ }

FormField::~FormField()
{
    // QWidget's destructor deletes the child widgets after the subclass is gone; a change signal
    // they emitted on the way out must not reach a half-destroyed field.
    for (QObject* child : findChildren<QObject*>())
        QObject::disconnect(child, nullptr, this, nullptr);
}

std::optional<QJsonValue> FormField::value() const
{
    if (m_foreign)
        return m_foreign;
    return widgetValue();
}

void FormField::setValue(const std::optional<QJsonValue>& value)
{
    m_showing = true;
    m_foreign.reset();
    if (value && !accepts(*value)) {
        m_foreign = *value;
        showValue(std::nullopt);
    } else {
        showValue(value);
    }
    m_showing = false;
    updateForeignMarker();
}

void FormField::collectProblems(QList<InputProblem>& schemaProblems, QList<InputProblem>& out) const
{
    std::optional<QString> own;
    if (!m_foreign) {
        own = inputProblem();
        // An empty array item is sent as null; "required" says why better than null's type.
        if (!own && m_item && !widgetValue())
            own = tr("required");
    }
    if (own) {
        out << InputProblem { m_path, *own };
        // The schema checked what is sent in the text's stead, not what the user typed.
        schemaProblems.removeIf(
            [this](const InputProblem& problem) { return InputJson::isAtOrBelow(problem.path, m_path); });
        return;
    }
    const QList<const FormField*> inner = innerFields();
    const bool leaf = inner.isEmpty();
    for (auto it = schemaProblems.begin(); it != schemaProblems.end();) {
        if (it->path == m_path || (leaf && InputJson::isAtOrBelow(it->path, m_path))) {
            out << std::move(*it);
            it = schemaProblems.erase(it);
        } else {
            ++it;
        }
    }
    if (!value())
        return;
    for (const FormField* field : inner)
        field->collectProblems(schemaProblems, out);
}

void FormField::setPath(const QString& path)
{
    m_path = path;
    applyPath();
}

void FormField::setBaseToolTip(const QString& toolTip)
{
    m_baseToolTip = toolTip;
    updateForeignMarker();
}

void FormField::setEditor(QWidget* editor)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(editor);
}

void FormField::edited()
{
    if (m_showing)
        return;
    if (m_foreign) {
        m_foreign.reset();
        updateForeignMarker();
    }
    if (onChanged)
        onChanged();
}

void FormField::updateForeignMarker()
{
    input()->setToolTip(m_foreign ? tr("Holds %1, which this field cannot show; editing the field replaces it.")
                                        .arg(InputJson::compact(*m_foreign))
                                  : m_baseToolTip);
}

QString fieldToolTip(const QString& key, const InputSchema& field)
{
    using Tr = FormField;
    QStringList lines;
    if (!field.title.isEmpty() && field.title != key)
        lines << field.title;
    if (!field.description.isEmpty())
        lines << field.description;
    QStringList facts;
    if (field.schema.value(QStringLiteral("type")).isString())
        facts << Tr::tr("type: %1").arg(field.type);
    if (!field.format.isEmpty())
        facts << Tr::tr("format: %1").arg(field.format);
    // The schema's own spelling of each constraint, as the tool's author wrote it.
    static const std::pair<const char*, const char*> constraints[] = {
        { "minimum", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "minimum: %1") },
        { "maximum", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "maximum: %1") },
        { "minLength", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "min length: %1") },
        { "maxLength", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "max length: %1") },
        { "minItems", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "min items: %1") },
        { "maxItems", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "max items: %1") },
        { "pattern", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "pattern: %1") },
        { "default", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "default: %1") },
    };
    for (const auto& [name, text] : constraints) {
        const QJsonValue value = field.schema.value(QLatin1String(name));
        if (!value.isUndefined())
            facts << Tr::tr(text).arg(value.isString() ? value.toString() : InputJson::compact(value));
    }
    if (!facts.isEmpty())
        lines << facts.join(QStringLiteral(", "));
    return lines.join(QLatin1Char('\n'));
}

} // namespace mcpscope
