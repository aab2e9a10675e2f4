#pragma once

#include "engine/loadrunner.h"

#include <QDialog>
#include <QJsonObject>
#include <QPointer>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QLineEdit;
class QSpinBox;
class QTimer;

namespace mcpscope {

class Engine;
class LatencyHistogramView;

/// Load… on a tool: the engine's LoadRunner, as `mcpscope-cli load` runs it, with the tool's arguments
/// from the composer, and the counts and the latency histogram live (redrawn at most ten times a second).
/// Every call goes through Engine::call, so it is in the calls table and on the Charts tab as well.
///
/// Signals: finished when a run has ended (every call in flight too).
class LoadDialog : public QDialog
{
    Q_OBJECT
public:
    LoadDialog(Engine* engine, QString server, QString tool, QJsonObject arguments, QWidget* parent = nullptr);
    ~LoadDialog() override;

    void setConcurrency(int calls);
    /// A run of this many calls (the default), or, with seconds true, of this many seconds.
    void setLength(int value, bool seconds);
    void setRate(double callsPerSecond);
    /// A fault spec as `mcpscope-cli load --fault` takes it ("kill-after-write:every=20"); empty for none.
    void setFault(const QString& spec);

    /// Starts a run with the settings shown; stops the one running.
    void startOrStop();
    bool isRunning() const;
    /// The current or last run (nullptr before the first).
    const LoadRunner* runner() const { return m_runner; }
    QString summaryText() const;
    LatencyHistogramView* histogram() const { return m_histogram; }

Q_SIGNALS:
    void finished();

private:
    void refresh();
    void setSettingsEnabled(bool enabled);

    Engine* m_engine;
    QString m_server;
    QString m_tool;
    QJsonObject m_arguments;
    QSpinBox* m_concurrency = nullptr;
    QSpinBox* m_length = nullptr;
    QComboBox* m_unit = nullptr;
    QDoubleSpinBox* m_rate = nullptr;
    QLineEdit* m_fault = nullptr;
    QPushButton* m_start = nullptr;
    QLabel* m_summary = nullptr;
    LatencyHistogramView* m_histogram = nullptr;
    QTimer* m_redraw = nullptr;
    QPointer<LoadRunner> m_runner;
};

} // namespace mcpscope
