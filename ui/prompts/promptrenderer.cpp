#include "promptrenderer.h"

#include <QImage>
#include <QJsonArray>
#include <QList>
#include <QTextDocument>
#include <QUrl>

namespace mcpscope {

namespace {

QString blockSummary(const QJsonObject& content)
{
    const QString type = content.value(QLatin1String("type")).toString();
    if (type == QLatin1String("text"))
        return content.value(QLatin1String("text")).toString();
    if (type == QLatin1String("image") || type == QLatin1String("audio"))
        return QStringLiteral("[%1 %2]").arg(type, content.value(QLatin1String("mimeType")).toString());
    if (type == QLatin1String("resource_link"))
        return QStringLiteral("[resource_link %1]").arg(content.value(QLatin1String("uri")).toString());
    if (type == QLatin1String("resource")) {
        const QJsonObject resource = content.value(QLatin1String("resource")).toObject();
        return QStringLiteral("[resource %1] %2")
            .arg(resource.value(QLatin1String("uri")).toString(), resource.value(QLatin1String("text")).toString());
    }
    return QStringLiteral("[%1]").arg(type);
}

QString escaped(const QString& text)
{
    return text.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>"));
}

// Content may be one block (2025-11-25) or, from some servers, an array of blocks.
QJsonArray contentBlocks(const QJsonObject& message)
{
    const QJsonValue content = message.value(QLatin1String("content"));
    return content.isArray() ? content.toArray() : QJsonArray { content };
}

} // namespace

int PromptRenderer::render(const QJsonObject& result, QTextDocument* document)
{
    QString html;
    QList<QImage> images;
    const QString description = result.value(QLatin1String("description")).toString();
    if (!description.isEmpty())
        html += QStringLiteral("<p><i>%1</i></p>").arg(escaped(description));
    const QJsonArray messages = result.value(QLatin1String("messages")).toArray();
    for (const QJsonValue& value : messages) {
        const QJsonObject message = value.toObject();
        html += QStringLiteral("<p style='margin-top:10px'><b>%1</b></p>")
                    .arg(escaped(message.value(QLatin1String("role")).toString()));
        for (const QJsonValue& blockValue : contentBlocks(message)) {
            const QJsonObject block = blockValue.toObject();
            const QString type = block.value(QLatin1String("type")).toString();
            if (type == QLatin1String("text")) {
                html += QStringLiteral("<p>%1</p>").arg(escaped(block.value(QLatin1String("text")).toString()));
            } else if (type == QLatin1String("image")) {
                const QString mime = block.value(QLatin1String("mimeType")).toString();
                QImage image;
                image.loadFromData(QByteArray::fromBase64(block.value(QLatin1String("data")).toString().toLatin1()));
                if (image.isNull()) {
                    html += QStringLiteral("<p>%1</p>")
                                .arg(escaped(QObject::tr("[image %1: cannot be decoded]").arg(mime)));
                } else {
                    const QUrl url(QStringLiteral("prompt-image:%1").arg(images.size()));
                    images.append(image);
                    html += QStringLiteral("<p><img src='%1'><br><small>%2, %3×%4</small></p>")
                                .arg(url.toString(), escaped(mime))
                                .arg(image.width())
                                .arg(image.height());
                }
            } else if (type == QLatin1String("resource")) {
                const QJsonObject resource = block.value(QLatin1String("resource")).toObject();
                const QString uri = resource.value(QLatin1String("uri")).toString();
                const QString mime = resource.value(QLatin1String("mimeType")).toString();
                html += QStringLiteral("<table border='1' cellpadding='4' cellspacing='0' width='100%'><tr><td>"
                                       "<b>%1</b> <small>%2</small>")
                            .arg(escaped(uri), escaped(mime));
                if (resource.contains(QLatin1String("text"))) {
                    html += QStringLiteral("<pre>%1</pre>")
                                .arg(resource.value(QLatin1String("text")).toString().toHtmlEscaped());
                } else {
                    const qsizetype bytes
                        = QByteArray::fromBase64(resource.value(QLatin1String("blob")).toString().toLatin1()).size();
                    html += QStringLiteral("<p>%1</p>")
                                .arg(escaped(QObject::tr("binary, %n byte(s)", nullptr, int(bytes))));
                }
                html += QStringLiteral("</td></tr></table>");
            } else {
                html += QStringLiteral("<p>%1</p>").arg(escaped(blockSummary(block)));
            }
        }
    }
    if (messages.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(escaped(QObject::tr("The prompt has no messages.")));
    // setHtml() clears the document's resources: the images go in after it (they load at layout time).
    document->setHtml(html);
    for (qsizetype i = 0; i < images.size(); ++i)
        document->addResource(
            QTextDocument::ImageResource, QUrl(QStringLiteral("prompt-image:%1").arg(i)), images.at(i));
    return int(messages.size());
}

QString PromptRenderer::plainText(const QJsonObject& result)
{
    QStringList lines;
    for (const QJsonValue& value : result.value(QLatin1String("messages")).toArray()) {
        const QJsonObject message = value.toObject();
        for (const QJsonValue& block : contentBlocks(message))
            lines.append(message.value(QLatin1String("role")).toString() + QStringLiteral(": ")
                + blockSummary(block.toObject()));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace mcpscope
