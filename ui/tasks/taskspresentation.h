#pragma once

#include <QIdentityProxyModel>

namespace mcpscope {

/// TasksModel → text, status colours and tooltips (the Tasks tab).
class TasksPresentation : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit TasksPresentation(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

} // namespace mcpscope
