#pragma once

#include "calllog/callrecord.h"

#include <QJsonObject>
#include <QPointer>
#include <QSplitter>

#include <functional>
#include <optional>

class QAbstractItemModel;
class QModelIndex;
class QTableView;

namespace mcpscope {

class CallComposer;
class Engine;
class ResultView;
class ServerConnection;

/// The Tools tab: the selected server's tools (one column per annotation), the composer for the
/// selected tool, and the result of the call it runs. A call runs through Engine::call; its result
/// shows when the engine reports it finished (or at once, when it is refused before it starts).
///
/// Signals: statusMessage(text) when a call cannot start, saying why; loadRequested when the user asks
/// for Load… on the selected tool (its context menu), with the composer's arguments.
class ToolsPage : public QSplitter
{
    Q_OBJECT
public:
    /// tools is the presentation of the selected server's ToolsModel; currentConnection gives the
    /// selected server (or nullptr) when a call starts.
    ToolsPage(Engine* engine, QAbstractItemModel* tools, std::function<ServerConnection*()> currentConnection,
        QWidget* parent = nullptr);

    /// Selects the tool (and loads it into the composer); false when the server has no such tool.
    bool selectTool(const QString& name);
    /// Calls the selected tool with the composer's arguments (what Ctrl+Return does).
    void callSelectedTool();
    /// Load… on the selected tool: emits loadRequested with the composer's arguments, or says why not.
    void requestLoad();
    /// Empties the composer, for a newly selected server.
    void clearTool();

    QTableView* toolsView() const { return m_toolsView; }
    CallComposer* composer() const { return m_composer; }
    ResultView* resultView() const { return m_result; }

Q_SIGNALS:
    void statusMessage(const QString& text);
    void loadRequested(const QString& tool, const QJsonObject& arguments);

private:
    /// The selected tool's name and the composer's arguments, or nullopt after saying why not (statusMessage).
    std::optional<QJsonObject> selectedCall(QString* name);
    void onCallUpdated(const CallRecord& record);
    void onToolSelected(const QModelIndex& index);
    void reselectKeptTool();
    /// Columns to their contents, narrowed where the table is too narrow for them all.
    void fitColumns();

    Engine* m_engine;
    QAbstractItemModel* m_tools;
    std::function<ServerConnection*()> m_currentConnection;
    QTableView* m_toolsView = nullptr;
    CallComposer* m_composer = nullptr;
    ResultView* m_result = nullptr;
    QString m_runningCall;
    QString m_shownCall; ///< the call whose result the result view shows (a task's changes as they come)
    /// The composer's tool while the tools are listed again (a reconnect or heal).
    QString m_keptTool;
    QPointer<ServerConnection> m_runningOn;
    bool m_fittingColumns = false;
    bool m_columnsSizedByHand = false;
};

} // namespace mcpscope
