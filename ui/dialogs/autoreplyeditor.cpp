#include "autoreplyeditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLineEdit>

namespace mcpscope {

AutoReplyEditor::AutoReplyEditor(QWidget* parent)
    : QGroupBox(tr("Answer server requests automatically"), parent)
{
    setObjectName(QStringLiteral("autoReplyEditor"));
    auto* form = new QFormLayout(this);
    m_sampling = new QCheckBox(tr("&Sampling:"), this);
    m_sampling->setObjectName(QStringLiteral("autoReplySampling"));
    auto* samplingRow = new QHBoxLayout();
    m_text = new QLineEdit(this);
    m_text->setObjectName(QStringLiteral("autoReplySamplingText"));
    m_text->setPlaceholderText(tr("reply text"));
    m_model = new QLineEdit(QStringLiteral("mcpscope-canned"), this);
    m_model->setObjectName(QStringLiteral("autoReplySamplingModel"));
    m_model->setPlaceholderText(tr("model"));
    m_model->setMaximumWidth(180);
    samplingRow->addWidget(m_text, 1);
    samplingRow->addWidget(m_model);
    form->addRow(m_sampling, samplingRow);

    m_elicitation = new QCheckBox(tr("&Elicitation:"), this);
    m_elicitation->setObjectName(QStringLiteral("autoReplyElicitation"));
    auto* elicitationRow = new QHBoxLayout();
    m_action = new QComboBox(this);
    m_action->setObjectName(QStringLiteral("autoReplyElicitationAction"));
    m_action->addItems({ QStringLiteral("accept"), QStringLiteral("decline"), QStringLiteral("cancel") });
    m_content = new QLineEdit(this);
    m_content->setObjectName(QStringLiteral("autoReplyElicitationContent"));
    m_content->setPlaceholderText(tr("content for accept, a JSON object; schema defaults fill the rest"));
    elicitationRow->addWidget(m_action);
    elicitationRow->addWidget(m_content, 1);
    form->addRow(m_elicitation, elicitationRow);
    setToolTip(tr("For scripted testing: checked requests are answered at once with this reply, and the call's "
                  "timeline shows it. Unchecked ones wait for you in the Server Requests panel."));

    for (QCheckBox* box : { m_sampling, m_elicitation })
        connect(box, &QCheckBox::toggled, this, [this] {
            updateEnabled();
            Q_EMIT changed();
        });
    for (QLineEdit* line : { m_text, m_model, m_content })
        connect(line, &QLineEdit::textEdited, this, &AutoReplyEditor::changed);
    connect(m_action, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        Q_EMIT changed();
    });
    updateEnabled();
}

void AutoReplyEditor::updateEnabled()
{
    m_text->setEnabled(m_sampling->isChecked());
    m_model->setEnabled(m_sampling->isChecked());
    m_action->setEnabled(m_elicitation->isChecked());
    m_content->setEnabled(m_elicitation->isChecked() && m_action->currentText() == QLatin1String("accept"));
}

void AutoReplyEditor::setScript(const QJsonObject& script)
{
    m_loaded = script;
    const QJsonValue sampling = script.value(QLatin1String("sampling"));
    m_sampling->setChecked(sampling.isObject());
    const QJsonObject s = sampling.toObject();
    // {"text", "model"}, or a full CreateMessageResult with its text in content.
    m_text->setText(s.contains(QLatin1String("text"))
            ? s.value(QLatin1String("text")).toString()
            : s.value(QLatin1String("content")).toObject().value(QLatin1String("text")).toString());
    m_model->setText(s.value(QLatin1String("model")).toString(QStringLiteral("mcpscope-canned")));
    const QJsonValue elicitation = script.value(QLatin1String("elicitation"));
    m_elicitation->setChecked(elicitation.isObject());
    const QJsonObject e = elicitation.toObject();
    m_action->setCurrentText(e.value(QLatin1String("action")).toString(QStringLiteral("accept")));
    const QJsonObject content = e.value(QLatin1String("content")).toObject();
    m_content->setText(
        content.isEmpty() ? QString() : QString::fromUtf8(QJsonDocument(content).toJson(QJsonDocument::Compact)));
    updateEnabled();
    m_loadedShown = shownScript();
}

QJsonObject AutoReplyEditor::shownScript() const
{
    QJsonObject script;
    if (m_sampling->isChecked())
        script.insert(QStringLiteral("sampling"),
            QJsonObject {
                { QStringLiteral("text"), m_text->text() }, { QStringLiteral("model"), m_model->text().trimmed() } });
    if (m_elicitation->isChecked()) {
        QJsonObject answer { { QStringLiteral("action"), m_action->currentText() } };
        const QJsonObject content = QJsonDocument::fromJson(m_content->text().toUtf8()).object();
        if (m_action->currentText() == QLatin1String("accept") && !content.isEmpty())
            answer.insert(QStringLiteral("content"), content);
        script.insert(QStringLiteral("elicitation"), answer);
    }
    return script;
}

QJsonObject AutoReplyEditor::script() const
{
    const QJsonObject shown = shownScript();
    return shown == m_loadedShown ? m_loaded : shown;
}

QString AutoReplyEditor::problem() const
{
    if (!m_elicitation->isChecked() || m_action->currentText() != QLatin1String("accept")
        || m_content->text().trimmed().isEmpty())
        return {};
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(m_content->text().toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return tr("The canned elicitation content must be a JSON object, like {\"name\": \"Ada\"}.");
    return {};
}

} // namespace mcpscope
