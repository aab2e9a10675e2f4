#include "schemaform.h"

#include "fields/objectfield.h"
#include "fields/rawjsonfield.h"
#include "session/inputschema.h"

#include <QVBoxLayout>

namespace mcpscope {

SchemaForm::SchemaForm(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addStretch();
    setSchema(QJsonObject());
}

SchemaForm::~SchemaForm() = default;

void SchemaForm::setSchema(const QJsonObject& inputSchema)
{
    m_schema = inputSchema;
    m_loading = true;
    if (m_root) {
        // Deleted later: setSchema() may run inside one of the old fields' signals (a valueChanged()
        // handler). Their object names go now, for the new fields that reuse them.
        m_root->onChanged = nullptr;
        layout()->removeWidget(m_root);
        m_root->hide();
        m_root->setObjectName(QString());
        for (QObject* object : m_root->findChildren<QObject*>())
            object->setObjectName(QString());
        m_root->deleteLater();
    }
    m_input = std::make_unique<const InputSchema>(InputSchema::forArguments(inputSchema));
    if (m_input->kind == InputSchema::Kind::Object)
        m_root = new ObjectField(*m_input, true, true, false, this);
    else
        m_root = new RawJsonField(*m_input, false, false, this);
    m_root->setPath(QStringLiteral("args"));
    m_root->onChanged = [this] { fieldChanged(); };
    static_cast<QVBoxLayout*>(layout())->insertWidget(0, m_root);
    m_loading = false;
}

QJsonObject SchemaForm::value() const
{
    return m_root->value().value_or(QJsonValue()).toObject();
}

void SchemaForm::setValue(const QJsonObject& arguments)
{
    m_loading = true;
    m_root->setValue(QJsonValue(arguments));
    m_loading = false;
}

bool SchemaForm::isValid(QStringList* problems) const
{
    // What the root holds as it is, before value() makes an object of it: that is what is wrong.
    const QJsonValue arguments = m_root->value().value_or(QJsonObject());
    QList<InputProblem> schemaProblems = m_input->problems(arguments, m_root->path());
    QList<InputProblem> found;
    m_root->collectProblems(schemaProblems, found);
    // Problems inside keys the form has no field for (the extra keys of setValue()).
    found << schemaProblems;
    if (found.isEmpty() && !arguments.isObject())
        found << InputProblem { m_root->path(), tr("the arguments must be a JSON object") };
    if (problems) {
        problems->clear();
        for (const InputProblem& problem : found)
            *problems << problem.toString();
    }
    return found.isEmpty();
}

std::optional<QJsonValue> SchemaForm::parseJson(const QString& text, QString* error)
{
    return InputJson::parse(text, error);
}

QString SchemaForm::toJsonText(const QJsonValue& value)
{
    return InputJson::pretty(value);
}

void SchemaForm::fieldChanged()
{
    if (!m_loading)
        Q_EMIT valueChanged();
}

} // namespace mcpscope
