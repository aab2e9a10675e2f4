#pragma once

#include "calllog/callrecord.h"
#include "calllog/jobtracker.h"
#include "session/toolinfo.h"

#include <QElapsedTimer>
#include <QJsonValue>
#include <QWidget>

#include <functional>
#include <optional>

class QLabel;
class QPlainTextEdit;
class QStackedWidget;
class QTabWidget;
class QTimer;
class QTreeView;
class QVBoxLayout;

namespace mcpscope {

class JsonTreeModel;
class LargeTextView;

/// Shows a tool result as a person reads it: text blocks, images, resource links, the
/// structuredContent as a collapsible tree with its output-schema verdict, isError plainly, and the
/// uncertain-outcome badge. Pretty-printing and tree building run as a JobTracker job on a worker
/// thread; results that arrive after a newer call was shown are dropped. A text block over LargeTextChars
/// and raw JSON over LargeRawBytes are shown in a LargeTextView, cut into rows on that worker, because
/// QPlainTextEdit lays out a 20 MB line for seconds on the GUI thread. The Raw JSON of an answer over
/// LargeRawBytes is written only when its tab is open or opened: the indented copy is as large as the
/// answer, and most large answers are read as content.
class ResultView : public QWidget
{
    Q_OBJECT
public:
    static constexpr qsizetype LargeTextChars = 200000;
    static constexpr qsizetype LargeRawBytes = 200000;

    explicit ResultView(QWidget* parent = nullptr);

    /// tool may be null (not listed); the verdict is then "not applicable".
    void showRecord(const CallRecord& record, const ToolInfo* tool);
    void showMessage(const QString& text);
    void clear();

    /// The same for a stream of calls (the Tools tab's Call, pressed again and again, or a script
    /// driving it): shown at once when nothing was shown for CoalesceMs, else once CoalesceMs have
    /// passed since, and only the newest of what came in between. Rebuilding the blocks relays out
    /// the whole centre of the window, so at hundreds of calls a second this keeps it to 20 a second.
    /// showRecord(), showMessage() and clear() show at once and drop what waits.
    static constexpr int CoalesceMs = 50;
    void presentRecord(const CallRecord& record, const ToolInfo* tool);
    void presentMessage(const QString& text);
    /// Something presented waits for its turn.
    bool presentPending() const { return bool(m_pending); }

    /// The most recent job's number; tests wait for renderedJob() to reach it.
    quint64 currentJob() const { return m_jobs.currentJob(); }
    quint64 renderedJob() const { return m_rendered; }
    /// A large answer's Raw JSON waits for its tab to open.
    bool rawDeferred() const { return m_rawPending.has_value(); }
    /// A Raw JSON job runs (its tab was opened on a deferred one).
    bool rawRendering() const { return m_rawJobs.isJobRunning(); }

Q_SIGNALS:
    void rendered(quint64 job);
    /// A deferred Raw JSON is shown.
    void rawRendered();
    /// The user clicked a resource_link or an embedded resource's URI: the Resources tab opens it.
    void resourceLinkActivated(const QString& uri);

private:
    void present(std::function<void()> show);
    void dropPending();
    void clearBlocks();
    void addBlock(QWidget* widget);
    void addLinkBlock(QLabel* label);
    void startRawJob();

    QTabWidget* m_tabs = nullptr;
    QWidget* m_blocksHost = nullptr;
    QVBoxLayout* m_blocks = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_verdict = nullptr;
    QTreeView* m_tree = nullptr;
    JsonTreeModel* m_treeModel = nullptr;
    QStackedWidget* m_rawStack = nullptr;
    QPlainTextEdit* m_raw = nullptr;
    LargeTextView* m_rawLarge = nullptr;
    QLabel* m_rawWaiting = nullptr;
    std::optional<QJsonValue> m_rawPending; ///< a large answer's result (or error), while its Raw JSON waits
    qint64 m_rawPendingBytes = 0;
    JobTracker m_jobs { this };
    JobTracker m_rawJobs { this };
    quint64 m_rendered = 0;
    std::function<void()> m_pending;
    QTimer* m_presentTimer = nullptr;
    QElapsedTimer m_lastShown;
};

} // namespace mcpscope
