#pragma once

#include <QJsonObject>
#include <QString>

class QTextDocument;

namespace mcpscope {

/// Renders a prompts/get result into a document: the description, then each message with its role
/// and its content (text, image, audio, resource_link, embedded resource). Images are decoded and
/// added to the document as resources, so nothing is fetched.
class PromptRenderer
{
public:
    /// Replaces document's content; returns how many messages were rendered.
    static int render(const QJsonObject& result, QTextDocument* document);
    /// The plain text of the rendered messages, one "role: text" per content block (for tests and copy).
    static QString plainText(const QJsonObject& result);
};

} // namespace mcpscope
