#include "authstepmodel.h"

#include "presentation/presentation.h"

#include <QColor>
#include <QFont>
#include <QIcon>
#include <QPainter>
#include <QPixmap>

#include <algorithm>

namespace mcpscope {

namespace {
/// A round badge in the status colour with its glyph: reads the same in every style and theme, which the
/// style's standard icons do not (Fusion offscreen has no "running" icon at all).
QIcon statusIcon(AuthStep::Status status)
{
    static QIcon icons[4];
    QIcon& icon = icons[int(status)];
    if (!icon.isNull())
        return icon;
    for (const int size : { 16, 32 }) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(AuthStepModel::statusColour(status));
        painter.drawEllipse(QRectF(0.5, 0.5, size - 1.0, size - 1.0));
        QPen pen(Qt::white, size / 8.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        const qreal s = size;
        switch (status) {
        case AuthStep::Status::Ok:
            painter.drawPolyline(
                QList<QPointF> { { s * 0.27, s * 0.52 }, { s * 0.44, s * 0.69 }, { s * 0.74, s * 0.34 } });
            break;
        case AuthStep::Status::Failed:
            painter.drawLine(QPointF(s * 0.32, s * 0.32), QPointF(s * 0.68, s * 0.68));
            painter.drawLine(QPointF(s * 0.68, s * 0.32), QPointF(s * 0.32, s * 0.68));
            break;
        case AuthStep::Status::Running:
            painter.setBrush(Qt::white);
            painter.setPen(Qt::NoPen);
            for (const qreal x : { 0.28, 0.5, 0.72 })
                painter.drawEllipse(QPointF(s * x, s * 0.5), s * 0.08, s * 0.08);
            break;
        case AuthStep::Status::Skipped:
            painter.drawLine(QPointF(s * 0.3, s * 0.5), QPointF(s * 0.7, s * 0.5));
            break;
        }
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

QString firstLine(const QString& text)
{
    const qsizetype end = text.indexOf(QLatin1Char('\n'));
    return end < 0 ? text : text.left(end);
}
} // namespace

AuthStepModel::AuthStepModel(QObject* parent)
    : QAbstractTableModel(parent)
{ }

void AuthStepModel::setSteps(const QList<AuthStep>& steps)
{
    const int before = int(m_steps.size());
    const int after = int(steps.size());
    if (after < before) {
        beginRemoveRows({}, after, before - 1);
        m_steps.resize(after);
        endRemoveRows();
    }
    const int kept = std::min(before, after);
    for (int row = 0; row < kept; ++row)
        m_steps[row] = steps.at(row);
    if (kept > 0)
        Q_EMIT dataChanged(index(0, 0), index(kept - 1, ColumnCount - 1));
    if (after > before) {
        beginInsertRows({}, before, after - 1);
        m_steps.append(steps.mid(before));
        endInsertRows();
    }
}

int AuthStepModel::failedRow() const
{
    for (int row = 0; row < m_steps.size(); ++row) {
        if (m_steps.at(row).status == AuthStep::Status::Failed)
            return row;
    }
    return -1;
}

QString AuthStepModel::kindText(AuthStep::Kind kind)
{
    switch (kind) {
    case AuthStep::Kind::Challenge:
        return tr("Challenge");
    case AuthStep::Kind::ResourceMetadata:
        return tr("Protected resource metadata");
    case AuthStep::Kind::ServerMetadata:
        return tr("Authorization server metadata");
    case AuthStep::Kind::Registration:
        return tr("Client registration");
    case AuthStep::Kind::Authorize:
        return tr("Authorization request");
    case AuthStep::Kind::Callback:
        return tr("Callback");
    case AuthStep::Kind::Token:
        return tr("Token request");
    case AuthStep::Kind::Refresh:
        return tr("Refresh");
    case AuthStep::Kind::Revoke:
        return tr("Revocation");
    case AuthStep::Kind::Retry:
        return tr("Retried request");
    }
    return {};
}

QString AuthStepModel::statusText(AuthStep::Status status)
{
    switch (status) {
    case AuthStep::Status::Running:
        return tr("running…");
    case AuthStep::Status::Ok:
        return tr("ok");
    case AuthStep::Status::Failed:
        return tr("failed");
    case AuthStep::Status::Skipped:
        return tr("skipped");
    }
    return {};
}

QColor AuthStepModel::statusColour(AuthStep::Status status)
{
    switch (status) {
    case AuthStep::Status::Running:
        return QColor(0x0d, 0x6e, 0xfd);
    case AuthStep::Status::Ok:
        return QColor(0x19, 0x87, 0x54);
    case AuthStep::Status::Failed:
        return QColor(0xb0, 0x2a, 0x37);
    case AuthStep::Status::Skipped:
        break;
    }
    return QColor(0x6c, 0x75, 0x7d);
}

int AuthStepModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_steps.size());
}

int AuthStepModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuthStepModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuthStep& step = m_steps.at(index.row());
    const bool failed = step.status == AuthStep::Status::Failed;
    switch (role) {
    case StepRole:
        return QVariant::fromValue(step);
    case StatusRole:
        return int(step.status);
    case KindRole:
        return int(step.kind);
    case Qt::FontRole:
        if (failed) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Result)
            return Presentation::textOn(statusColour(step.status));
        if (failed)
            return statusColour(step.status);
        return {};
    case Qt::BackgroundRole:
        if (index.column() == Result)
            return statusColour(step.status);
        return {};
    case Qt::DecorationRole:
        if (index.column() == Step)
            return statusIcon(step.status);
        return {};
    case Qt::ToolTipRole:
        return step.detail.isEmpty() ? QVariant() : QVariant(step.detail);
    case Qt::TextAlignmentRole:
        if (index.column() == Took)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Step:
        return tr("%1. %2").arg(index.row() + 1).arg(step.title.isEmpty() ? kindText(step.kind) : step.title);
    case Result:
        return statusText(step.status);
    case Took:
        return step.endedAt > 0 && step.startedAt > 0 ? Presentation::durationText(step.endedAt - step.startedAt)
                                                      : QString();
    case Detail:
        return firstLine(step.detail);
    default:
        return {};
    }
}

QVariant AuthStepModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Step:
        return tr("Step");
    case Result:
        return tr("Result");
    case Took:
        return tr("Took");
    case Detail:
        return tr("What happened");
    default:
        return {};
    }
}

} // namespace mcpscope
