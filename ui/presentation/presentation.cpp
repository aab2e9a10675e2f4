#include "presentation.h"

#include "jsonrpc/translation.h"
#include "models/callsmodeldefs.h"
#include "models/serverlistmodeldefs.h"
#include "models/toolsmodeldefs.h"
#include "models/trafficmodeldefs.h"
#include "session/toolinfo.h"

#include <QApplication>
#include <QDateTime>
#include <QFont>
#include <QHeaderView>
#include <QJsonValue>
#include <QResizeEvent>
#include <QStyle>
#include <QTableView>

#include <algorithm>
#include <cmath>

namespace mcpscope {

QString Presentation::stateText(ServerConnection::State state)
{
    switch (state) {
    case ServerConnection::State::Disconnected:
        return McpScope::tr("disconnected");
    case ServerConnection::State::Connecting:
        return McpScope::tr("connecting");
    case ServerConnection::State::Initializing:
        return McpScope::tr("initializing");
    case ServerConnection::State::Ready:
        return McpScope::tr("ready");
    case ServerConnection::State::Suspect:
        return McpScope::tr("suspect");
    case ServerConnection::State::Reconnecting:
        return McpScope::tr("reconnecting");
    case ServerConnection::State::Parked:
        return McpScope::tr("parked");
    case ServerConnection::State::NeedsAuth:
        return McpScope::tr("needs auth");
    case ServerConnection::State::Failed:
        return McpScope::tr("failed");
    case ServerConnection::State::Closed:
        return McpScope::tr("closed");
    }
    return {};
}

QColor Presentation::stateColour(ServerConnection::State state)
{
    switch (state) {
    case ServerConnection::State::Ready:
        return QColor(0x19, 0x87, 0x54);
    case ServerConnection::State::Connecting:
    case ServerConnection::State::Initializing:
    case ServerConnection::State::Reconnecting:
        return QColor(0x0d, 0x6e, 0xfd);
    case ServerConnection::State::Suspect:
    case ServerConnection::State::Parked:
    case ServerConnection::State::NeedsAuth:
        return QColor(0xe0, 0xa8, 0x00);
    case ServerConnection::State::Failed:
        return QColor(0xb0, 0x2a, 0x37);
    case ServerConnection::State::Disconnected:
    case ServerConnection::State::Closed:
        break;
    }
    return QColor(0x6c, 0x75, 0x7d);
}

QString Presentation::transportText(TransportKind kind)
{
    switch (kind) {
    case TransportKind::Stdio:
        return McpScope::tr("stdio");
    case TransportKind::StreamableHttp:
        return McpScope::tr("HTTP");
    case TransportKind::LegacySse:
        return McpScope::tr("SSE (legacy)");
    case TransportKind::AutoHttp:
        return McpScope::tr("HTTP (auto)");
    }
    return {};
}

QString Presentation::breakerText(CircuitBreaker::State state, qint64 cooldownEndMs, qint64 nowMs)
{
    switch (state) {
    case CircuitBreaker::State::Closed:
        return McpScope::tr("closed");
    case CircuitBreaker::State::HalfOpen:
        return McpScope::tr("half-open");
    case CircuitBreaker::State::Open: {
        const qint64 left = cooldownEndMs - nowMs;
        return left > 0 ? McpScope::tr("open %1 s").arg((left + 999) / 1000) : McpScope::tr("open (probe next)");
    }
    }
    return {};
}

QColor Presentation::breakerColour(CircuitBreaker::State state)
{
    switch (state) {
    case CircuitBreaker::State::Closed:
        return QColor(0x19, 0x87, 0x54);
    case CircuitBreaker::State::HalfOpen:
        return QColor(0xe0, 0xa8, 0x00);
    case CircuitBreaker::State::Open:
        return QColor(0xb0, 0x2a, 0x37);
    }
    return {};
}

QString Presentation::outcomeText(CallOutcome outcome)
{
    switch (outcome) {
    case CallOutcome::Pending:
        return McpScope::tr("running…");
    case CallOutcome::Success:
        return McpScope::tr("success");
    case CallOutcome::ToolError:
        return McpScope::tr("tool error");
    case CallOutcome::ProtocolError:
        return McpScope::tr("protocol error");
    case CallOutcome::OutcomeUncertain:
        return McpScope::tr("outcome uncertain");
    case CallOutcome::Timeout:
        return McpScope::tr("timeout");
    case CallOutcome::NeedsAuth:
        return McpScope::tr("needs auth");
    case CallOutcome::BreakerOpen:
        return McpScope::tr("breaker open");
    case CallOutcome::NotDispatched:
        return McpScope::tr("not dispatched");
    case CallOutcome::Cancelled:
        return McpScope::tr("cancelled");
    case CallOutcome::TransportError:
        return McpScope::tr("transport error");
    case CallOutcome::Interrupted:
        return McpScope::tr("interrupted");
    }
    return {};
}

QColor Presentation::outcomeColour(CallOutcome outcome)
{
    switch (outcome) {
    case CallOutcome::Success:
        return QColor(0x19, 0x87, 0x54);
    case CallOutcome::OutcomeUncertain:
        return QColor(0xff, 0xc1, 0x07);
    case CallOutcome::Pending:
        return QColor(0x0d, 0x6e, 0xfd);
    case CallOutcome::Cancelled:
    case CallOutcome::Interrupted:
        return QColor(0x6c, 0x75, 0x7d);
    case CallOutcome::BreakerOpen:
        return QColor(0x6f, 0x42, 0xc1);
    default:
        return QColor(0xb0, 0x2a, 0x37);
    }
}

QString Presentation::durationText(qint64 ms)
{
    if (ms < 0)
        return {};
    if (ms < 1000)
        return McpScope::tr("%1 ms").arg(ms);
    return McpScope::tr("%1 s").arg(double(ms) / 1000.0, 0, 'f', 2);
}

QString Presentation::latencyText(double ms)
{
    if (ms < 0)
        return {};
    if (ms < 10)
        return McpScope::tr("%1 ms").arg(ms, 0, 'f', ms == std::floor(ms) ? 0 : 2);
    return durationText(qRound64(ms));
}

QString Presentation::timeText(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(QStringLiteral("HH:mm:ss.zzz"));
}

QTableView* Presentation::makeTable(
    QWidget* parent, const QString& objectName, QAbstractItemView::SelectionMode selection)
{
    auto* view = new QTableView(parent);
    view->setObjectName(objectName);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(selection);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(22);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    return view;
}

QString Presentation::shortSessionId(const QString& id)
{
    return id.size() > 12 ? id.left(8) + QStringLiteral("…") : id;
}

void Presentation::sizeColumns(QTableView* view, std::initializer_list<std::pair<int, QStringView>> samples)
{
    const int margins = 2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1) + 4;
    for (const auto& [column, sample] : samples) {
        view->setColumnWidth(column,
            sample.isEmpty() ? view->horizontalHeader()->sectionSizeHint(column)
                             : view->fontMetrics().horizontalAdvance(sample.toString()) + margins);
    }
}

namespace {
/// whenWidthChanges(): an event filter on the widget, owned by it.
class WidthWatcher : public QObject
{
public:
    WidthWatcher(QWidget* widget, std::function<void()> changed)
        : QObject(widget)
        , m_changed(std::move(changed))
    {
        widget->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Resize) {
            const auto* resize = static_cast<QResizeEvent*>(event);
            if (resize->size().width() != resize->oldSize().width())
                m_changed();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    std::function<void()> m_changed;
};
} // namespace

void Presentation::whenWidthChanges(QWidget* widget, std::function<void()> changed)
{
    new WidthWatcher(widget, std::move(changed));
}

void Presentation::shrinkToFit(QHeaderView* header, int available, std::initializer_list<std::pair<int, int>> columns)
{
    for (const auto& [column, least] : columns) {
        if (header->isSectionHidden(column))
            continue;
        // A stretching last column never gets narrower than the header's default size, so narrowing a column
        // can widen it: measure again once.
        for (int pass = 0; pass < 2; ++pass) {
            const int excess = header->length() - available;
            if (excess <= 0)
                return;
            const int width = header->sectionSize(column);
            if (width > least)
                header->resizeSection(column, std::max(least, width - excess));
        }
    }
}

QColor Presentation::textOn(const QColor& background)
{
    return background.lightnessF() > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

ServerListPresentation::ServerListPresentation(QObject* parent)
    : QIdentityProxyModel(parent)
{
    // A live countdown for open breakers without the core model ticking.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        const int rows = rowCount();
        if (rows > 0)
            Q_EMIT dataChanged(index(0, ServerListModelColumn::BreakerState),
                index(rows - 1, ServerListModelColumn::BreakerState), { Qt::DisplayRole });
    });
    m_tick.start();
}

QVariant ServerListPresentation::data(const QModelIndex& index, int role) const
{
    using namespace ServerListModelColumn;
    const QVariant raw = QIdentityProxyModel::data(index, Qt::DisplayRole);
    const auto state
        = ServerConnection::State(QIdentityProxyModel::data(index, ServerListModelRole::StateRole).toInt());
    switch (index.column()) {
    case Name:
        if (role == Qt::ToolTipRole)
            return QIdentityProxyModel::data(index, ServerListModelRole::LastErrorRole);
        break;
    case ServerListModelColumn::Transport:
        if (role == Qt::DisplayRole)
            return Presentation::transportText(TransportKind(raw.toInt()));
        if (role == Qt::DecorationRole)
            return QApplication::style()->standardIcon(
                TransportKind(raw.toInt()) == TransportKind::Stdio ? QStyle::SP_ComputerIcon : QStyle::SP_DriveNetIcon);
        break;
    case State:
        if (role == Qt::DisplayRole)
            return Presentation::stateText(state);
        if (role == Qt::BackgroundRole)
            return Presentation::stateColour(state);
        if (role == Qt::ForegroundRole)
            return Presentation::textOn(Presentation::stateColour(state));
        if (role == Qt::ToolTipRole) {
            const QString error = QIdentityProxyModel::data(index, ServerListModelRole::LastErrorRole).toString();
            if (state != ServerConnection::State::NeedsAuth)
                return error;
            const QString hint
                = tr("Needs authorization: finish it in the browser, or press Authorize in the Auth tab.");
            return error.isEmpty() ? hint : hint + QLatin1Char('\n') + error;
        }
        break;
    case SessionId:
        if (role == Qt::DisplayRole)
            return Presentation::shortSessionId(raw.toString());
        if (role == Qt::ToolTipRole || role == Qt::EditRole)
            return raw;
        break;
    case BreakerState: {
        const auto breaker = CircuitBreaker::State(raw.toInt());
        if (role == Qt::DisplayRole)
            return Presentation::breakerText(breaker,
                QIdentityProxyModel::data(index, ServerListModelRole::BreakerCooldownEndRole).toLongLong(),
                QDateTime::currentMSecsSinceEpoch());
        if (role == Qt::BackgroundRole)
            return Presentation::breakerColour(breaker);
        if (role == Qt::ForegroundRole)
            return Presentation::textOn(Presentation::breakerColour(breaker));
        break;
    }
    case BreakerCooldownEnd:
        if (role == Qt::DisplayRole)
            return raw.toLongLong() > 0 ? Presentation::timeText(raw.toLongLong()) : QString();
        break;
    case Era: {
        const bool detected = QIdentityProxyModel::data(index, ServerListModelRole::EraDetectedRole).toBool();
        if (role == Qt::DisplayRole)
            return Presentation::eraText(ProtocolEra(raw.toInt()), detected,
                QIdentityProxyModel::data(index, ServerListModelRole::SessionIdRole).toString());
        if (role == Qt::ToolTipRole) {
            const int known = QIdentityProxyModel::data(index, ServerListModelRole::KnownEraRole).toInt();
            return Presentation::eraToolTip(ProtocolEra(raw.toInt()), detected,
                known < 0 ? std::nullopt : std::optional<ProtocolEra>(ProtocolEra(known)));
        }
        break;
    }
    default:
        break;
    }
    return QIdentityProxyModel::data(index, role);
}

QVariant ServerListPresentation::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QIdentityProxyModel::headerData(section, orientation, role);
    using namespace ServerListModelColumn;
    switch (section) {
    case Name:
        return tr("Server");
    case ServerListModelColumn::Transport:
        return tr("Transport");
    case State:
        return tr("State");
    case SessionId:
        return tr("Session");
    case ProtocolVersion:
        return tr("Protocol");
    case BreakerState:
        return tr("Breaker");
    case ConsecutiveFailures:
        return tr("Strikes");
    case BreakerCooldownEnd:
        return tr("Cooldown until");
    case Calls:
        return tr("Calls");
    case Failures:
        return tr("Failures");
    case Retries:
        return tr("Retries");
    case Uncertain:
        return tr("Uncertain");
    case InFlight:
        return tr("In flight");
    case Era:
        return tr("Era");
    default:
        return {};
    }
}

CallsPresentation::CallsPresentation(QObject* parent)
    : QIdentityProxyModel(parent)
{ }

QVariant CallsPresentation::data(const QModelIndex& index, int role) const
{
    using namespace CallsModelColumn;
    const QVariant raw = QIdentityProxyModel::data(index, Qt::DisplayRole);
    switch (index.column()) {
    case Time:
        if (role == Qt::DisplayRole)
            return Presentation::timeText(raw.toLongLong());
        break;
    case Duration:
        if (role == Qt::DisplayRole)
            return raw.isValid() ? Presentation::durationText(raw.toLongLong()) : tr("…");
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Attempts:
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignCenter);
        break;
    case Outcome: {
        const auto outcome = CallOutcome(raw.toInt());
        // A success made without the input the server asked for is not shown green.
        const bool declined = outcome == CallOutcome::Success
            && QIdentityProxyModel::data(index, CallsModelRole::InputDeclinedRole).toBool();
        const QColor colour = declined ? QColor(0xf0, 0xc0, 0x40) : Presentation::outcomeColour(outcome);
        if (role == Qt::DisplayRole)
            return declined ? tr("input declined") : Presentation::outcomeText(outcome);
        if (role == Qt::ToolTipRole && declined)
            return tr("The server asked for input (elicitation/create) and McpScope declined it: the result is what "
                      "the tool does without that input.");
        if (role == Qt::BackgroundRole)
            return colour;
        if (role == Qt::ForegroundRole)
            return Presentation::textOn(colour);
        if (role == Qt::FontRole && outcome == CallOutcome::OutcomeUncertain) {
            QFont font;
            font.setBold(true);
            return font;
        }
        break;
    }
    default:
        break;
    }
    return QIdentityProxyModel::data(index, role);
}

QVariant CallsPresentation::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QIdentityProxyModel::headerData(section, orientation, role);
    using namespace CallsModelColumn;
    switch (section) {
    case Time:
        return tr("Time");
    case Server:
        return tr("Server");
    case Tool:
        return tr("Tool");
    case Duration:
        return tr("Duration");
    case Attempts:
        return tr("Attempts");
    case Rule:
        return tr("Rule");
    case Outcome:
        return tr("Outcome");
    default:
        return {};
    }
}

TrafficPresentation::TrafficPresentation(QObject* parent)
    : QIdentityProxyModel(parent)
{ }

QVariant TrafficPresentation::data(const QModelIndex& index, int role) const
{
    using namespace TrafficModelColumn;
    const QVariant raw = QIdentityProxyModel::data(index, Qt::DisplayRole);
    switch (index.column()) {
    case Time:
        if (role == Qt::DisplayRole)
            return Presentation::timeText(raw.toLongLong());
        break;
    case Direction:
        if (role == Qt::DisplayRole) {
            switch (TrafficDirection(raw.toInt())) {
            case TrafficDirection::Outgoing:
                return tr("→ sent");
            case TrafficDirection::Incoming:
                return tr("← received");
            case TrafficDirection::Stderr:
                return tr("stderr");
            case TrafficDirection::Log: {
                static const char* const levels[]
                    = { "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" };
                const int level = QIdentityProxyModel::data(index, TrafficModelRole::LogLevelRole).toInt();
                return level >= 0 && level < 8 ? tr("log · %1").arg(QLatin1String(levels[level])) : tr("log");
            }
            case TrafficDirection::Action:
                return tr("action");
            case TrafficDirection::Notice:
                return tr("mcpscope");
            }
        }
        break;
    case Size:
        if (role == Qt::DisplayRole) {
            const qint64 bytes = raw.toLongLong();
            return bytes < 10240 ? tr("%1 B").arg(bytes) : tr("%1 KiB").arg(bytes / 1024);
        }
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    if (role == Qt::ToolTipRole)
        return QString::fromUtf8(
            QIdentityProxyModel::data(index, TrafficModelRole::PayloadRole).toByteArray().left(2000));
    if (role == Qt::ForegroundRole) {
        // Log rows stand out by level: warnings amber, errors and worse red.
        const int level = QIdentityProxyModel::data(index, TrafficModelRole::LogLevelRole).toInt();
        if (level >= int(TrafficLogLevel::Error))
            return QColor(0xb0, 0x2a, 0x37);
        if (level == int(TrafficLogLevel::Warning))
            return QColor(0x9a, 0x67, 0x00);
    }
    return QIdentityProxyModel::data(index, role);
}

QVariant TrafficPresentation::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QIdentityProxyModel::headerData(section, orientation, role);
    using namespace TrafficModelColumn;
    switch (section) {
    case Time:
        return tr("Time");
    case Server:
        return tr("Server");
    case Direction:
        return tr("Direction");
    case Method:
        return tr("Method");
    case Size:
        return tr("Size");
    case Text:
        return tr("Message");
    default:
        return {};
    }
}

} // namespace mcpscope
