#include "serveroutputview.h"

#include "models/serveroutput.h"
#include "presentation/presentation.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>

namespace mcpscope {

namespace {
constexpr int MaxHighlights = 2000;
} // namespace

ServerOutputView::ServerOutputView(ServerOutput* output, QWidget* parent)
    : QDockWidget(tr("Server Output"), parent)
    , m_output(output)
{
    setObjectName(QStringLiteral("serverOutputDock"));
    auto* host = new QWidget(this);
    auto* layout = new QVBoxLayout(host);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_search = new QLineEdit(host);
    m_search->setObjectName(QStringLiteral("serverOutputSearch"));
    m_search->setPlaceholderText(tr("Search this server's output"));
    m_search->setClearButtonEnabled(true);
    m_matchingOnly = new QCheckBox(tr("Matching lines only"), host);
    m_matchingOnly->setChecked(true);
    m_count = new QLabel(host);
    auto* clear = new QPushButton(tr("Clear"), host);
    clear->setToolTip(tr("Forget the output kept for this server"));
    bar->addWidget(m_search, 1);
    bar->addWidget(m_matchingOnly);
    bar->addWidget(m_count);
    bar->addWidget(clear);
    layout->addLayout(bar);
    m_text = new QPlainTextEdit(host);
    m_text->setObjectName(QStringLiteral("serverOutputText"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFont(QStringLiteral("monospace")));
    m_text->setMaximumBlockCount(ServerOutput::DefaultLineLimit);
    layout->addWidget(m_text, 1);
    setWidget(host);

    m_appendTimer.setSingleShot(true);
    m_appendTimer.setInterval(0);
    connect(&m_appendTimer, &QTimer::timeout, this, &ServerOutputView::appendNew);
    connect(m_search, &QLineEdit::textChanged, this, &ServerOutputView::rebuild);
    connect(m_matchingOnly, &QCheckBox::toggled, this, &ServerOutputView::rebuild);
    connect(clear, &QPushButton::clicked, this, [this] {
        if (m_output && !m_server.isEmpty())
            m_output->clear(m_server);
    });
    if (m_output) {
        connect(m_output, &ServerOutput::linesAdded, this, [this](const QString& server) {
            if (server == m_server && !m_appendTimer.isActive())
                m_appendTimer.start();
        });
        connect(m_output, &ServerOutput::cleared, this, [this](const QString& server) {
            if (server == m_server)
                rebuild();
        });
    }
    rebuild();
}

void ServerOutputView::showServer(const QString& server)
{
    if (server == m_server)
        return;
    m_server = server;
    setWindowTitle(server.isEmpty() ? tr("Server Output") : tr("Server Output — %1").arg(server));
    rebuild();
}

void ServerOutputView::setSearchText(const QString& text)
{
    m_search->setText(text);
}

void ServerOutputView::setMatchingLinesOnly(bool only)
{
    m_matchingOnly->setChecked(only);
}

QStringList ServerOutputView::shownLines() const
{
    return m_shown;
}

bool ServerOutputView::matches(const QString& text) const
{
    const QString needle = m_search->text();
    return needle.isEmpty() || !m_matchingOnly->isChecked() || text.contains(needle, Qt::CaseInsensitive);
}

void ServerOutputView::rebuild()
{
    m_appendTimer.stop();
    m_text->clear();
    m_shown.clear();
    m_shownUpTo = 0;
    if (m_output && !m_server.isEmpty()) {
        for (const ServerOutput::Line& line : m_output->lines(m_server)) {
            if (matches(line.text))
                appendLine(line.at, line.text, line.fromMcpScope);
        }
        m_shownUpTo = m_output->added(m_server);
    }
    // Shown only while the view is empty.
    if (m_server.isEmpty())
        m_text->setPlaceholderText(tr("Select a server to see what it writes to stderr."));
    else if (!m_search->text().isEmpty())
        m_text->setPlaceholderText(tr("No line contains '%1'.").arg(m_search->text()));
    else if (m_output && !m_output->seesOutputOf(m_server))
        m_text->setPlaceholderText(tr("'%1' is a remote HTTP server: McpScope sees the output only of servers it "
                                      "starts (stdio, or an HTTP server with a launch command).")
                                       .arg(m_server));
    else
        m_text->setPlaceholderText(tr("'%1' has written nothing to stderr yet.").arg(m_server));
    highlight();
    Q_EMIT shown(m_server, int(m_shown.size()));
}

void ServerOutputView::appendNew()
{
    if (!m_output || m_server.isEmpty())
        return;
    const std::deque<ServerOutput::Line>& lines = m_output->lines(m_server);
    const qint64 added = m_output->added(m_server);
    const qint64 fresh = std::min<qint64>(added - m_shownUpTo, qint64(lines.size()));
    for (auto it = lines.end() - fresh; it != lines.end(); ++it) {
        if (matches(it->text))
            appendLine(it->at, it->text, it->fromMcpScope);
    }
    m_shownUpTo = added;
    while (m_shown.size() > m_text->maximumBlockCount())
        m_shown.removeFirst();
    highlight();
    Q_EMIT shown(m_server, int(m_shown.size()));
}

void ServerOutputView::appendLine(qint64 at, const QString& text, bool fromMcpScope)
{
    const bool atEnd = m_text->verticalScrollBar()->value() == m_text->verticalScrollBar()->maximum();
    QTextCursor cursor(m_text->document());
    cursor.movePosition(QTextCursor::End);
    if (!m_text->document()->isEmpty())
        cursor.insertBlock();
    QTextCharFormat stamp;
    stamp.setForeground(m_text->palette().color(QPalette::Disabled, QPalette::Text));
    cursor.insertText(Presentation::timeText(at) + QStringLiteral("  "), stamp);
    QTextCharFormat body;
    if (fromMcpScope) {
        body.setForeground(QColor(0x1f, 0x6f, 0xc5));
        body.setFontItalic(true);
        cursor.insertText(QStringLiteral("[mcpscope] ") + text, body);
    } else {
        cursor.insertText(text, body);
    }
    m_shown.append(text);
    if (atEnd)
        m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
}

void ServerOutputView::highlight()
{
    QList<QTextEdit::ExtraSelection> selections;
    m_matches = 0;
    const QString needle = m_search->text();
    if (!needle.isEmpty()) {
        QTextCharFormat found;
        found.setBackground(QColor(0xff, 0xd3, 0x3d));
        found.setForeground(Qt::black);
        for (QTextBlock block = m_text->document()->begin(); block.isValid(); block = block.next()) {
            const QString text = block.text();
            for (qsizetype at = text.indexOf(needle, 0, Qt::CaseInsensitive); at >= 0;
                 at = text.indexOf(needle, at + needle.size(), Qt::CaseInsensitive)) {
                ++m_matches;
                if (selections.size() >= MaxHighlights)
                    continue;
                QTextEdit::ExtraSelection selection;
                selection.cursor = QTextCursor(block);
                selection.cursor.setPosition(block.position() + int(at));
                selection.cursor.setPosition(block.position() + int(at + needle.size()), QTextCursor::KeepAnchor);
                selection.format = found;
                selections.append(selection);
            }
        }
    }
    m_text->setExtraSelections(selections);
    m_count->setText(
        needle.isEmpty() ? tr("%n line(s)", nullptr, int(m_shown.size())) : tr("%n match(es)", nullptr, m_matches));
}

} // namespace mcpscope
