#include "serveroverview.h"

#include "engine/serverconnection.h"
#include "mainwindow/authcontroller.h"
#include "mainwindow/authview.h"
#include "presentation/presentation.h"
#include "recovery/circuitbreaker.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>

namespace mcpscope {

ServerOverview::ServerOverview(QWidget* parent)
    : QScrollArea(parent)
{
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("overview"));
    m_text->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setMargin(12);
    // Server instructions can be pages long: they scroll instead of stretching the window.
    setWidgetResizable(true);
    setWidget(m_text);
}

QString ServerOverview::discoverHtml(const ServerDetails& d)
{
    QString html
        = tr("<p><b>server/discover:</b> supported versions %1")
              .arg(d.supportedVersions.isEmpty() ? tr("(none named)")
                                                 : d.supportedVersions.join(QStringLiteral(", ")).toHtmlEscaped());
    // Cache hints: how long the discover (and list) results may be reused, and by whom.
    if (d.ttlMs >= 0)
        html += tr(" · ttlMs %1%2").arg(d.ttlMs).arg(d.ttlMs == 0 ? tr(" (do not reuse)") : QString());
    if (!d.cacheScope.isEmpty())
        html += tr(" · cacheScope %1").arg(d.cacheScope.toHtmlEscaped());
    return html + QStringLiteral("</p>");
}

QString ServerOverview::text() const
{
    return m_text->text();
}

void ServerOverview::showConnection(const ServerConnection* c, const AuthController* authController)
{
    if (!c) {
        m_text->setText(tr("Add a server (Ctrl+N), import an mcp.json (Ctrl+O) or drop one here."));
        return;
    }
    const ClientSession* s = c->session();
    QString html = tr("<h2>%1</h2>").arg(c->name().toHtmlEscaped());
    html += tr("<p><b>State:</b> %1 &nbsp; <b>Transport:</b> %2</p>")
                .arg(Presentation::stateText(c->state()),
                    Presentation::transportText(s ? c->activeTransport() : c->config().transport));
    // A failed start's error is in the banner above every tab (ServerBanner), not repeated here.
    if (const QString ping = m_pingLookup ? m_pingLookup(c->name()) : QString(); !ping.isEmpty())
        html += tr("<p><b>Last ping:</b> %1</p>").arg(ping.toHtmlEscaped());
    // A server that never asked for authorization has nothing to say here.
    if (const ServerAuth* auth = c->auth(); auth && auth->state() != ServerAuth::State::None) {
        const AuthSummary summary
            = AuthController::summaryOf(auth, authController ? authController->pendingAuthorization(auth) : QUrl());
        html += tr("<p><b>Authorization:</b> <span style='color:%1'>&#9679;</span> %2")
                    .arg(AuthView::stateColour(summary.state).name(),
                        AuthView::stateText(summary, QDateTime::currentMSecsSinceEpoch()).toHtmlEscaped());
        if (!summary.storePersistent)
            html += tr("<br><span style='color:#9a6700'>&#9888; Tokens are lost when McpScope quits: %1</span>")
                        .arg(summary.storeDescription.toHtmlEscaped());
        html += QStringLiteral("</p>");
    }
    if (s && !s->details().protocolVersion.isEmpty()) {
        const ServerDetails& d = s->details();
        const bool modern = d.era == ProtocolEra::Modern;
        html += tr("<p><b>Server:</b> %1 %2<br><b>Protocol:</b> %3 &nbsp; <b>Era:</b> %4%5<br><b>Session:</b> %6</p>")
                    .arg(d.serverInfo.value(QLatin1String("name")).toString().toHtmlEscaped(),
                        d.serverInfo.value(QLatin1String("version")).toString().toHtmlEscaped(), d.protocolVersion,
                        protocolEraName(d.era),
                        c->config().era == ProtocolEra::Auto ? tr(" (auto: %1)").arg(d.eraReason.toHtmlEscaped())
                                                             : QString(),
                        modern ? tr("sessionless (2026-07-28: no initialize, no session)")
                            : c->shownSessionId().isEmpty()
                            ? tr("—")
                            : tr("<code>%1</code>").arg(c->shownSessionId().toHtmlEscaped()));
        if (modern)
            html += discoverHtml(d);
        QStringList capabilities;
        for (auto it = d.capabilities.constBegin(); it != d.capabilities.constEnd(); ++it) {
            QStringList flags;
            const QJsonObject sub = it.value().toObject();
            for (auto f = sub.constBegin(); f != sub.constEnd(); ++f)
                flags.append(f.value().isBool() ? (f.value().toBool() ? f.key() : QString()) : f.key());
            flags.removeAll(QString());
            capabilities.append(
                flags.isEmpty() ? it.key() : QStringLiteral("%1 (%2)").arg(it.key(), flags.join(QStringLiteral(", "))));
        }
        html += tr("<p><b>Capabilities:</b> %1</p>").arg(capabilities.join(QStringLiteral(" · ")).toHtmlEscaped());
        if (!d.instructions.isEmpty())
            html += tr("<p><b>Instructions:</b></p><pre style='white-space:pre-wrap'>%1</pre>")
                        .arg(d.instructions.toHtmlEscaped());
    }
    const CircuitBreaker* b = c->breaker();
    html += tr("<p><b>Breaker:</b> %1, %2 consecutive failure(s)%3</p>")
                .arg(CircuitBreaker::stateName(b->state()))
                .arg(b->consecutiveFailures())
                .arg(c->config().idempotentReplay ? tr("<br><b>Policy:</b> idempotent-replay is on") : QString());
    QStringList roots;
    for (const QJsonValue& root : c->config().rootsJson())
        roots.append(root.toObject().value(QLatin1String("uri")).toString().toHtmlEscaped());
    html += roots.isEmpty() ? tr("<p><b>Roots:</b> none (Server › Edit adds folders for roots/list)</p>")
                            : tr("<p><b>Roots:</b> %1</p>").arg(roots.join(QStringLiteral("<br>")));
    m_text->setText(html);
}

} // namespace mcpscope
