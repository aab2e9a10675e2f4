#include "serveroutput.h"

#include "engine/engine.h"

#include <QDateTime>

namespace mcpscope {

ServerOutput::ServerOutput(QObject* parent)
    : QObject(parent)
{ }

void ServerOutput::setEngine(Engine* engine)
{
    if (m_engine == engine)
        return;
    if (m_engine)
        disconnect(m_engine, nullptr, this, nullptr);
    m_engine = engine;
    if (!engine)
        return;
    connect(
        engine, &Engine::serverLog, this, [this](const QString& server, const QString& line) { append(server, line); });
    connect(engine, &Engine::notice, this,
        [this](const QString& server, const QString& text) { append(server, text, true); });
    const auto watch = [this, engine](ServerConnection* c) {
        // The message is the engine's redaction of what the connection said (a failure's text may quote stderr).
        connect(c, &ServerConnection::failed, this, [this, engine, c](const QString& message) {
            // Its first line: the last lines of stderr a failed start quotes are in the ring already.
            append(c->name(), engine->redactor().redactText(message.section(QLatin1Char('\n'), 0, 0)), true);
        });
    };
    for (ServerConnection* c : engine->connections())
        watch(c);
    connect(engine, &Engine::serverAdded, this, watch);
    connect(engine, &Engine::serverRemoved, this, [this](const QString& server) { m_rings.remove(server); });
}

void ServerOutput::setLineLimit(int lines)
{
    m_lineLimit = qMax(1, lines);
    for (Ring& ring : m_rings) {
        while (int(ring.lines.size()) > m_lineLimit)
            ring.lines.pop_front();
    }
}

const std::deque<ServerOutput::Line>& ServerOutput::lines(const QString& server) const
{
    static const std::deque<Line> none;
    const auto it = m_rings.constFind(server);
    return it == m_rings.constEnd() ? none : it->lines;
}

qint64 ServerOutput::added(const QString& server) const
{
    const auto it = m_rings.constFind(server);
    return it == m_rings.constEnd() ? 0 : it->added;
}

void ServerOutput::append(const QString& server, const QString& text, bool fromMcpScope)
{
    Ring& ring = m_rings[server];
    ring.lines.push_back(Line { QDateTime::currentMSecsSinceEpoch(), text, fromMcpScope });
    ++ring.added;
    while (int(ring.lines.size()) > m_lineLimit)
        ring.lines.pop_front();
    Q_EMIT linesAdded(server);
}

bool ServerOutput::seesOutputOf(const QString& server) const
{
    const ServerConnection* c = m_engine ? m_engine->connection(server) : nullptr;
    return !c || !c->config().isHttp() || !c->config().launchCommand.isEmpty();
}

void ServerOutput::clear(const QString& server)
{
    m_rings.remove(server);
    Q_EMIT cleared(server);
}

} // namespace mcpscope
