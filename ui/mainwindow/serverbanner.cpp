#include "serverbanner.h"

#include "engine/serverconnection.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace mcpscope {

namespace {
using State = ServerConnection::State;

enum class Tone { Error, Warning, Neutral };

QString styleFor(Tone tone)
{
    switch (tone) {
    case Tone::Error:
        return QStringLiteral("#serverBanner{background:#f8d7da;border:1px solid #d9534f;}"
                              "#serverBanner QLabel{color:#58151c;}");
    case Tone::Warning:
        return QStringLiteral("#serverBanner{background:#fff3cd;border:1px solid #e0b000;}"
                              "#serverBanner QLabel{color:#664d03;}");
    case Tone::Neutral:
        break;
    }
    return QStringLiteral("#serverBanner{background:#e2e3e5;border:1px solid #a0a4a8;}"
                          "#serverBanner QLabel{color:#2b2f32;}");
}
} // namespace

ServerBanner::ServerBanner(QWidget* parent)
    : QWidget(parent)
    , m_text(new QLabel(this))
    , m_button(new QPushButton(this))
{
    setObjectName(QStringLiteral("serverBanner"));
    // The style sheet's background needs it on a plain QWidget.
    setAttribute(Qt::WA_StyledBackground, true);
    m_text->setObjectName(QStringLiteral("serverBanner.text"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_button->setObjectName(QStringLiteral("serverBanner.button"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_button, 0, Qt::AlignVCenter);
    connect(m_button, &QPushButton::clicked, this, &ServerBanner::act);
    hide();
}

QWidget* ServerBanner::wrap(ServerBanner* banner, QWidget* tabs, QWidget* parent)
{
    auto* host = new QWidget(parent);
    auto* layout = new QVBoxLayout(host);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    banner->setParent(host);
    layout->addWidget(banner);
    layout->addWidget(tabs, 1);
    return host;
}

void ServerBanner::showConnection(ServerConnection* connection)
{
    if (m_connection != connection) {
        if (m_connection)
            m_connection->disconnect(this);
        m_connection = connection;
        if (connection) {
            connect(connection, &ServerConnection::stateChanged, this, &ServerBanner::refresh);
            connect(connection, &ServerConnection::failed, this, &ServerBanner::refresh);
        }
    }
    refresh();
}

QString ServerBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

void ServerBanner::refresh()
{
    ServerConnection* c = m_connection;
    if (!c) {
        hide();
        return;
    }
    const QString name = c->name().toHtmlEscaped();
    const QString error = c->lastError().toHtmlEscaped();
    QString text;
    QString button;
    Tone tone = Tone::Error;
    switch (c->state()) {
    // The error names the server and what failed (house rule): the heading does not repeat the name.
    case State::Failed:
        text = error.isEmpty() ? tr("<b>%1 is not connected:</b> its start failed.").arg(name)
                               : tr("<b>Not connected.</b> %1").arg(error);
        button = tr("Reconnect");
        break;
    case State::NeedsAuth:
        tone = Tone::Warning;
        text = error.isEmpty() ? tr("<b>%1 needs authorization.</b> See the Auth tab.").arg(name)
                               : tr("<b>Authorization needed.</b> %1 See the Auth tab.").arg(error);
        button = tr("Try again");
        break;
    case State::Parked:
        tone = Tone::Warning;
        text = tr("<b>%1: reconnecting has stopped</b> after repeated failures. %2").arg(name, error);
        button = tr("Reconnect now");
        break;
    case State::Disconnected:
    case State::Closed:
        tone = Tone::Neutral;
        text = tr("<b>%1 is not connected.</b>").arg(name);
        button = tr("Connect");
        break;
    case State::Connecting:
    case State::Initializing:
    case State::Ready:
    case State::Suspect:
    case State::Reconnecting:
        hide();
        return;
    }
    setStyleSheet(styleFor(tone));
    m_text->setText(text);
    m_button->setText(button);
    show();
}

void ServerBanner::act()
{
    ServerConnection* c = m_connection;
    if (!c)
        return;
    if (c->state() == State::Parked)
        c->reconnectNow();
    else
        c->connectToServer();
}

} // namespace mcpscope
