#include "promptsmodel.h"

namespace mcpscope {

namespace {
QString nameOf(const QJsonObject& prompt)
{
    return prompt.value(QLatin1String("name")).toString();
}
} // namespace

PromptsModel::PromptsModel(QObject* parent)
    : QAbstractListModel(parent)
{ }

void PromptsModel::setPrompts(const QJsonArray& prompts)
{
    QList<QJsonObject> next;
    for (const QJsonValue& value : prompts) {
        const QJsonObject prompt = value.toObject();
        if (!nameOf(prompt).isEmpty())
            next.append(prompt);
    }
    bool sameNames = next.size() == m_prompts.size();
    for (qsizetype i = 0; sameNames && i < next.size(); ++i)
        sameNames = nameOf(next.at(i)) == nameOf(m_prompts.at(i));
    if (sameNames) {
        m_prompts = std::move(next);
        if (!m_prompts.isEmpty())
            Q_EMIT dataChanged(index(0), index(int(m_prompts.size()) - 1));
        return;
    }
    beginResetModel();
    m_prompts = std::move(next);
    endResetModel();
}

void PromptsModel::clear()
{
    setPrompts({});
}

int PromptsModel::rowOf(const QString& name) const
{
    for (qsizetype i = 0; i < m_prompts.size(); ++i) {
        if (nameOf(m_prompts.at(i)) == name)
            return int(i);
    }
    return -1;
}

int PromptsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_prompts.size());
}

QVariant PromptsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject& prompt = m_prompts.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case PromptsModelRole::NameRole:
        return nameOf(prompt);
    case PromptsModelRole::TitleRole:
        return prompt.value(QLatin1String("title")).toString();
    case Qt::ToolTipRole:
    case PromptsModelRole::DescriptionRole:
        return prompt.value(QLatin1String("description")).toString();
    case PromptsModelRole::ArgumentsRole:
        return prompt.value(QLatin1String("arguments")).toArray();
    case PromptsModelRole::RequiredCountRole: {
        int required = 0;
        for (const QJsonValue& argument : prompt.value(QLatin1String("arguments")).toArray())
            required += argument.toObject().value(QLatin1String("required")).toBool() ? 1 : 0;
        return required;
    }
    case PromptsModelRole::PromptRole:
        return prompt;
    default:
        return {};
    }
}

} // namespace mcpscope
