#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <deque>

namespace mcpscope {

class Engine;

/// Each server's output as the Server Output view shows it: the lines of its stderr (or its launch
/// command's output) and, marked as McpScope's, the engine's notices and the server's failures, in a
/// ring of at most lineLimit() lines per server. Lines arrive redacted (the engine's signals).
///
/// Signals: linesAdded(server) after a line was added to that server's ring.
class ServerOutput : public QObject
{
    Q_OBJECT
public:
    static constexpr int DefaultLineLimit = 10000;

    struct Line
    {
        qint64 at = 0; ///< ms since the epoch
        QString text;
        bool fromMcpScope = false; ///< a notice or a failure, not the server's own output
    };

    explicit ServerOutput(QObject* parent = nullptr);

    /// Follows engine's servers, present and future; a removed server's lines go with it.
    void setEngine(Engine* engine);
    void setLineLimit(int lines);
    int lineLimit() const { return m_lineLimit; }

    const std::deque<Line>& lines(const QString& server) const;
    /// Lines ever added for server (the ring keeps the last lineLimit() of them).
    qint64 added(const QString& server) const;
    void append(const QString& server, const QString& text, bool fromMcpScope = false);
    /// Whether McpScope can see the server's output at all: false for a remote HTTP server (one without
    /// a launch command), whose process McpScope did not start.
    bool seesOutputOf(const QString& server) const;
    void clear(const QString& server);

Q_SIGNALS:
    void linesAdded(const QString& server);
    void cleared(const QString& server);

private:
    struct Ring
    {
        std::deque<Line> lines;
        qint64 added = 0;
    };

    QPointer<Engine> m_engine;
    QHash<QString, Ring> m_rings;
    int m_lineLimit = DefaultLineLimit;
};

} // namespace mcpscope
