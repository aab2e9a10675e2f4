#include "resultview.h"

#include "calllog/callsummary.h"
#include "calllog/compactjsonwriter.h"
#include "calllog/storedstring.h"
#include "jsontree.h"
#include "largetextview.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPointer>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace mcpscope {

namespace {
/// An icon of resources/icons/ (SVG, in the app's resources) inline in rich text, a line high: glyphs
/// such as a link emoji draw as empty boxes where the font lacks them.
QString inlineIcon(const QString& name)
{
    return QStringLiteral("<img src=\":/icons/%1.svg\" width=\"14\" height=\"14\" style=\"vertical-align: middle\">")
        .arg(name);
}

QLabel* wrapLabel(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    return label;
}

QString textHtml(const QString& text)
{
    return text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
}

/// A text block the worker prepares: the block's text still in the parsed answer, or the text.
struct PendingText
{
    QCborValue stored; ///< shares the answer's storage (storedStringUtf8())
    QString text;
};

/// A text block as the worker hands it back: HTML for a label, or rows for a LargeTextView.
struct TextBlock
{
    QString html;
    std::optional<LargeTextView::Rows> rows;
};

/// The whole result indented, as the Raw JSON tab shows it.
struct RawRendering
{
    QString text; ///< when it is small
    std::optional<LargeTextView::Rows> rows; ///< when it is large
};

/// What the worker makes of a result: the structuredContent's tree, the raw JSON (unless it waits for
/// its tab), and the text blocks left to it.
struct Rendering
{
    std::unique_ptr<JsonNode> tree;
    RawRendering raw;
    QList<TextBlock> texts; ///< the pending text blocks, in order
};

/// On a worker: the result as QJsonDocument::toJson(Indented) writes it, into one buffer the size of the
/// answer.
RawRendering renderRaw(const QJsonValue& whole, qint64 answerBytes)
{
    CompactWriter writer(answerBytes + answerBytes / 8 + 256);
    writer.setIndented(true);
    writer.setStringsFromStorage(answerBytes >= CompactWriter::LargeAnswerBytes);
    writer.value(whole);
    writer.raw('\n');
    QByteArray pretty = writer.take();
    RawRendering raw;
    if (pretty.size() > ResultView::LargeRawBytes)
        raw.rows = LargeTextView::split(std::move(pretty));
    else
        raw.text = QString::fromUtf8(pretty);
    return raw;
}

/// Puts a written Raw JSON into the tab's stack: the plain editor, or the LargeTextView when it is large.
void showRaw(RawRendering raw, QStackedWidget* stack, QPlainTextEdit* plain, LargeTextView* large)
{
    if (raw.rows) {
        large->setRows(std::move(*raw.rows));
        stack->setCurrentWidget(large);
    } else {
        plain->setPlainText(raw.text);
        stack->setCurrentWidget(plain);
    }
}

/// QString::toUtf8() reserves three bytes a character and keeps them: 60 MB for a 20 MB text. A slice at
/// a time keeps the buffer near the text's size.
QByteArray utf8Of(QStringView text)
{
    QByteArray utf8;
    utf8.reserve(text.size() + text.size() / 8 + 16);
    for (qsizetype at = 0; at < text.size();) {
        qsizetype count = std::min<qsizetype>(text.size() - at, 1 << 16);
        if (at + count < text.size() && text.at(at + count - 1).isHighSurrogate())
            --count;
        utf8.append(text.mid(at, count).toUtf8());
        at += count;
    }
    return utf8;
}

/// Replaces a slot's "Laying out…" label with the text: a label, or a LargeTextView.
void fillTextSlot(QWidget* slot, TextBlock block)
{
    if (!slot)
        return;
    QLayout* layout = slot->layout();
    while (QLayoutItem* item = layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (block.rows) {
        auto* view = new LargeTextView(slot);
        view->setObjectName(QStringLiteral("largeText"));
        view->setMinimumHeight(300);
        view->setRows(std::move(*block.rows));
        layout->addWidget(view);
    } else {
        layout->addWidget(wrapLabel(block.html, slot));
    }
}
} // namespace

ResultView::ResultView(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("resultBanner"));
    m_banner->setWordWrap(true);
    m_banner->setMargin(6);
    m_banner->hide();
    layout->addWidget(m_banner);

    m_tabs = new QTabWidget(this);
    auto* scroll = new QScrollArea(m_tabs);
    scroll->setWidgetResizable(true);
    m_blocksHost = new QWidget(scroll);
    m_blocks = new QVBoxLayout(m_blocksHost);
    m_blocks->addStretch();
    scroll->setWidget(m_blocksHost);
    m_tabs->addTab(scroll, tr("Content"));

    auto* structured = new QWidget(m_tabs);
    auto* structuredLayout = new QVBoxLayout(structured);
    m_verdict = new QLabel(structured);
    m_verdict->setObjectName(QStringLiteral("schemaVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::RichText);
    m_tree = new QTreeView(structured);
    m_treeModel = new JsonTreeModel(this);
    m_tree->setModel(m_treeModel);
    m_tree->header()->setSectionResizeMode(JsonTreeModel::KeyColumn, QHeaderView::ResizeToContents);
    m_tree->setUniformRowHeights(true);
    structuredLayout->addWidget(m_verdict);
    structuredLayout->addWidget(m_tree);
    m_tabs->addTab(structured, tr("Structured"));

    m_rawStack = new QStackedWidget(m_tabs);
    m_raw = new QPlainTextEdit(m_rawStack);
    m_raw->setReadOnly(true);
    m_raw->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_raw->setFont(QFont(QStringLiteral("monospace")));
    m_rawStack->addWidget(m_raw);
    m_rawLarge = new LargeTextView(m_rawStack);
    m_rawLarge->setObjectName(QStringLiteral("rawLarge"));
    m_rawStack->addWidget(m_rawLarge);
    m_rawWaiting = new QLabel(m_rawStack);
    m_rawWaiting->setObjectName(QStringLiteral("rawWaiting"));
    m_rawWaiting->setAlignment(Qt::AlignCenter);
    m_rawStack->addWidget(m_rawWaiting);
    m_tabs->addTab(m_rawStack, tr("Raw JSON"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_rawStack && m_rawPending)
            startRawJob();
    });
    layout->addWidget(m_tabs);

    m_presentTimer = new QTimer(this);
    m_presentTimer->setSingleShot(true);
    connect(m_presentTimer, &QTimer::timeout, this, [this] {
        if (std::function<void()> show = std::exchange(m_pending, {}))
            show();
    });
}

void ResultView::present(std::function<void()> show)
{
    const qint64 since = m_lastShown.isValid() ? m_lastShown.elapsed() : CoalesceMs;
    if (!m_presentTimer->isActive() && since >= CoalesceMs) {
        show();
        return;
    }
    m_pending = std::move(show);
    if (!m_presentTimer->isActive())
        m_presentTimer->start(int(std::max<qint64>(0, CoalesceMs - since)));
}

void ResultView::presentRecord(const CallRecord& record, const ToolInfo* tool)
{
    present([this, record, tool = tool ? std::optional<ToolInfo>(*tool) : std::nullopt] {
        showRecord(record, tool ? &*tool : nullptr);
    });
}

void ResultView::presentMessage(const QString& text)
{
    present([this, text] { showMessage(text); });
}

void ResultView::dropPending()
{
    m_pending = {};
    m_presentTimer->stop();
    m_lastShown.start();
}

void ResultView::clearBlocks()
{
    while (m_blocks->count() > 1) {
        QLayoutItem* item = m_blocks->takeAt(0);
        delete item->widget();
        delete item;
    }
}

void ResultView::addBlock(QWidget* widget)
{
    m_blocks->insertWidget(m_blocks->count() - 1, widget);
}

void ResultView::addLinkBlock(QLabel* label)
{
    // The href is the resource's URI: it opens in the Resources tab, never in a browser.
    label->setOpenExternalLinks(false);
    connect(label, &QLabel::linkActivated, this, &ResultView::resourceLinkActivated);
    addBlock(label);
}

void ResultView::clear()
{
    dropPending();
    m_jobs.reset();
    m_rawJobs.reset();
    m_rawPending.reset();
    clearBlocks();
    m_banner->hide();
    m_verdict->clear();
    m_treeModel->clear();
    m_raw->clear();
    m_rawLarge->clear();
    m_rawStack->setCurrentWidget(m_raw);
}

void ResultView::showMessage(const QString& text)
{
    clear();
    addBlock(wrapLabel(text, m_blocksHost));
}

void ResultView::showRecord(const CallRecord& record, const ToolInfo* tool)
{
    clear();
    const QJsonObject result = record.result.toObject();

    if (record.outcome == CallOutcome::OutcomeUncertain) {
        m_banner->setText(tr("<b>Outcome uncertain (%1%2)</b><br>%3")
                              .arg(record.rule, record.healed ? tr(", session healed") : QString(),
                                  result.value(QLatin1String("message")).toString().toHtmlEscaped()));
        m_banner->setStyleSheet(QStringLiteral("background:#fff3cd;color:#664d03;border:1px solid #e0b000;"));
        m_banner->show();
    } else if (record.outcome != CallOutcome::Success && record.outcome != CallOutcome::ToolError
        && record.outcome != CallOutcome::Pending) {
        // The 2026-07-28 error codes come with an explanation of what the server meant and what to do.
        const QString explanation = record.error.value(QLatin1String("explanation")).toString();
        m_banner->setText(
            tr("<b>%1</b>%2<br>%3%4")
                .arg(outcomeName(record.outcome),
                    record.rule.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(record.rule),
                    record.error.value(QLatin1String("message")).toString().toHtmlEscaped(),
                    explanation.isEmpty() ? QString()
                                          : QStringLiteral("<br><i>%1</i>").arg(explanation.toHtmlEscaped())));
        m_banner->setStyleSheet(QStringLiteral("background:#f8d7da;color:#58151c;border:1px solid #d9534f;"));
        m_banner->show();
    }

    if (record.outcome == CallOutcome::Success && CallSummary::declinedInput(record)) {
        m_banner->setText(tr("<b>Input declined</b><br>The server asked for input during the call "
                             "(elicitation/create) and McpScope declined it: this result is what the tool does "
                             "without that input."));
        m_banner->setStyleSheet(QStringLiteral("background:#fff3cd;color:#664d03;border:1px solid #e0b000;"));
        m_banner->show();
    }

    const ToolCallResult call = ToolCallResult::fromResult(result, tool);
    if (call.isError) {
        m_banner->setText(
            tr("<b>The tool reported an error</b> (isError: true). The server ran it and said it failed."));
        m_banner->setStyleSheet(QStringLiteral("background:#f8d7da;color:#58151c;border:1px solid #d9534f;"));
        m_banner->show();
    }

    // Decoding a 20 MB text block alone takes the GUI thread 60 ms: when the answer was that large, the
    // worker decodes the text blocks too, and each waits in a slot of its own, in order.
    const bool largeAnswer = record.answerBytes() > LargeTextChars;
    QList<QPointer<QWidget>> textSlots;
    QList<PendingText> pendingTexts;
    const auto addTextSlot = [&](PendingText pending, qint64 bytes) {
        auto* slot = new QWidget(m_blocksHost);
        auto* slotLayout = new QVBoxLayout(slot);
        slotLayout->setContentsMargins(0, 0, 0, 0);
        slotLayout->addWidget(wrapLabel(
            tr("Laying out %1 of text…").arg(QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat)), slot));
        addBlock(slot);
        textSlots.append(slot);
        pendingTexts.append(std::move(pending));
    };
    for (const QJsonValue& value : call.content) {
        const QJsonObject block = value.toObject();
        const QString type = block.value(QLatin1String("type")).toString();
        if (type == QLatin1String("text")) {
            if (largeAnswer) {
                addTextSlot({ QCborMap::fromJsonObject(block).value(QLatin1String("text")), {} }, record.answerBytes());
                continue;
            }
            QString text = block.value(QLatin1String("text")).toString();
            if (text.size() > LargeTextChars) {
                const qint64 bytes = text.size() * qint64(2);
                addTextSlot({ {}, std::move(text) }, bytes);
            } else {
                addBlock(wrapLabel(textHtml(text), m_blocksHost));
            }
        } else if (type == QLatin1String("image")) {
            QImage image;
            image.loadFromData(QByteArray::fromBase64(block.value(QLatin1String("data")).toString().toLatin1()));
            auto* label = new QLabel(m_blocksHost);
            if (image.isNull())
                label->setText(tr("[an image that could not be decoded: %1]")
                                   .arg(block.value(QLatin1String("mimeType")).toString()));
            else
                label->setPixmap(QPixmap::fromImage(image));
            label->setToolTip(block.value(QLatin1String("mimeType")).toString());
            addBlock(label);
        } else if (type == QLatin1String("audio")) {
            addBlock(wrapLabel(
                tr("[audio %1, %2 bytes]")
                    .arg(block.value(QLatin1String("mimeType")).toString())
                    .arg(QByteArray::fromBase64(block.value(QLatin1String("data")).toString().toLatin1()).size()),
                m_blocksHost));
        } else if (type == QLatin1String("resource_link")) {
            const QString uri = block.value(QLatin1String("uri")).toString();
            addLinkBlock(wrapLabel(
                tr("%4 <a href=\"%1\">%2</a> %3")
                    .arg(uri.toHtmlEscaped(), block.value(QLatin1String("name")).toString(uri).toHtmlEscaped(),
                        block.value(QLatin1String("description")).toString().toHtmlEscaped(),
                        inlineIcon(QStringLiteral("link"))),
                m_blocksHost));
        } else if (type == QLatin1String("resource")) {
            const QJsonObject resource = block.value(QLatin1String("resource")).toObject();
            const QString uri = resource.value(QLatin1String("uri")).toString();
            addLinkBlock(wrapLabel(
                tr("<b>Resource</b> <a href=\"%1\">%1</a><br>%2")
                    .arg(uri.toHtmlEscaped(), resource.value(QLatin1String("text")).toString().toHtmlEscaped()),
                m_blocksHost));
        } else {
            addBlock(wrapLabel(
                QString::fromUtf8(QJsonDocument(block).toJson(QJsonDocument::Compact)).toHtmlEscaped(), m_blocksHost));
        }
    }

    switch (call.schemaVerdict) {
    case ToolCallResult::SchemaVerdict::NotApplicable:
        m_verdict->setText(call.structuredContent.isUndefined() ? tr("No structuredContent.")
                                                                : tr("The tool declares no outputSchema."));
        break;
    case ToolCallResult::SchemaVerdict::Valid:
        m_verdict->setText(inlineIcon(QStringLiteral("valid"))
            + tr(" structuredContent matches the tool's outputSchema.").toHtmlEscaped());
        break;
    case ToolCallResult::SchemaVerdict::Invalid:
        m_verdict->setText(inlineIcon(QStringLiteral("invalid"))
            + tr(" structuredContent does not match the outputSchema: %1").arg(call.schemaError).toHtmlEscaped());
        break;
    case ToolCallResult::SchemaVerdict::Missing:
        m_verdict->setText(inlineIcon(QStringLiteral("invalid")) + QLatin1Char(' ') + call.schemaError.toHtmlEscaped());
        break;
    }
    if (!call.structuredContent.isUndefined() && m_tabs->currentIndex() == 0 && call.content.isEmpty())
        m_tabs->setCurrentIndex(1);

    // Tree and pretty text off the GUI thread: a 20 MB result must not freeze the window.
    const QJsonValue structured = call.structuredContent;
    const QJsonValue whole = record.result.isUndefined() ? QJsonValue(record.error) : record.result;
    const qint64 answerBytes = record.answerBytes();
    const bool rawNow = answerBytes <= LargeRawBytes || m_tabs->currentWidget() == m_rawStack;
    if (!rawNow) {
        m_rawPending = whole;
        m_rawPendingBytes = answerBytes;
        m_rawWaiting->setText(
            tr("Laying out %1 of JSON…").arg(QLocale().formattedDataSize(answerBytes, 1, QLocale::DataSizeSIFormat)));
        m_rawStack->setCurrentWidget(m_rawWaiting);
    }
    m_jobs.startJob(
        [structured, whole = rawNow ? whole : QJsonValue(), rawNow, pendingTexts = std::move(pendingTexts),
            answerBytes]() mutable {
            Rendering rendering;
            if (!structured.isUndefined())
                rendering.tree = buildJsonTree(structured);
            for (PendingText& pending : pendingTexts) {
                if (pending.text.isNull()) {
                    // The text's UTF-8 straight from the answer: no 40 MB QString for a 20 MB text.
                    QByteArray utf8 = storedStringUtf8(std::exchange(pending.stored, {}));
                    if (utf8.size() > LargeTextChars)
                        rendering.texts.append({ {}, LargeTextView::split(std::move(utf8)) });
                    else
                        rendering.texts.append({ textHtml(QString::fromUtf8(utf8)), std::nullopt });
                    continue;
                }
                const QString text = std::exchange(pending.text, {});
                if (text.size() > LargeTextChars)
                    rendering.texts.append({ {}, LargeTextView::split(utf8Of(text)) });
                else
                    rendering.texts.append({ textHtml(text), std::nullopt });
            }
            if (rawNow)
                rendering.raw = renderRaw(whole, answerBytes);
            return rendering;
        },
        [this, textSlots, rawNow](Rendering rendering) {
            if (rendering.tree) {
                m_treeModel->setRoot(std::move(rendering.tree));
                m_tree->expandToDepth(1);
            }
            for (qsizetype i = 0; i < textSlots.size() && i < rendering.texts.size(); ++i)
                fillTextSlot(textSlots.at(i), std::move(rendering.texts[i]));
            if (rawNow)
                showRaw(std::move(rendering.raw), m_rawStack, m_raw, m_rawLarge);
            // Only the newest job's result is delivered.
            m_rendered = m_jobs.currentJob();
            Q_EMIT rendered(m_rendered);
        });
}

void ResultView::startRawJob()
{
    const QJsonValue whole = *std::exchange(m_rawPending, std::nullopt);
    m_rawJobs.startJob([whole, bytes = m_rawPendingBytes] { return renderRaw(whole, bytes); },
        [this](RawRendering raw) {
            showRaw(std::move(raw), m_rawStack, m_raw, m_rawLarge);
            Q_EMIT rawRendered();
        });
}

} // namespace mcpscope
