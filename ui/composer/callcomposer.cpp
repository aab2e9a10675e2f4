#include "callcomposer.h"

#include "schemaform.h"
#include "session/toolinfo.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace mcpscope {

namespace {

// The form lists at most this many problems; the rest are counted.
constexpr qsizetype MaxListedProblems = 5;

enum Tab { FormTab = 0, JsonTab = 1 };

QString numberText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

} // namespace

CallComposer::CallComposer(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_name(new QLabel(this))
    , m_description(new QLabel(this))
    , m_excluded(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_form(new SchemaForm)
    , m_json(new QPlainTextEdit)
    , m_jsonError(new QLabel)
    , m_problems(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_progressText(new QLabel(this))
    , m_asTask(new QCheckBox(tr("Run as task"), this))
    , m_call(new QPushButton(tr("Call"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    m_title->setObjectName(QStringLiteral("composer.title"));
    m_name->setObjectName(QStringLiteral("composer.name"));
    m_description->setObjectName(QStringLiteral("composer.description"));
    m_excluded->setObjectName(QStringLiteral("composer.excluded"));
    m_tabs->setObjectName(QStringLiteral("composer.mode"));
    m_form->setObjectName(QStringLiteral("composer.form"));
    m_json->setObjectName(QStringLiteral("composer.json"));
    m_jsonError->setObjectName(QStringLiteral("composer.jsonError"));
    m_problems->setObjectName(QStringLiteral("composer.problems"));
    m_progress->setObjectName(QStringLiteral("composer.progress"));
    m_progressText->setObjectName(QStringLiteral("composer.progressText"));
    m_call->setObjectName(QStringLiteral("composer.call"));
    m_cancel->setObjectName(QStringLiteral("composer.cancel"));
    m_asTask->setObjectName(QStringLiteral("composer.asTask"));

    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_name->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_name->setForegroundRole(QPalette::PlaceholderText);
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::PlainText);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_form);
    // The scroll area has no frame, so the form brings its own breathing room from the tab's edge.
    m_form->setContentsMargins(6, 6, 6, 6);
    m_tabs->addTab(scroll, tr("Form"));

    auto* jsonPage = new QWidget;
    auto* jsonLayout = new QVBoxLayout(jsonPage);
    jsonLayout->setContentsMargins(0, 0, 0, 0);
    jsonLayout->addWidget(m_json, 1);
    jsonLayout->addWidget(m_jsonError);
    m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_json->setTabChangesFocus(true);
    m_json->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_jsonError->setWordWrap(true);
    m_jsonError->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_jsonError->hide();
    m_tabs->addTab(jsonPage, tr("JSON"));
    m_tabs->setDocumentMode(true);

    m_excluded->setWordWrap(true);
    m_excluded->setTextFormat(Qt::PlainText);
    m_excluded->setStyleSheet(QStringLiteral("color: #b02a37;"));
    m_excluded->hide();

    m_problems->setWordWrap(true);
    m_problems->setTextFormat(Qt::PlainText);
    m_problems->setStyleSheet(QStringLiteral("color: #b9770e;"));
    m_problems->hide();

    m_progress->setTextVisible(false);
    m_progress->setRange(0, 0);
    m_progress->hide();
    m_progressText->hide();
    m_progressDelay = new QTimer(this);
    m_progressDelay->setSingleShot(true);
    m_progressDelay->setInterval(ProgressDelayMs);
    connect(m_progressDelay, &QTimer::timeout, this, [this] {
        m_progress->setVisible(m_running);
        m_progressText->setVisible(m_running);
    });

    m_call->setDefault(true);
    m_cancel->setToolTip(tr("Cancel the running call (Esc)"));
    m_cancel->setEnabled(false);

    auto* header = new QHBoxLayout;
    header->addWidget(m_title);
    header->addWidget(m_name);
    header->addStretch();

    auto* progressRow = new QHBoxLayout;
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_progressText, 1);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_asTask);
    buttons->addStretch();
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_call);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_description);
    layout->addWidget(m_excluded);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_problems);
    layout->addLayout(progressRow);
    layout->addLayout(buttons);

    // WidgetWithChildren: the keys work from any field of the composer, also inside a larger window.
    for (const QKeySequence& keys :
        { QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter) }) {
        auto* shortcut = new QShortcut(keys, this);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, &CallComposer::requestCall);
    }
    // Only while a call runs, so that otherwise Esc still reaches the window (a dialog closes).
    m_escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    m_escape->setContext(Qt::WidgetWithChildrenShortcut);
    m_escape->setEnabled(false);
    connect(m_escape, &QShortcut::activated, this, &CallComposer::cancelRequested);

    connect(m_call, &QPushButton::clicked, this, &CallComposer::requestCall);
    connect(m_cancel, &QPushButton::clicked, this, &CallComposer::cancelRequested);
    connect(m_form, &SchemaForm::valueChanged, this, &CallComposer::formEdited);
    connect(m_json, &QPlainTextEdit::textChanged, this, &CallComposer::jsonEdited);
    connect(m_tabs, &QTabWidget::currentChanged, this, &CallComposer::updateProblems);

    setTool(QJsonObject());
}

CallComposer::~CallComposer() = default;

void CallComposer::setTool(const QJsonObject& toolJson, const QString& excludedReason)
{
    m_tool = toolJson;
    m_excludedReason = excludedReason;
    m_excluded->setText(excludedReason.isEmpty()
            ? QString()
            : tr("Excluded: McpScope does not call this tool, because its input schema breaks the 2026-07-28 "
                 "x-mcp-header rules (%1).")
                  .arg(excludedReason));
    m_excluded->setVisible(!excludedReason.isEmpty());
    const QString name = toolJson.value(QStringLiteral("name")).toString();
    QString title = toolJson.value(QStringLiteral("title")).toString();
    if (title.isEmpty())
        title = toolJson.value(QStringLiteral("annotations")).toObject().value(QStringLiteral("title")).toString();
    m_title->setText(title.isEmpty() ? (name.isEmpty() ? tr("No tool selected") : name) : title);
    m_name->setText(name);
    m_name->setVisible(!name.isEmpty() && !title.isEmpty() && title != name);
    const QString description = toolJson.value(QStringLiteral("description")).toString();
    m_description->setText(description);
    m_description->setVisible(!description.isEmpty());
    const ToolInfo::TaskSupport support = ToolInfo::fromJson(toolJson).taskSupport;
    m_asTask->setChecked(support == ToolInfo::TaskSupport::Required);
    m_asTask->setEnabled(support == ToolInfo::TaskSupport::Optional);
    m_asTask->setToolTip(support == ToolInfo::TaskSupport::Required
            ? tr("This tool requires task augmentation: it is always called as a task, followed in the Tasks tab.")
            : support == ToolInfo::TaskSupport::Optional
            ? tr("Send params.task: the server runs the call as a task, followed in the Tasks tab.")
            : tr("This tool does not support tasks."));

    updateCallButton();
    m_form->setSchema(toolJson.value(QStringLiteral("inputSchema")).toObject());
    m_syncing = true;
    m_json->setPlainText(SchemaForm::toJsonText(m_form->value()));
    m_syncing = false;
    setJsonError(QString());
    updateProblems();
}

bool CallComposer::runAsTask() const
{
    return m_asTask->isChecked();
}

std::optional<QJsonObject> CallComposer::arguments() const
{
    if (m_tabs->currentIndex() != JsonTab)
        return m_form->value();
    const auto value = SchemaForm::parseJson(m_json->toPlainText());
    if (!value || !value->isObject())
        return std::nullopt;
    return value->toObject();
}

void CallComposer::setRunning(bool running)
{
    m_running = running;
    updateCallButton();
    m_cancel->setEnabled(running);
    m_escape->setEnabled(running);
    if (running) {
        m_progress->setRange(0, 0);
        m_progressText->setText(tr("Running…"));
        m_progressDelay->start();
    } else {
        m_progressDelay->stop();
        m_progress->hide();
        m_progressText->hide();
    }
}

void CallComposer::updateCallButton()
{
    const bool noTool = m_tool.value(QLatin1String("name")).toString().isEmpty();
    const bool excluded = !m_excludedReason.isEmpty();
    m_call->setEnabled(!m_running && !noTool && !excluded);
    m_call->setToolTip(noTool ? tr("Select a tool in the table above first")
            : excluded        ? tr("Not callable: excluded (%1)").arg(m_excludedReason)
                              : tr("Send tools/call (Ctrl+Return)"));
}

void CallComposer::setProgress(double progress, std::optional<double> total, const QString& message)
{
    QString text;
    if (total && *total > 0) {
        // Per mille, so that fractional progress (0.25 of 1) still moves the bar.
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(std::clamp(std::round(progress / *total * 1000.0), 0.0, 1000.0)));
        text = tr("%1 of %2").arg(numberText(progress), numberText(*total));
    } else {
        m_progress->setRange(0, 0);
        text = tr("progress %1").arg(numberText(progress));
    }
    if (!message.isEmpty())
        text += QStringLiteral(" — ") + message;
    m_progressText->setText(text);
    if (m_running) {
        m_progressDelay->stop();
        m_progress->show();
        m_progressText->show();
    }
}

void CallComposer::formEdited()
{
    if (m_syncing)
        return;
    m_syncing = true;
    m_json->setPlainText(SchemaForm::toJsonText(m_form->value()));
    m_syncing = false;
    setJsonError(QString());
    updateProblems();
}

void CallComposer::jsonEdited()
{
    if (m_syncing)
        return;
    QString error;
    const auto value = SchemaForm::parseJson(m_json->toPlainText(), &error);
    if (!value) {
        // The form keeps the last arguments that parsed.
        setJsonError(tr("Invalid JSON at %1").arg(error));
        return;
    }
    if (!value->isObject()) {
        setJsonError(tr("The arguments must be a JSON object, not %1.").arg(SchemaForm::toJsonText(*value)));
        return;
    }
    setJsonError(QString());
    m_syncing = true;
    m_form->setValue(value->toObject());
    m_syncing = false;
    updateProblems();
}

void CallComposer::requestCall()
{
    if (m_running || !m_excludedReason.isEmpty())
        return;
    const auto args = arguments();
    if (!args) {
        m_tabs->setCurrentIndex(JsonTab);
        m_json->setFocus();
        return;
    }
    Q_EMIT callRequested(*args);
}

void CallComposer::updateProblems()
{
    QStringList problems;
    m_form->isValid(&problems);
    if (problems.isEmpty()) {
        m_problems->hide();
        m_problems->clear();
        return;
    }
    QStringList lines = problems.mid(0, MaxListedProblems);
    if (problems.size() > MaxListedProblems)
        lines << tr("… and %n more", nullptr, int(problems.size() - MaxListedProblems));
    m_problems->setText(tr("The arguments do not match the schema (Call sends them anyway):") + QLatin1Char('\n')
        + lines.join(QLatin1Char('\n')));
    m_problems->show();
}

void CallComposer::setJsonError(const QString& error)
{
    m_jsonError->setText(error);
    m_jsonError->setVisible(!error.isEmpty());
    // A broken JSON tab is worth knowing about from the form too: the form shows the last good arguments.
    m_tabs->setTabText(JsonTab, error.isEmpty() ? tr("JSON") : tr("JSON (invalid)"));
}

} // namespace mcpscope
