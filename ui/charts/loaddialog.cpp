#include "loaddialog.h"

#include "engine/loadrunner.h"
#include "latencyhistogramview.h"
#include "presentation/presentation.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

namespace mcpscope {

LoadDialog::LoadDialog(Engine* engine, QString server, QString tool, QJsonObject arguments, QWidget* parent)
    : QDialog(parent)
    , m_engine(engine)
    , m_server(std::move(server))
    , m_tool(std::move(tool))
    , m_arguments(std::move(arguments))
    , m_redraw(new QTimer(this))
{
    setObjectName(QStringLiteral("loadDialog"));
    setWindowTitle(tr("Load %1 on %2").arg(m_tool, m_server));
    auto* form = new QFormLayout;
    auto* args = new QLabel(QString::fromUtf8(QJsonDocument(m_arguments).toJson(QJsonDocument::Compact)), this);
    args->setTextInteractionFlags(Qt::TextSelectableByMouse);
    args->setWordWrap(true);
    form->addRow(tr("Tool:"), new QLabel(QStringLiteral("<b>%1</b>").arg(m_tool.toHtmlEscaped()), this));
    form->addRow(tr("Arguments:"), args);
    m_concurrency = new QSpinBox(this);
    m_concurrency->setObjectName(QStringLiteral("concurrency"));
    m_concurrency->setRange(1, 1000);
    m_concurrency->setValue(4);
    m_concurrency->setSuffix(tr(" in flight"));
    form->addRow(tr("Concurrency:"), m_concurrency);
    auto* length = new QHBoxLayout;
    m_length = new QSpinBox(this);
    m_length->setObjectName(QStringLiteral("length"));
    m_length->setRange(1, 10000000);
    m_length->setValue(200);
    m_unit = new QComboBox(this);
    m_unit->addItems({ tr("calls"), tr("seconds") });
    length->addWidget(m_length, 1);
    length->addWidget(m_unit);
    form->addRow(tr("Run for:"), length);
    m_rate = new QDoubleSpinBox(this);
    m_rate->setObjectName(QStringLiteral("rate"));
    m_rate->setRange(0, 1e6);
    m_rate->setDecimals(1);
    m_rate->setSpecialValueText(tr("no limit"));
    m_rate->setSuffix(tr(" calls/s"));
    form->addRow(tr("Rate:"), m_rate);
    m_fault = new QLineEdit(this);
    m_fault->setObjectName(QStringLiteral("fault"));
    m_fault->setPlaceholderText(tr("none, or NAME[:every=N][:ms=MS], e.g. kill-after-write:every=20"));
    m_fault->setToolTip(tr("A fault armed before every N-th call, as mcpscope-cli load --fault takes it"));
    form->addRow(tr("Fault:"), m_fault);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("loadSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setTextFormat(Qt::PlainText);
    m_histogram = new LatencyHistogramView(this);
    m_histogram->setObjectName(QStringLiteral("loadHistogram"));
    m_histogram->setMinimumSize(480, 260);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_start = buttons->addButton(tr("Start"), QDialogButtonBox::ActionRole);
    m_start->setObjectName(QStringLiteral("startLoad"));
    m_start->setDefault(true);
    connect(m_start, &QPushButton::clicked, this, &LoadDialog::startOrStop);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_summary);
    layout->addWidget(m_histogram, 1);
    layout->addWidget(buttons);

    m_redraw->setInterval(100);
    connect(m_redraw, &QTimer::timeout, this, &LoadDialog::refresh);
    refresh();
}

LoadDialog::~LoadDialog()
{
    if (m_runner)
        m_runner->stop();
}

void LoadDialog::setConcurrency(int calls)
{
    m_concurrency->setValue(calls);
}

void LoadDialog::setLength(int value, bool seconds)
{
    m_length->setValue(value);
    m_unit->setCurrentIndex(seconds ? 1 : 0);
}

void LoadDialog::setRate(double callsPerSecond)
{
    m_rate->setValue(callsPerSecond);
}

void LoadDialog::setFault(const QString& spec)
{
    m_fault->setText(spec);
}

void LoadDialog::setSettingsEnabled(bool enabled)
{
    for (QWidget* setting : std::initializer_list<QWidget*> { m_concurrency, m_length, m_unit, m_rate, m_fault })
        setting->setEnabled(enabled);
}

bool LoadDialog::isRunning() const
{
    return m_runner && m_runner->isRunning();
}

void LoadDialog::startOrStop()
{
    if (isRunning()) {
        m_runner->stop();
        return;
    }
    LoadSpec spec;
    spec.tool = m_tool;
    spec.arguments = m_arguments;
    spec.concurrency = m_concurrency->value();
    if (m_unit->currentIndex() == 1)
        spec.durationMs = qint64(m_length->value()) * 1000;
    else
        spec.requests = m_length->value();
    spec.rate = m_rate->value();
    // The CLI's parser and check: a fault that cannot be armed starts nothing and says why.
    if (const QString faultSpec = m_fault->text().trimmed(); !faultSpec.isEmpty()) {
        QString error;
        spec.fault = LoadSpec::parseFault(faultSpec, &error);
        if (!spec.fault) {
            m_summary->setText(tr("Not started: %1").arg(error));
            return;
        }
    }
    auto* runner = new LoadRunner(m_engine, m_server, spec, this);
    if (const QString problem = runner->checkFault(); !problem.isEmpty()) {
        delete runner;
        m_summary->setText(tr("Not started: %1").arg(problem));
        return;
    }
    if (m_runner)
        m_runner->deleteLater();
    m_runner = runner;
    connect(m_runner, &LoadRunner::finished, this, [this] {
        m_redraw->stop();
        refresh();
        Q_EMIT finished();
    });
    setSettingsEnabled(false);
    m_start->setText(tr("Stop"));
    m_redraw->start();
    m_runner->start();
}

QString LoadDialog::summaryText() const
{
    return m_summary->text();
}

void LoadDialog::refresh()
{
    const bool running = isRunning();
    if (!running) {
        setSettingsEnabled(true);
        m_start->setText(tr("Start"));
    }
    if (!m_runner) {
        m_summary->setText(tr("Each call goes through the engine, with the recovery rules: a write is never sent "
                              "twice."));
        m_histogram->showStats(LatencyStats());
        return;
    }
    const CallStats& stats = m_runner->stats();
    const LatencyStats& latency = stats.latency();
    QString text = tr("%1 calls in %2 s (%3 calls/s)%4\n")
                       .arg(stats.count())
                       .arg(double(m_runner->elapsedMs()) / 1000.0, 0, 'f', 1)
                       .arg(m_runner->throughput(), 0, 'f', 1)
                       .arg(running ? tr(", %1 in flight").arg(m_runner->inFlight()) : QString());
    text += tr("ok %1   tool errors %2   errors %3   uncertain %4   breaker open %5\n")
                .arg(stats.ok())
                .arg(stats.toolErrors())
                .arg(stats.errors())
                .arg(stats.uncertain())
                .arg(stats.breakerOpen());
    text
        += tr("latency: min %1   mean %2   p50 %3   p90 %4   p99 %5   max %6")
               .arg(Presentation::latencyText(latency.min()), Presentation::latencyText(latency.mean()),
                   Presentation::latencyText(latency.percentile(50)), Presentation::latencyText(latency.percentile(90)),
                   Presentation::latencyText(latency.percentile(99)), Presentation::latencyText(latency.max()));
    const QList<CallStats::Message> top = stats.topErrors(3);
    for (const CallStats::Message& message : top)
        text += QStringLiteral("\n  %1 × %2").arg(message.count).arg(message.text);
    m_summary->setText(text);
    m_histogram->showStats(latency);
}

} // namespace mcpscope
