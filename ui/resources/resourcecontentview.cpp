#include "resourcecontentview.h"

#include "result/jsontree.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QStringDecoder>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace mcpscope {

namespace {

bool isJsonMime(const QString& mime)
{
    const QString base = mime.section(QLatin1Char(';'), 0, 0).trimmed().toLower();
    return base == QLatin1String("application/json") || base.endsWith(QLatin1String("+json"));
}

bool isTextMime(const QString& mime)
{
    const QString base = mime.section(QLatin1Char(';'), 0, 0).trimmed().toLower();
    return base.startsWith(QLatin1String("text/")) || isJsonMime(base) || base.endsWith(QLatin1String("+xml"))
        || base == QLatin1String("application/xml") || base == QLatin1String("application/javascript");
}

QPushButton* saveButton(QWidget* parent)
{
    auto* button = new QPushButton(ResourceContentView::tr("Save to file…"), parent);
    button->setObjectName(QStringLiteral("saveResource"));
    return button;
}

/// The first 1 KiB as offset, 16 bytes in hex and their printable ASCII, one line each.
QString hexDump(const QByteArray& bytes)
{
    constexpr qsizetype Shown = 1024;
    QString out;
    for (qsizetype offset = 0; offset < std::min(bytes.size(), Shown); offset += 16) {
        const QByteArray line = bytes.mid(offset, 16);
        QString ascii;
        for (char c : line)
            ascii.append(c >= 0x20 && c < 0x7f ? QLatin1Char(c) : QLatin1Char('.'));
        out += QStringLiteral("%1  %2  %3\n")
                   .arg(offset, 8, 16, QLatin1Char('0'))
                   .arg(QString::fromLatin1(line.toHex(' ')), -47)
                   .arg(ascii);
    }
    if (bytes.size() > Shown)
        out += ResourceContentView::tr("… %1 more bytes").arg(bytes.size() - Shown);
    return out;
}

} // namespace

ResourceContentView::ResourceContentView(QWidget* parent)
    : QStackedWidget(parent)
{
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("resourceMessage"));
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setMargin(8);
    addWidget(m_message);

    m_textView = new QPlainTextEdit(this);
    m_textView->setObjectName(QStringLiteral("resourceText"));
    m_textView->setReadOnly(true);
    m_textView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    addWidget(m_textView);

    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("resourceJson"));
    m_treeModel = new JsonTreeModel(this);
    m_tree->setModel(m_treeModel);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(JsonTreeModel::KeyColumn, QHeaderView::ResizeToContents);
    addWidget(m_tree);

    m_imagePage = new QWidget(this);
    auto* imageLayout = new QVBoxLayout(m_imagePage);
    imageLayout->setContentsMargins(0, 0, 0, 0);
    auto* imageBar = new QHBoxLayout;
    m_imageCaption = new QLabel(m_imagePage);
    m_imageCaption->setObjectName(QStringLiteral("imageCaption"));
    auto* saveImage = saveButton(m_imagePage);
    imageBar->addWidget(m_imageCaption, 1);
    imageBar->addWidget(saveImage);
    m_imageLabel = new QLabel(m_imagePage);
    m_imageLabel->setObjectName(QStringLiteral("resourceImage"));
    m_imageLabel->setAlignment(Qt::AlignCenter);
    m_imageLabel->setMinimumSize(16, 16);
    m_imageLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    imageLayout->addLayout(imageBar);
    imageLayout->addWidget(m_imageLabel, 1);
    addWidget(m_imagePage);

    m_binaryPage = new QWidget(this);
    auto* binaryLayout = new QVBoxLayout(m_binaryPage);
    binaryLayout->setContentsMargins(0, 0, 0, 0);
    auto* binaryBar = new QHBoxLayout;
    m_binaryCaption = new QLabel(m_binaryPage);
    m_binaryCaption->setObjectName(QStringLiteral("binaryCaption"));
    m_binaryCaption->setWordWrap(true);
    m_binaryCaption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* saveBinary = saveButton(m_binaryPage);
    binaryBar->addWidget(m_binaryCaption, 1);
    binaryBar->addWidget(saveBinary);
    m_binaryPreview = new QPlainTextEdit(m_binaryPage);
    m_binaryPreview->setObjectName(QStringLiteral("binaryPreview"));
    m_binaryPreview->setReadOnly(true);
    m_binaryPreview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    binaryLayout->addLayout(binaryBar);
    binaryLayout->addWidget(m_binaryPreview, 1);
    addWidget(m_binaryPage);

    connect(saveImage, &QPushButton::clicked, this, &ResourceContentView::saveInteractively);
    connect(saveBinary, &QPushButton::clicked, this, &ResourceContentView::saveInteractively);
    clear();
}

void ResourceContentView::clear()
{
    showMessage(tr("Select a resource or a template."));
    m_kind = Kind::None;
}

void ResourceContentView::showMessage(const QString& text)
{
    m_kind = Kind::Message;
    m_uri.clear();
    m_mimeType.clear();
    m_text.clear();
    m_blob.clear();
    m_image = QImage();
    m_treeModel->clear();
    m_message->setText(text);
    setCurrentWidget(m_message);
}

QString ResourceContentView::sizeText(qint64 bytes)
{
    const QLocale locale;
    if (bytes < 1024)
        return tr("%1 bytes").arg(locale.toString(bytes));
    return tr("%1 bytes (%2)").arg(locale.toString(bytes), locale.formattedDataSize(bytes, 1));
}

void ResourceContentView::showContent(const QJsonObject& content)
{
    showMessage(QString());
    m_uri = content.value(QLatin1String("uri")).toString();
    m_mimeType = content.value(QLatin1String("mimeType")).toString();
    if (content.contains(QLatin1String("text"))) {
        m_text = content.value(QLatin1String("text")).toString();
        if (isJsonMime(m_mimeType)) {
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(m_text.toUtf8(), &error);
            if (error.error == QJsonParseError::NoError) {
                m_kind = Kind::Json;
                m_treeModel->setRoot(
                    buildJsonTree(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(doc.array())));
                m_tree->expandToDepth(1);
                setCurrentWidget(m_tree);
                return;
            }
        }
        m_kind = Kind::Text;
        m_textView->setPlainText(m_text);
        setCurrentWidget(m_textView);
        return;
    }
    if (!content.contains(QLatin1String("blob"))) {
        showMessage(tr("%1 has neither text nor blob.").arg(m_uri));
        return;
    }
    m_blob = QByteArray::fromBase64(content.value(QLatin1String("blob")).toString().toLatin1());
    const QString mime = m_mimeType.isEmpty() ? tr("no MIME type") : m_mimeType;
    if (m_mimeType.startsWith(QLatin1String("image/")) && m_image.loadFromData(m_blob)) {
        m_kind = Kind::Image;
        m_imageCaption->setText(
            tr("%1, %2×%3, %4").arg(mime).arg(m_image.width()).arg(m_image.height()).arg(sizeText(m_blob.size())));
        setCurrentWidget(m_imagePage);
        showImage();
        return;
    }
    m_kind = Kind::Binary;
    m_binaryCaption->setText(tr("<b>Binary content</b>: %1, %2").arg(mime.toHtmlEscaped(), sizeText(m_blob.size())));
    // A text/* blob is shown decoded, when it is valid UTF-8; any other as a hex dump of its start.
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString decoded = decoder(m_blob);
    m_binaryPreview->setPlainText(isTextMime(m_mimeType) && !decoder.hasError() ? decoded : hexDump(m_blob));
    setCurrentWidget(m_binaryPage);
}

void ResourceContentView::showImage()
{
    if (m_image.isNull())
        return;
    // Scaled to fit the pane, keeping the aspect ratio: a 64×64 icon is enlarged, a photo shrinks.
    const QSize area = m_imageLabel->size().boundedTo(m_image.size() * 8);
    m_imageLabel->setPixmap(QPixmap::fromImage(
        m_image.scaled(area.expandedTo(QSize(16, 16)), Qt::KeepAspectRatio, Qt::SmoothTransformation)));
}

void ResourceContentView::resizeEvent(QResizeEvent* event)
{
    QStackedWidget::resizeEvent(event);
    if (m_kind == Kind::Image)
        showImage();
}

bool ResourceContentView::saveTo(const QString& path, QString* error) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = file.errorString();
        return false;
    }
    file.write(m_kind == Kind::Text || m_kind == Kind::Json ? m_text.toUtf8() : m_blob);
    if (!file.commit()) {
        *error = file.errorString();
        return false;
    }
    return true;
}

void ResourceContentView::saveInteractively()
{
    if (m_kind == Kind::None || m_kind == Kind::Message)
        return;
    const QString suggested = QUrl(m_uri).fileName();
    const QString path = QFileDialog::getSaveFileName(this, tr("Save resource"), suggested);
    if (path.isEmpty())
        return;
    QString error;
    if (saveTo(path, &error))
        Q_EMIT statusMessage(tr("Saved %1 to %2").arg(m_uri, path));
    else
        Q_EMIT statusMessage(tr("Could not save %1 to %2: %3").arg(m_uri, path, error));
}

} // namespace mcpscope
