#pragma once

#include "clientresponder.h"

#include <QJsonArray>
#include <QJsonObject>

namespace mcpscope {

/// Answers server→client requests from a script instead of a person: the CLI's flags or a
/// responses file. What is not scripted is declined, never left hanging.
///
/// Script shape: {"roots": [{"uri", "name"}], "sampling": {"text", "model"} or a full
/// CreateMessageResult, "elicitation": {"action": "accept"|"decline"|"cancel", "content": {...}}}.
/// An accepted elicitation fills every field the server's schema gives a default for and the
/// script leaves out.
class ScriptedResponder final : public ClientResponder
{
public:
    explicit ScriptedResponder(QJsonObject script = {});

    void setScript(const QJsonObject& script) { m_script = script; }
    const QJsonObject& script() const { return m_script; }
    int requestsAnswered() const { return m_answered; }
    /// Whether roots are declared when the script has none. The CLI turns this off: a server told of roots
    /// may ask for them and stay alive after stdin closes (server-everything does), so every one-shot
    /// command would wait out the shutdown grace.
    void setDeclareUnscriptedRoots(bool declare) { m_declareUnscriptedRoots = declare; }

    QJsonObject capabilities() const override;
    void respond(const JsonRpcMessage& request, Reply reply) override;

    /// The elicitation answer for a request: content merged over the schema's defaults.
    static QJsonObject elicitationResult(const QJsonObject& script, const QJsonObject& params);

private:
    QJsonObject m_script;
    int m_answered = 0;
    bool m_declareUnscriptedRoots = true;
};

} // namespace mcpscope
