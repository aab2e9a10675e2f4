#pragma once

#include <QDockWidget>
#include <QPointer>
#include <QTimer>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace mcpscope {

class ServerOutput;

/// The Server Output dock: the selected server's stderr (and its launch command's output), with
/// McpScope's own notices about it set apart, a search field that highlights what it finds and, unless
/// "Matching lines only" is off, shows only the lines that contain it. The text selects and copies
/// like any text (Ctrl+C, the context menu). Lines come from a ServerOutput's ring for that server.
///
/// Signals: shown(server, lines) after the view shows a server's ring or new lines (lines: how many
/// lines the view shows now).
class ServerOutputView : public QDockWidget
{
    Q_OBJECT
public:
    explicit ServerOutputView(ServerOutput* output, QWidget* parent = nullptr);

    /// The server whose output is shown; empty shows nothing.
    void showServer(const QString& server);
    const QString& server() const { return m_server; }
    void setSearchText(const QString& text);
    /// Off: every line stays, and what the search finds is only highlighted.
    void setMatchingLinesOnly(bool only);

    // For tests and screenshots.
    QLineEdit* searchField() const { return m_search; }
    QPlainTextEdit* textView() const { return m_text; }
    /// The lines shown (without their time stamps).
    QStringList shownLines() const;
    /// How many places the search text was found in what is shown.
    int matchCount() const { return m_matches; }

Q_SIGNALS:
    void shown(const QString& server, int lines);

private:
    void rebuild();
    void appendNew();
    void appendLine(qint64 at, const QString& text, bool fromMcpScope);
    bool matches(const QString& text) const;
    void highlight();

    QPointer<ServerOutput> m_output;
    QString m_server;
    qint64 m_shownUpTo = 0; ///< ServerOutput::added() when the view last caught up
    QLineEdit* m_search = nullptr;
    QCheckBox* m_matchingOnly = nullptr;
    QLabel* m_count = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QStringList m_shown;
    int m_matches = 0;
    QTimer m_appendTimer;
};

} // namespace mcpscope
