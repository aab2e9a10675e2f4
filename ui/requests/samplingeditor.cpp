#include "samplingeditor.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

namespace mcpscope {

namespace {

QString esc(const QString& text)
{
    return text.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>"));
}

QString compact(const QJsonValue& value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    return value.toVariant().toString();
}

/// An image block's URL in the browser's document: "sampling-image:<message>-<block>".
QUrl imageUrl(int message, int block)
{
    return QUrl(QStringLiteral("sampling-image:%1-%2").arg(message).arg(block));
}

QJsonArray blocksOf(const QJsonValue& content)
{
    return content.isArray() ? content.toArray() : QJsonArray { content };
}

QString blockHtml(const QJsonObject& block, int message, int index)
{
    const QString type = block.value(QLatin1String("type")).toString();
    if (type == QLatin1String("text"))
        return esc(block.value(QLatin1String("text")).toString());
    if (type == QLatin1String("image"))
        return QStringLiteral("<img src=\"%1\" style=\"max-width: 240px\"><br><i>%2</i>")
            .arg(imageUrl(message, index).toString(), esc(block.value(QLatin1String("mimeType")).toString()));
    if (type == QLatin1String("audio"))
        return QObject::tr("<i>[audio %1, %2 bytes of base64]</i>")
            .arg(esc(block.value(QLatin1String("mimeType")).toString()))
            .arg(block.value(QLatin1String("data")).toString().size());
    return QStringLiteral("<i>[%1]</i> <code>%2</code>").arg(esc(type), esc(compact(block)));
}

QTextDocument* documentWithImages(const QString& html, const QJsonObject& params, QObject* parent)
{
    auto* document = new QTextDocument(parent);
    document->setHtml(html);
    const QJsonArray messages = params.value(QLatin1String("messages")).toArray();
    for (int m = 0; m < messages.size(); ++m) {
        const QJsonArray blocks = blocksOf(messages.at(m).toObject().value(QLatin1String("content")));
        for (int b = 0; b < blocks.size(); ++b) {
            const QJsonObject block = blocks.at(b).toObject();
            if (block.value(QLatin1String("type")).toString() != QLatin1String("image"))
                continue;
            QImage image;
            image.loadFromData(QByteArray::fromBase64(block.value(QLatin1String("data")).toString().toLatin1()));
            if (!image.isNull())
                document->addResource(QTextDocument::ImageResource, imageUrl(m, b), image);
        }
    }
    return document;
}

} // namespace

QString SamplingEditor::requestHtml(const QJsonObject& params)
{
    QString html;
    auto row = [&html](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(name.toHtmlEscaped(), value);
    };
    html += QStringLiteral("<table cellspacing=\"4\">");
    if (params.contains(QLatin1String("systemPrompt")))
        row(tr("System prompt"), esc(params.value(QLatin1String("systemPrompt")).toString()));
    row(tr("maxTokens"), esc(compact(params.value(QLatin1String("maxTokens")))));
    for (const char* key : { "temperature", "stopSequences", "includeContext", "metadata" }) {
        const QString name = QString::fromLatin1(key);
        if (params.contains(name))
            row(name, esc(compact(params.value(name))));
    }
    const QJsonObject preferences = params.value(QLatin1String("modelPreferences")).toObject();
    if (!preferences.isEmpty()) {
        QStringList parts;
        QStringList hints;
        for (const QJsonValue& hint : preferences.value(QLatin1String("hints")).toArray())
            hints.append(hint.toObject().value(QLatin1String("name")).toString());
        if (!hints.isEmpty())
            parts.append(tr("hints: %1").arg(hints.join(QStringLiteral(", "))));
        for (const char* key : { "costPriority", "speedPriority", "intelligencePriority" }) {
            const QString name = QString::fromLatin1(key);
            if (preferences.contains(name))
                parts.append(QStringLiteral("%1 %2").arg(name, compact(preferences.value(name))));
        }
        row(tr("Model preferences"), esc(parts.join(QStringLiteral("; "))));
    }
    if (params.contains(QLatin1String("tools"))) {
        QStringList names;
        for (const QJsonValue& tool : params.value(QLatin1String("tools")).toArray())
            names.append(tool.toObject().value(QLatin1String("name")).toString());
        row(tr("Tools"), esc(names.join(QStringLiteral(", "))));
    }
    if (params.contains(QLatin1String("toolChoice")))
        row(tr("toolChoice"), esc(compact(params.value(QLatin1String("toolChoice")))));
    html += QStringLiteral("</table><hr>");
    const QJsonArray messages = params.value(QLatin1String("messages")).toArray();
    for (int m = 0; m < messages.size(); ++m) {
        const QJsonObject message = messages.at(m).toObject();
        html += QStringLiteral("<p><b>%1</b><br>").arg(esc(message.value(QLatin1String("role")).toString()));
        const QJsonArray blocks = blocksOf(message.value(QLatin1String("content")));
        for (int b = 0; b < blocks.size(); ++b)
            html += blockHtml(blocks.at(b).toObject(), m, b) + QStringLiteral("<br>");
        html += QStringLiteral("</p>");
    }
    return html;
}

SamplingEditor::SamplingEditor(const QJsonObject& params, QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_request = new QTextBrowser(this);
    m_request->setObjectName(QStringLiteral("samplingRequest"));
    // The images are the document's resources, in place before the browser lays it out.
    m_request->setDocument(documentWithImages(requestHtml(params), params, m_request));
    m_request->setMinimumHeight(110);
    layout->addWidget(m_request, 1);

    auto* form = new QFormLayout();
    m_role = new QComboBox(this);
    m_role->setObjectName(QStringLiteral("samplingRole"));
    m_role->addItems({ QStringLiteral("assistant"), QStringLiteral("user") });
    form->addRow(tr("&Role:"), m_role);
    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("samplingReplyText"));
    m_text->setPlaceholderText(tr("The reply the server gets as the model's answer"));
    m_text->setMinimumHeight(64);
    m_text->setMaximumHeight(120);
    form->addRow(tr("Re&ply:"), m_text);
    m_model = new QLineEdit(QStringLiteral("mcpscope-manual"), this);
    m_model->setObjectName(QStringLiteral("samplingModel"));
    const QJsonArray hints
        = params.value(QLatin1String("modelPreferences")).toObject().value(QLatin1String("hints")).toArray();
    if (!hints.isEmpty() && !hints.first().toObject().value(QLatin1String("name")).toString().isEmpty())
        m_model->setText(hints.first().toObject().value(QLatin1String("name")).toString());
    form->addRow(tr("&Model:"), m_model);
    m_stopReason = new QComboBox(this);
    m_stopReason->setObjectName(QStringLiteral("samplingStopReason"));
    m_stopReason->setEditable(true);
    m_stopReason->addItems({ QStringLiteral("endTurn"), QStringLiteral("stopSequence"), QStringLiteral("maxTokens"),
        QStringLiteral("toolUse") });
    form->addRow(tr("&Stop reason:"), m_stopReason);
    layout->addLayout(form);

    auto* buttons = new QHBoxLayout();
    buttons->addStretch(1);
    auto* reject = new QPushButton(tr("Re&ject"), this);
    reject->setObjectName(QStringLiteral("samplingReject"));
    reject->setToolTip(tr("Answer with the user-rejected error (-1)"));
    m_approve = new QPushButton(tr("&Approve and Send"), this);
    m_approve->setObjectName(QStringLiteral("samplingApprove"));
    m_approve->setDefault(true);
    m_approve->setEnabled(false);
    buttons->addWidget(reject);
    buttons->addWidget(m_approve);
    layout->addLayout(buttons);

    connect(m_text, &QPlainTextEdit::textChanged, this,
        [this] { m_approve->setEnabled(!m_text->toPlainText().trimmed().isEmpty()); });
    connect(reject, &QPushButton::clicked, this, &SamplingEditor::rejected);
    connect(m_approve, &QPushButton::clicked, this, [this] { Q_EMIT approved(result()); });
}

QJsonObject SamplingEditor::result() const
{
    return {
        { QStringLiteral("role"), m_role->currentText() },
        { QStringLiteral("content"),
            QJsonObject { { QStringLiteral("type"), QStringLiteral("text") },
                { QStringLiteral("text"), m_text->toPlainText() } } },
        { QStringLiteral("model"), m_model->text().trimmed() },
        { QStringLiteral("stopReason"), m_stopReason->currentText().trimmed() },
    };
}

} // namespace mcpscope
