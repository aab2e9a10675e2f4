#include "faultbar.h"

#include "engine/serverconnection.h"
#include "fault/faultproxy.h"
#include "fault/stdiofault.h"
#include "session/clientsession.h"

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>

namespace mcpscope {

FaultBar::FaultBar(std::function<ServerConnection*()> currentConnection, QWidget* parent)
    : QToolBar(tr("Faults and triggers"), parent)
    , m_currentConnection(std::move(currentConnection))
{
    setObjectName(QStringLiteral("faultBar"));
    addWidget(new QLabel(tr(" Faults: "), this));
    m_serverActions.append(addAction(tr("Expire (server)"), this, [this] {
        QString error;
        if (ServerConnection* c = m_currentConnection(); c && !c->expireSession(true, &error))
            Q_EMIT statusMessage(error);
    }));
    m_serverActions.last()->setToolTip(tr("Ask the server to end the session (DELETE)"));
    m_serverActions.append(addAction(tr("Expire (client)"), this, [this] {
        QString error;
        if (ServerConnection* c = m_currentConnection(); c && !c->expireSession(false, &error))
            Q_EMIT statusMessage(error);
    }));
    m_serverActions.last()->setToolTip(tr("Forget the session id on the client"));
    m_serverActions.append(addAction(tr("Kill transport"), this, [this] {
        if (ServerConnection* c = m_currentConnection())
            c->killTransport();
    }));
    addSeparator();
    m_faultKind = new QComboBox(this);
    m_faultKind->setObjectName(QStringLiteral("faultKind"));
    // Wide enough for the longest fault name ("drop-response-stream"), whichever list a server offers.
    m_faultKind->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_faultKind->setMinimumContentsLength(20);
    m_faultCount = new QSpinBox(this);
    m_faultCount->setRange(1, 1000);
    m_faultCount->setPrefix(tr("×"));
    m_faultDelay = new QSpinBox(this);
    m_faultDelay->setRange(0, 600000);
    m_faultDelay->setValue(2000);
    m_faultDelay->setSuffix(tr(" ms"));
    addWidget(m_faultKind);
    addWidget(m_faultCount);
    addWidget(m_faultDelay);
    m_arm = addAction(tr("Arm"), this, &FaultBar::armFault);
    m_arm->setObjectName(QStringLiteral("armFault"));
    m_armed = new QLabel(this);
    m_armed->setObjectName(QStringLiteral("armedFaults"));
    addWidget(m_armed);
    // An HTTP server not routed through the fault proxy can be put there in one click.
    m_routeThroughProxy = addAction(tr("Route through fault proxy"), this, [this] {
        if (ServerConnection* c = m_currentConnection())
            Q_EMIT routeThroughProxyRequested(c);
    });
    m_routeThroughProxy->setObjectName(QStringLiteral("routeThroughFaultProxy"));
    m_routeThroughProxy->setToolTip(tr("Turn on the server's fault proxy option (Edit server) and reconnect, so "
                                       "that HTTP faults can be armed"));
    addSeparator();
    m_serverActions.append(addAction(tr("Open breaker"), this, [this] {
        if (ServerConnection* c = m_currentConnection())
            c->openBreaker();
    }));
    m_serverActions.append(addAction(tr("Reset breaker"), this, [this] {
        if (ServerConnection* c = m_currentConnection())
            c->resetBreaker();
    }));
    refresh();
}

void FaultBar::refresh()
{
    ServerConnection* c = m_currentConnection();
    const bool stdio = c && !c->config().isHttp();
    const bool unproxied = c && !stdio && !c->faultProxy();
    for (QAction* action : std::as_const(m_serverActions)) {
        action->setEnabled(c != nullptr);
        action->setStatusTip(c ? QString() : tr("Select a server in the Servers list first."));
    }
    const QString current = m_faultKind->currentText();
    m_faultKind->blockSignals(true);
    m_faultKind->clear();
    if (stdio) {
        for (const EnumName<StdioFault>& fault : StdioFaultEntries)
            m_faultKind->addItem(fault.name.toString());
    } else if (c && c->faultProxy()) {
        // A 2026-07-28 server has no session to expire: it is offered the modern faults in their place.
        const bool modern = c->session() && c->session()->details().era == ProtocolEra::Modern;
        m_faultKind->addItems(modern ? FaultProxy::modernKindNames() : FaultProxy::legacyKindNames());
    }
    m_faultKind->setCurrentText(current);
    m_faultKind->setEnabled(m_faultKind->count() > 0);
    const QString why = !c ? tr("Select a server in the Servers list first.")
        : unproxied && c->config().viaFaultProxy
        ? tr("%1 goes through the fault proxy from its next connect.").arg(c->name())
        : tr("%1 is not behind the fault proxy: HTTP faults need it (Route through fault proxy).").arg(c->name());
    m_faultKind->setToolTip(m_faultKind->count() > 0 ? QString() : why);
    m_faultKind->blockSignals(false);
    m_arm->setEnabled(m_faultKind->count() > 0);
    m_arm->setToolTip(m_faultKind->count() > 0 ? tr("Arm the fault for the next tools/call") : why);
    m_routeThroughProxy->setVisible(unproxied && !c->config().viaFaultProxy);
    QStringList armed;
    if (c && c->faultProxy()) {
        for (const FaultProxy::Fault& f : c->faultProxy()->armed())
            armed.append(QStringLiteral("%1×%2").arg(FaultProxy::kindName(f.kind)).arg(f.count));
    }
    if (c && c->pendingStdioFaults() > 0)
        armed.append(tr("%n stdio fault(s)", nullptr, c->pendingStdioFaults()));
    if (unproxied)
        m_armed->setText(
            c->config().viaFaultProxy ? tr(" fault proxy from the next connect ") : tr(" not behind the fault proxy "));
    else
        m_armed->setText(
            armed.isEmpty() ? tr(" nothing armed ") : tr(" armed: %1 ").arg(armed.join(QStringLiteral(", "))));
    m_armed->setToolTip(unproxied ? why : QString());
}

void FaultBar::armFault()
{
    ServerConnection* c = m_currentConnection();
    if (!c || m_faultKind->currentText().isEmpty())
        return;
    const QString name = m_faultKind->currentText();
    if (!c->config().isHttp()) {
        const StdioFault kind = StdioFaultNames.fromName(name).value_or(StdioFault::Delay);
        for (int i = 0; i < m_faultCount->value(); ++i)
            c->armStdioFault(kind, m_faultDelay->value());
    } else if (FaultProxy* proxy = c->faultProxy()) {
        FaultProxy::Fault fault;
        fault.kind = FaultProxy::kindFromName(name).value_or(FaultProxy::FaultKind::ExpireAfter);
        fault.count = m_faultCount->value();
        fault.delayMs = m_faultDelay->value();
        fault.method = QStringLiteral("tools/call");
        proxy->arm(fault);
        c->noteEvent(QStringLiteral("action"), tr("armed fault %1 ×%2").arg(name).arg(fault.count));
        connect(proxy, &FaultProxy::armedChanged, this, &FaultBar::refresh, Qt::UniqueConnection);
    }
    refresh();
}

} // namespace mcpscope
