#pragma once

#include <QAbstractScrollArea>
#include <QByteArray>
#include <QList>

namespace mcpscope {

/// A read-only viewer for texts too large for QPlainTextEdit, such as a 20 MB tool result on one line.
/// QPlainTextEdit lays out and shapes a whole paragraph before it shows any of it: seconds and hundreds
/// of MB for one long line. This view keeps the text as UTF-8, cut into rows of at most RowBytes at
/// character boundaries (split(), which runs on a worker), and shapes only the part of each row that is
/// on screen, in a monospace font. Selection by mouse or Ctrl+A, and Ctrl+C, copy the original text.
class LargeTextView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    /// Rows longer than this are cut: a continuation row follows without a line break.
    static constexpr qsizetype RowBytes = 4096;

    /// A text cut into rows. Row i is text[starts[i], starts[i+1]) less its line break.
    struct Rows
    {
        QByteArray text;
        QList<qsizetype> starts;
        qsizetype longestRow = 0; ///< in bytes
    };
    /// Pure and thread-safe: call it off the GUI thread.
    static Rows split(QByteArray utf8);

    /// A row and a column, in characters (UTF-16 units) of that row.
    struct Position
    {
        qsizetype row = 0;
        qsizetype column = 0;
        friend auto operator<=>(const Position&, const Position&) = default;
    };

    explicit LargeTextView(QWidget* parent = nullptr);

    void setRows(Rows rows);
    /// What the view says until setRows(), such as "Laying out 20 MB…".
    void setPlaceholder(const QString& text);
    void clear();

    qsizetype rowCount() const { return m_rows.starts.size(); }
    QString rowText(qsizetype row) const;
    /// Whether the row ends a line of the text, rather than being cut at RowBytes.
    bool rowEndsLine(qsizetype row) const;
    const QByteArray& utf8() const { return m_rows.text; }

    void select(Position from, Position to);
    void selectAll();
    QString selectedText() const;
    void copy() const;
    /// Where a character is drawn, in viewport coordinates (for tests and tooltips).
    QRect characterRect(Position at) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    qsizetype rowEnd(qsizetype row) const;
    Position positionAt(const QPoint& point) const;
    void updateScrollBars();
    void updateMetrics();

    Rows m_rows;
    QString m_placeholder;
    Position m_anchor;
    Position m_cursor;
    int m_lineHeight = 1;
    int m_charWidth = 1;
    int m_ascent = 0;
};

} // namespace mcpscope
