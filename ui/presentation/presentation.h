#pragma once

#include "calllog/callrecord.h"
#include "config/serverconfig.h"
#include "engine/serverconnection.h"
#include "recovery/circuitbreaker.h"

#include <QAbstractItemView>
#include <QColor>
#include <QIdentityProxyModel>
#include <QTimer>

#include <functional>
#include <initializer_list>
#include <utility>

class QHeaderView;
class QTableView;

namespace mcpscope {

/// Words and colours for the raw values the core models carry. One place, so every view agrees.
namespace Presentation {
QString stateText(ServerConnection::State state);
QColor stateColour(ServerConnection::State state);
QString transportText(TransportKind kind);
QString breakerText(CircuitBreaker::State state, qint64 cooldownEndMs, qint64 nowMs);
QColor breakerColour(CircuitBreaker::State state);
QString outcomeText(CallOutcome outcome);
QColor outcomeColour(CallOutcome outcome);
QString durationText(qint64 ms);
/// A latency that may be fractional (a load run's, a percentile): "0.42 ms", "12 ms", "1.50 s".
QString latencyText(double ms);
QString timeText(qint64 msSinceEpoch);
QString shortSessionId(const QString& id);
/// The house table: whole-row selection, no row numbers, compact rows, alternating colours.
QTableView* makeTable(QWidget* parent, const QString& objectName,
    QAbstractItemView::SelectionMode selection = QAbstractItemView::SingleSelection);
/// Sets columns' widths: each to hold its sample text, or its header's text for an empty sample, with the cell's
/// margins. For a table's first widths, before any row arrives.
void sizeColumns(QTableView* view, std::initializer_list<std::pair<int, QStringView>> samples);
/// Calls changed after each resize of widget that changes its width (a view's viewport, say).
void whenWidthChanges(QWidget* widget, std::function<void()> changed);
/// Narrows columns that were fitted to their contents until every visible column fits in available pixels:
/// each of columns in turn (a column and its least width), so that free text gives way before the figures and
/// badges to its right scroll out of sight. Leaves the rest to the horizontal scroll bar.
void shrinkToFit(QHeaderView* header, int available, std::initializer_list<std::pair<int, int>> columns);
/// White or black, whichever reads better on the given badge colour.
QColor textOn(const QColor& background);
/// The protocol era as the servers list shows it: "modern · sessionless", "legacy · session 3f2a…" once a
/// session decided it (detected), else the configured era ("auto" until a probe decided).
QString eraText(ProtocolEra era, bool detected, const QString& sessionId);
/// What the era means for this server, and for auto what the last probe found (known, when there is one).
QString eraToolTip(ProtocolEra era, bool detected, std::optional<ProtocolEra> known);
/// The server dialog's choice: "Auto", "Legacy (2025-11-25, sessions)", "Modern (2026-07-28, sessionless)".
QString eraChoiceText(ProtocolEra era);
/// Why one would choose it.
QString eraChoiceToolTip(ProtocolEra era);
} // namespace Presentation

/// ServerListModel → text, badges, tooltips; ticks once a second while a breaker counts down.
class ServerListPresentation : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit ServerListPresentation(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QTimer m_tick;
};

/// ToolsModel → "true (explicit)" / "false (default)" and the on-expiry behaviour in words.
class ToolsPresentation : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit ToolsPresentation(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

/// CallsModel (through its filter) → times, durations, outcome badges (outcome_uncertain has its own).
class CallsPresentation : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit CallsPresentation(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

/// TrafficModel → time, direction arrows, sizes.
class TrafficPresentation : public QIdentityProxyModel
{
    Q_OBJECT
public:
    explicit TrafficPresentation(QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
};

} // namespace mcpscope
