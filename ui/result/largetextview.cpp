#include "largetextview.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>

#include <cstring>

namespace mcpscope {

namespace {
constexpr int Margin = 4;

bool isContinuationByte(char byte)
{
    return (uchar(byte) & 0xC0) == 0x80;
}
} // namespace

LargeTextView::Rows LargeTextView::split(QByteArray utf8)
{
    Rows rows;
    rows.text = std::move(utf8);
    const char* data = rows.text.constData();
    const qsizetype size = rows.text.size();
    rows.starts.reserve(size / RowBytes + 16);
    qsizetype start = 0;
    while (start < size) {
        rows.starts.append(start);
        const qsizetype limit = std::min(size, start + RowBytes);
        const void* lineBreak = std::memchr(data + start, '\n', size_t(limit - start));
        qsizetype next = limit;
        if (lineBreak) {
            next = static_cast<const char*>(lineBreak) - data + 1;
        } else if (limit < size) {
            // Cut before a character, never inside one.
            while (next > start + 1 && isContinuationByte(data[next]))
                --next;
        }
        rows.longestRow = std::max(rows.longestRow, next - start);
        start = next;
    }
    return rows;
}

LargeTextView::LargeTextView(QWidget* parent)
    : QAbstractScrollArea(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setCursor(Qt::IBeamCursor);
    updateMetrics();
}

void LargeTextView::setRows(Rows rows)
{
    m_rows = std::move(rows);
    m_anchor = m_cursor = {};
    verticalScrollBar()->setValue(0);
    horizontalScrollBar()->setValue(0);
    updateScrollBars();
    viewport()->update();
}

void LargeTextView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    viewport()->update();
}

void LargeTextView::clear()
{
    setRows({});
}

qsizetype LargeTextView::rowEnd(qsizetype row) const
{
    qsizetype end = row + 1 < m_rows.starts.size() ? m_rows.starts.at(row + 1) : m_rows.text.size();
    const qsizetype start = m_rows.starts.at(row);
    if (end > start && m_rows.text.at(end - 1) == '\n') {
        --end;
        if (end > start && m_rows.text.at(end - 1) == '\r')
            --end;
    }
    return end;
}

QString LargeTextView::rowText(qsizetype row) const
{
    if (row < 0 || row >= rowCount())
        return {};
    const qsizetype start = m_rows.starts.at(row);
    return QString::fromUtf8(m_rows.text.constData() + start, rowEnd(row) - start);
}

bool LargeTextView::rowEndsLine(qsizetype row) const
{
    return row + 1 >= rowCount() || m_rows.text.at(m_rows.starts.at(row + 1) - 1) == '\n';
}

void LargeTextView::select(Position from, Position to)
{
    m_anchor = from;
    m_cursor = to;
    viewport()->update();
}

void LargeTextView::selectAll()
{
    if (rowCount() == 0)
        return;
    select({}, { rowCount() - 1, rowText(rowCount() - 1).size() });
}

QString LargeTextView::selectedText() const
{
    const Position from = std::min(m_anchor, m_cursor);
    const Position to = std::max(m_anchor, m_cursor);
    if (from == to || rowCount() == 0)
        return {};
    QString text;
    for (qsizetype row = from.row; row <= to.row && row < rowCount(); ++row) {
        const QString line = rowText(row);
        const qsizetype first = row == from.row ? std::min(from.column, line.size()) : 0;
        const qsizetype last = row == to.row ? std::min(to.column, line.size()) : line.size();
        text += QStringView(line).sliced(first, std::max<qsizetype>(0, last - first));
        if (row != to.row) {
            // The row's own line break, exactly as the text has it ("\n", "\r\n" or none for a cut row).
            const qsizetype next = m_rows.starts.at(row + 1);
            const qsizetype end = rowEnd(row);
            text += QString::fromUtf8(m_rows.text.constData() + end, next - end);
        }
    }
    return text;
}

void LargeTextView::copy() const
{
    const QString text = selectedText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

QRect LargeTextView::characterRect(Position at) const
{
    return { Margin + int(at.column) * m_charWidth - horizontalScrollBar()->value(),
        int(at.row - verticalScrollBar()->value()) * m_lineHeight, m_charWidth, m_lineHeight };
}

LargeTextView::Position LargeTextView::positionAt(const QPoint& point) const
{
    if (rowCount() == 0)
        return {};
    const qsizetype row = std::clamp<qsizetype>(
        verticalScrollBar()->value() + point.y() / m_lineHeight, 0, rowCount() - 1);
    const int x = point.x() + horizontalScrollBar()->value() - Margin + m_charWidth / 2;
    return { row, std::clamp<qsizetype>(x / m_charWidth, 0, rowText(row).size()) };
}

void LargeTextView::updateScrollBars()
{
    const int visibleRows = std::max(1, viewport()->height() / m_lineHeight);
    verticalScrollBar()->setRange(0, int(std::max<qsizetype>(0, rowCount() - visibleRows)));
    verticalScrollBar()->setPageStep(visibleRows);
    verticalScrollBar()->setSingleStep(1);
    const qsizetype width = m_rows.longestRow * m_charWidth + 2 * Margin;
    horizontalScrollBar()->setRange(0, int(std::max<qsizetype>(0, width - viewport()->width())));
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setSingleStep(m_charWidth * 4);
}

void LargeTextView::paintEvent(QPaintEvent*)
{
    QPainter painter(viewport());
    painter.setFont(font());
    if (rowCount() == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(viewport()->rect().adjusted(Margin, Margin, -Margin, -Margin),
            Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_placeholder);
        return;
    }
    const qsizetype firstRow = verticalScrollBar()->value();
    const qsizetype visibleRows = viewport()->height() / m_lineHeight + 1;
    const int scrolledX = horizontalScrollBar()->value();
    const qsizetype firstColumn = std::max(0, scrolledX - Margin) / m_charWidth;
    const qsizetype columns = viewport()->width() / m_charWidth + 2;
    const Position from = std::min(m_anchor, m_cursor);
    const Position to = std::max(m_anchor, m_cursor);
    for (qsizetype i = 0; i < visibleRows && firstRow + i < rowCount(); ++i) {
        const qsizetype row = firstRow + i;
        // Only what is on screen is shaped; a tab is one cell, as columns are counted.
        const QString line = rowText(row);
        QString shown = line.mid(firstColumn, columns);
        shown.replace(QLatin1Char('\t'), QLatin1Char(' '));
        const QPoint origin(Margin + int(firstColumn) * m_charWidth - scrolledX, int(i) * m_lineHeight);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(origin + QPoint(0, m_ascent), shown);
        if (from == to || row < from.row || row > to.row)
            continue;
        const qsizetype first = row == from.row ? from.column : 0;
        const qsizetype last = row == to.row ? to.column : line.size() + 1; // + the line break
        if (last <= first)
            continue;
        const QRect selected(characterRect({ row, first }).topLeft(), characterRect({ row, last - 1 }).bottomRight());
        painter.save();
        painter.setClipRect(selected);
        painter.fillRect(selected, palette().brush(QPalette::Highlight));
        painter.setPen(palette().color(QPalette::HighlightedText));
        painter.drawText(origin + QPoint(0, m_ascent), shown);
        painter.restore();
    }
}

void LargeTextView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void LargeTextView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QAbstractScrollArea::mousePressEvent(event);
    const Position at = positionAt(event->position().toPoint());
    select(event->modifiers() & Qt::ShiftModifier ? m_anchor : at, at);
}

void LargeTextView::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    const QPoint point = event->position().toPoint();
    // Dragging past an edge scrolls a row at a time.
    if (point.y() < 0)
        verticalScrollBar()->triggerAction(QAbstractSlider::SliderSingleStepSub);
    else if (point.y() > viewport()->height())
        verticalScrollBar()->triggerAction(QAbstractSlider::SliderSingleStepAdd);
    select(m_anchor, positionAt(point));
}

void LargeTextView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        event->accept(); // the selection was made while the button was down
    else
        QAbstractScrollArea::mouseReleaseEvent(event);
}

void LargeTextView::keyPressEvent(QKeyEvent* event)
{
    if (event == QKeySequence::SelectAll)
        selectAll();
    else if (event == QKeySequence::Copy)
        copy();
    else if (event == QKeySequence::MoveToStartOfDocument)
        verticalScrollBar()->setValue(0);
    else if (event == QKeySequence::MoveToEndOfDocument)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    else
        QAbstractScrollArea::keyPressEvent(event);
}

void LargeTextView::contextMenuEvent(QContextMenuEvent* event)
{
    QMenu menu(this);
    QAction* copyAction = menu.addAction(tr("&Copy"), this, &LargeTextView::copy);
    copyAction->setShortcut(QKeySequence::Copy);
    copyAction->setEnabled(m_anchor != m_cursor);
    menu.addAction(tr("Select &All"), this, &LargeTextView::selectAll)->setShortcut(QKeySequence::SelectAll);
    menu.exec(event->globalPos());
}

void LargeTextView::changeEvent(QEvent* event)
{
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        updateMetrics();
}

void LargeTextView::updateMetrics()
{
    const QFontMetrics metrics(font());
    m_lineHeight = std::max(1, metrics.lineSpacing());
    m_charWidth = std::max(1, metrics.horizontalAdvance(QLatin1Char('M')));
    m_ascent = metrics.ascent();
    updateScrollBars();
}

} // namespace mcpscope
