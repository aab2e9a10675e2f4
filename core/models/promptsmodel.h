#pragma once

#include "promptsmodeldefs.h"

#include <QAbstractListModel>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace mcpscope {

/// The prompts of one server as prompts/list returned them, one row per prompt, raw values only
/// (see promptsmodeldefs.h). setPrompts() with the same names in the same order updates the rows in
/// place with one dataChanged; any other change is a model reset, so a re-list keeps the selection
/// when nothing was added or removed.
class PromptsModel : public QAbstractListModel
{
    Q_OBJECT
public:
    explicit PromptsModel(QObject* parent = nullptr);

    /// Shows the listed prompts (entries that are not objects with a name are skipped).
    void setPrompts(const QJsonArray& prompts);
    void clear();
    const QJsonObject& prompt(int row) const { return m_prompts.at(row); }
    /// The row of a prompt by name, or -1.
    int rowOf(const QString& name) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    QList<QJsonObject> m_prompts;
};

} // namespace mcpscope
