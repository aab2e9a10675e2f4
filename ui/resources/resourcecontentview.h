#pragma once

#include <QByteArray>
#include <QImage>
#include <QJsonObject>
#include <QStackedWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeView;

namespace mcpscope {

class JsonTreeModel;

/// One entry of a resources/read result's contents, rendered by its type: text as text, JSON text as a
/// collapsible tree, an image/* blob as the picture scaled to fit, any other blob as its MIME type and
/// size with Save to file… (and, for a text/* blob, the decoded text below).
class ResourceContentView : public QStackedWidget
{
    Q_OBJECT
public:
    enum class Kind { None, Text, Json, Image, Binary, Message };
    Q_ENUM(Kind)

    explicit ResourceContentView(QWidget* parent = nullptr);

    /// Renders one contents entry ({uri, mimeType, text} or {uri, mimeType, blob}).
    void showContent(const QJsonObject& content);
    /// Shows a line of text instead of content (reading…, an error).
    void showMessage(const QString& text);
    void clear();

    Kind kind() const { return m_kind; }
    QString mimeType() const { return m_mimeType; }
    /// The decoded blob (empty for a text entry).
    QByteArray blob() const { return m_blob; }
    QString text() const { return m_text; }
    QImage image() const { return m_image; }
    QTreeView* jsonView() const { return m_tree; }
    /// Writes the blob (or the text, UTF-8) to path with QSaveFile; false and *error when it could not.
    bool saveTo(const QString& path, QString* error) const;
    /// Asks for a file name, then saveTo().
    void saveInteractively();

    /// A blob's size as people read it: "1,234 bytes (1.2 KiB)".
    static QString sizeText(qint64 bytes);

Q_SIGNALS:
    void statusMessage(const QString& text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showImage();

    Kind m_kind = Kind::None;
    QString m_uri;
    QString m_mimeType;
    QString m_text;
    QByteArray m_blob;
    QImage m_image;

    QLabel* m_message = nullptr;
    QPlainTextEdit* m_textView = nullptr;
    QTreeView* m_tree = nullptr;
    JsonTreeModel* m_treeModel = nullptr;
    QWidget* m_imagePage = nullptr;
    QLabel* m_imageLabel = nullptr;
    QLabel* m_imageCaption = nullptr;
    QWidget* m_binaryPage = nullptr;
    QLabel* m_binaryCaption = nullptr;
    QPlainTextEdit* m_binaryPreview = nullptr;
};

} // namespace mcpscope
