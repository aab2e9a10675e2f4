#include "presentation.h"

#include "models/toolsmodeldefs.h"
#include "session/toolinfo.h"

#include <QFont>
#include <QJsonValue>

namespace mcpscope {

// The tools table's words and colours: annotations, expiry behaviour, task support and the per-tool figures.

ToolsPresentation::ToolsPresentation(QObject* parent)
    : QIdentityProxyModel(parent)
{ }

QVariant ToolsPresentation::data(const QModelIndex& index, int role) const
{
    using namespace ToolsModelColumn;
    // A tool McpScope leaves out (2026-07-28 x-mcp-header rules): struck through, grey, "excluded", the reason
    // as every cell's tooltip.
    if (const QString excluded = QIdentityProxyModel::data(index, ToolsModelRole::ExcludedReasonRole).toString();
        !excluded.isEmpty()) {
        if (role == Qt::FontRole) {
            QFont font;
            font.setStrikeOut(index.column() != OnExpiry);
            return font;
        }
        if (role == Qt::ForegroundRole)
            return index.column() == OnExpiry ? QColor(0xb0, 0x2a, 0x37) : QColor(Qt::gray);
        if (role == Qt::ToolTipRole)
            return tr("Excluded: McpScope leaves this tool out and does not call it, as the 2026-07-28 revision "
                      "asks of clients: %1")
                .arg(excluded);
        if (role == Qt::DisplayRole && index.column() == OnExpiry)
            return tr("excluded");
    }
    switch (index.column()) {
    case ReadOnlyHint:
    case DestructiveHint:
    case IdempotentHint:
    case OpenWorldHint: {
        const bool explicitly = QIdentityProxyModel::data(index, ToolsModelRole::IsExplicitRole).toBool();
        if (role == Qt::DisplayRole) {
            const QVariant raw = QIdentityProxyModel::data(index, Qt::DisplayRole);
            if (!explicitly)
                return tr("%1 (default)")
                    .arg(QIdentityProxyModel::data(index, ToolsModelRole::EffectiveRole).toBool() ? tr("true")
                                                                                                  : tr("false"));
            const QJsonValue value = QJsonValue::fromVariant(raw);
            if (value.isBool())
                return value.toBool() ? tr("true") : tr("false");
            // Not a JSON boolean: show it as sent, so a string "true" is visibly not true.
            return tr("%1 (not a boolean)")
                .arg(raw.toString().isEmpty() ? tr("null") : QLatin1Char('"') + raw.toString() + QLatin1Char('"'));
        }
        if (role == Qt::FontRole && !explicitly) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        if (role == Qt::ForegroundRole && !explicitly)
            return QColor(Qt::gray);
        if (role == Qt::ToolTipRole)
            return explicitly ? tr("Set by the server.") : tr("Not set: the spec default applies.");
        break;
    }
    case OnExpiry: {
        const auto expiry = ExpiryBehaviour(QIdentityProxyModel::data(index, Qt::DisplayRole).toInt());
        if (role == Qt::DisplayRole)
            return expiry == ExpiryBehaviour::RetryOnce ? tr("retry once") : tr("no replay");
        if (role == Qt::ForegroundRole)
            return expiry == ExpiryBehaviour::RetryOnce ? QColor(0x19, 0x87, 0x54) : QColor(0xb0, 0x6a, 0x00);
        if (role == Qt::ToolTipRole
            && QIdentityProxyModel::data(index, ToolsModelRole::ListedMoreThanOnceRole).toBool())
            return tr("Write-capable: the server lists this tool name more than once, so no entry's hints can be "
                      "trusted. After a session expiry the call is never sent again; it ends as outcome uncertain.");
        if (role == Qt::ToolTipRole)
            return expiry == ExpiryBehaviour::RetryOnce
                ? tr("Read-only (or idempotent under the replay policy): after a session expiry the call is sent once "
                     "more on a fresh session.")
                : tr("Write-capable: after a session expiry the call is never sent again; it ends as outcome "
                     "uncertain.");
        break;
    }
    case TaskSupport: {
        const auto support = ToolInfo::TaskSupport(QIdentityProxyModel::data(index, Qt::DisplayRole).toInt());
        if (role == Qt::DisplayRole)
            return support == ToolInfo::TaskSupport::Required ? tr("required")
                : support == ToolInfo::TaskSupport::Optional  ? tr("optional")
                                                              : tr("—");
        if (role == Qt::ToolTipRole)
            return support == ToolInfo::TaskSupport::Required
                ? tr("execution.taskSupport is required: every call is sent as a task and followed in the Tasks tab.")
                : support == ToolInfo::TaskSupport::Optional
                ? tr("execution.taskSupport is optional: the composer's \"Run as task\" box decides.")
                : tr("No task support: calls are plain requests.");
        break;
    }
    case Name:
    case Title:
        if (role == Qt::ToolTipRole) {
            // The whole text first: a narrow table elides it.
            const QString text = QIdentityProxyModel::data(index, Qt::DisplayRole).toString();
            const QString description = QIdentityProxyModel::data(index, ToolsModelRole::DescriptionRole).toString();
            if (text.isEmpty() || description.isEmpty())
                return text.isEmpty() ? description : text;
            return QString(text + QStringLiteral("\n\n") + description);
        }
        break;
    case Calls:
    case ErrorRate:
    case P50:
    case P99: {
        if (role == Qt::TextAlignmentRole)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        if (role != Qt::DisplayRole)
            break;
        const QVariant raw = QIdentityProxyModel::data(index, Qt::DisplayRole);
        if (!raw.isValid())
            return index.column() == Calls ? QStringLiteral("0") : QStringLiteral("–");
        if (index.column() == Calls)
            return raw;
        if (index.column() == ErrorRate)
            return QStringLiteral("%1 %").arg(
                raw.toDouble() * 100, 0, 'f', raw.toDouble() > 0 && raw.toDouble() < 0.1 ? 1 : 0);
        return Presentation::latencyText(raw.toDouble());
    }
    default:
        break;
    }
    return QIdentityProxyModel::data(index, role);
}

QVariant ToolsPresentation::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QIdentityProxyModel::headerData(section, orientation, role);
    using namespace ToolsModelColumn;
    switch (section) {
    case Name:
        return tr("Tool");
    case Title:
        return tr("Title");
    case ReadOnlyHint:
        return tr("readOnly");
    case DestructiveHint:
        return tr("destructive");
    case IdempotentHint:
        return tr("idempotent");
    case OpenWorldHint:
        return tr("openWorld");
    case OnExpiry:
        return tr("On expiry");
    case TaskSupport:
        return tr("Task");
    case Calls:
        return tr("Calls");
    case ErrorRate:
        return tr("Errors");
    case P50:
        return tr("p50");
    case P99:
        return tr("p99");
    default:
        return {};
    }
}

} // namespace mcpscope
