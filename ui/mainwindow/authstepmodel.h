#pragma once

#include "auth/authstep.h"

#include <QAbstractTableModel>
#include <QList>

namespace mcpscope {

/// The steps of the last authorization flow (ServerAuth::steps()), one row each, for the Auth view's list.
/// setSteps() replaces the list in place (rows that stay get dataChanged, new ones are inserted, gone ones
/// removed), so a selection survives the many updates of a running flow.
class AuthStepModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Step, Result, Took, Detail, ColumnCount };
    enum Role {
        StepRole = Qt::UserRole + 1, ///< the whole AuthStep
        StatusRole, ///< int: an AuthStep::Status
        KindRole, ///< int: an AuthStep::Kind
    };

    explicit AuthStepModel(QObject* parent = nullptr);

    void setSteps(const QList<AuthStep>& steps);
    const QList<AuthStep>& steps() const { return m_steps; }
    /// The first failed step, or -1.
    int failedRow() const;

    /// What a kind of step is called when the engine gave it no title.
    static QString kindText(AuthStep::Kind kind);
    static QString statusText(AuthStep::Status status);
    static QColor statusColour(AuthStep::Status status);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<AuthStep> m_steps;
};

} // namespace mcpscope
