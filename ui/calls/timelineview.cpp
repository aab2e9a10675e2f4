#include "timelineview.h"

#include <QDateTime>
#include <QJsonDocument>

#include <algorithm>

namespace mcpscope {

namespace {
QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

QString clock(qint64 ms)
{
    return ms > 0 ? QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss.zzz")) : QStringLiteral("—");
}

QString shortId(const QString& id)
{
    return id.size() > 14 ? id.left(8) + QStringLiteral("…") + id.right(4) : id;
}

QString badge(const QString& text, const char* colour)
{
    return QStringLiteral("<span style='background:%1;color:white;padding:1px 6px;border-radius:3px'>%2</span>")
        .arg(QLatin1String(colour), esc(text));
}

struct Entry
{
    qint64 at;
    int order;
    QString html;
};
} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenLinks(false);
    setObjectName(QStringLiteral("timeline"));
}

void TimelineView::clearRecord()
{
    clear();
}

void TimelineView::setRecord(const CallRecord& record, const QList<QByteArray>& rawMessages)
{
    setHtml(toHtml(record, rawMessages));
}

QString TimelineView::toHtml(const CallRecord& record, const QList<QByteArray>& rawMessages)
{
    QList<Entry> entries;
    int order = 0;
    for (const CallAttempt& a : record.attempts) {
        // Where it went: an HTTP session id, a stdio server process ("pid:N", in either era), or nothing for a
        // sessionless (2026-07-28 or stateless) HTTP server; the word says which, not always "session".
        QString where;
        if (a.sessionId.isEmpty())
            where = QObject::tr("without a session");
        else if (a.sessionId.startsWith(QLatin1String("pid:")))
            where = QObject::tr("to server process <code>%1</code>").arg(esc(a.sessionId));
        else
            where
                = QObject::tr("on session <code title='%1'>%2</code>").arg(esc(a.sessionId), esc(shortId(a.sessionId)));
        QString html = QObject::tr("<b>Attempt %1</b> %2 (request %3) sent %4")
                           .arg(a.number)
                           .arg(where, esc(a.requestId), clock(a.sentAt));
        if (a.failureKind) {
            html += QObject::tr("<br>&nbsp;&nbsp;failed: %1, dispatch %2%3<br>&nbsp;&nbsp;<i>%4</i>")
                        .arg(badge(failureKindName(*a.failureKind), "#b02a37"),
                            badge(a.verdict ? dispatchVerdictName(*a.verdict) : QStringLiteral("?"), "#6c757d"),
                            a.httpStatus ? QObject::tr(", HTTP %1").arg(a.httpStatus) : QString(), esc(a.error));
        } else if (a.endedAt > 0) {
            html += QObject::tr("<br>&nbsp;&nbsp;answered after %1 ms").arg(a.endedAt - a.sentAt);
        }
        // The HTTP client's timing, relative to the send: connect, first byte, end.
        if (a.connectedAt > 0 && a.endedAt > 0) {
            html += QObject::tr("<br>&nbsp;&nbsp;connect %1, first byte +%2 ms, end +%3 ms")
                        .arg(a.connectionReused ? QObject::tr("reused (0 ms)")
                                                : QObject::tr("+%1 ms").arg(a.connectMs()))
                        .arg(a.firstByteAt > 0 ? a.firstByteAt - a.sentAt : 0)
                        .arg(a.endedAt - a.sentAt);
        }
        // The wire: each HTTP request of the attempt (a POST, then any resumed stream) or its stdio lines.
        for (const HttpExchange& x : a.exchange.http) {
            html += QObject::tr("<br>&nbsp;&nbsp;<code>%1 %2</code> → %3%4")
                        .arg(esc(x.method), esc(x.url),
                            x.status ? QStringLiteral("%1 %2").arg(x.status).arg(esc(x.statusText))
                                     : QObject::tr("no response"),
                            // With a status, Qt's error text only repeats it ("server replied: Not Found").
                            x.error.isEmpty() || x.status ? QString() : QStringLiteral(" — ") + esc(x.error));
            if (x.responseBodySize > 0)
                html += QObject::tr(", %L1 bytes%2")
                            .arg(x.responseBodySize)
                            .arg(x.mimeType.isEmpty() ? QString() : QStringLiteral(" ") + esc(x.mimeType));
        }
        if (!a.exchange.stdio.isEmpty())
            html += QObject::tr("<br>&nbsp;&nbsp;stdio: %n line(s)", nullptr, int(a.exchange.stdio.size()));
        entries.append({ a.sentAt, order++, html });
    }
    for (const CallDecision& d : record.decisions) {
        qint64 at = record.startedAt;
        for (const CallAttempt& a : record.attempts)
            if (a.number == d.afterAttempt)
                at = a.endedAt;
        entries.append({ at, order++,
            QObject::tr("<b>Decision</b> %1 %2 → %3<br>&nbsp;&nbsp;%4")
                .arg(badge(d.rule, "#0d6efd"), QString(), esc(d.action), esc(d.reason)) });
    }
    for (const CallReconnect& r : record.reconnects) {
        entries.append({ r.startedAt, order++,
            QObject::tr("<b>Reconnect</b> %1: <code>%2</code> → <code>%3</code> in %4 ms%5")
                .arg(r.ok ? badge(QObject::tr("healed"), "#198754") : badge(QObject::tr("failed"), "#b02a37"),
                    esc(shortId(r.oldSessionId)), esc(shortId(r.newSessionId)))
                .arg(r.durationMs)
                .arg(r.error.isEmpty() ? QString() : QStringLiteral(" — ") + esc(r.error)) });
    }
    for (const CallEvent& e : record.events) {
        entries.append({ e.at, order++,
            QObject::tr("%1 %2").arg(
                badge(e.kind, e.kind == QLatin1String("fault") ? "#fd7e14" : "#6f42c1"), esc(e.text)) });
    }
    std::stable_sort(entries.begin(), entries.end(),
        [](const Entry& a, const Entry& b) { return a.at != b.at ? a.at < b.at : a.order < b.order; });

    QString html = QStringLiteral("<html><body style='font-family:sans-serif'>");
    html += QObject::tr("<h3>%1 — %2 on %3</h3>")
                .arg(esc(record.tool.isEmpty() ? record.method : record.tool), esc(outcomeName(record.outcome)),
                    esc(record.server));
    html += QObject::tr("<p>call <code>%1</code>, started %2, %3 ms, %4 attempt(s)%5</p>")
                .arg(esc(record.callId), clock(record.startedAt))
                .arg(record.durationMs())
                .arg(record.attempts.size())
                .arg(record.rule.isEmpty() ? QString() : QObject::tr(", rule %1").arg(esc(record.rule)));
    html += QStringLiteral("<table cellspacing='4'>");
    for (const Entry& e : std::as_const(entries))
        html += QStringLiteral("<tr><td valign='top' style='color:gray'>%1</td><td>%2</td></tr>")
                    .arg(clock(e.at), e.html);
    const char* colour = record.outcome == CallOutcome::Success ? "#198754"
        : record.outcome == CallOutcome::OutcomeUncertain       ? "#e0a800"
                                                                : "#b02a37";
    html += QStringLiteral("<tr><td valign='top' style='color:gray'>%1</td><td><b>Result</b> %2%3</td></tr>")
                .arg(clock(record.endedAt), badge(outcomeName(record.outcome), colour),
                    record.healed ? QObject::tr(" (session healed)") : QString());
    html += QStringLiteral("</table>");
    if (!rawMessages.isEmpty()) {
        html += QObject::tr("<h4>JSON-RPC messages</h4><pre>");
        for (const QByteArray& message : rawMessages)
            html += esc(QString::fromUtf8(message.left(4000))) + QLatin1Char('\n');
        html += QStringLiteral("</pre>");
    }
    html += QStringLiteral("</body></html>");
    return html;
}

} // namespace mcpscope
