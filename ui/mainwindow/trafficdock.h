#pragma once

#include "calllog/callrecord.h"

#include <QByteArray>
#include <QDockWidget>
#include <QList>
#include <QTimer>

class QAction;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QTableView;

namespace mcpscope {

class TrafficFilter;
class TrafficModel;
class TrafficPresentation;

/// The Traffic dock: every wire message of every server (each log notification once, with its level
/// and text), filtered by text, by server and by log level, with the selected message pretty-printed
/// beside the table, and the control that asks the selected server to change its log level.
///
/// Signals: setLevelRequested(level) when the user asks for logging/setLevel with that level.
class TrafficDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit TrafficDock(TrafficModel* model, QWidget* parent = nullptr);

    /// The newest wire messages of record's attempts (at most 20, oldest first), looked up in the
    /// traffic shown: the raw messages of a record that has no recorded exchanges.
    QList<QByteArray> messagesOf(const CallRecord& record) const;

    /// Offers "Set server log level" for the selected server, or disables it saying why (why empty: enabled).
    /// A 2026-07-28 server has no logging/setLevel.
    void setLogLevelUnavailable(const QString& why);

    // For tests.
    TrafficFilter* filter() const { return m_filter; }
    QAction* setLevelAction() const { return m_setLevel; }
    QLineEdit* textFilter() const { return m_text; }
    QComboBox* serverFilter() const { return m_server; }
    QTableView* view() const { return m_view; }

Q_SIGNALS:
    void setLevelRequested(const QString& level);

private:
    void refreshServers();

    TrafficModel* m_model;
    TrafficFilter* m_filter = nullptr;
    QLineEdit* m_text = nullptr;
    QComboBox* m_server = nullptr;
    QTimer m_refreshServers;
    TrafficPresentation* m_presentation = nullptr;
    QTableView* m_view = nullptr;
    QComboBox* m_logLevel = nullptr;
    QAction* m_setLevel = nullptr;
    QPlainTextEdit* m_detail = nullptr;
};

} // namespace mcpscope
