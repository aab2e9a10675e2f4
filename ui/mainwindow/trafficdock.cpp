#include "trafficdock.h"

#include "engine/engine.h"
#include "models/trafficfilter.h"
#include "models/trafficmodel.h"
#include "models/trafficmodeldefs.h"
#include "presentation/presentation.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace mcpscope {

TrafficDock::TrafficDock(TrafficModel* model, QWidget* parent)
    : QDockWidget(tr("Traffic"), parent)
    , m_model(model)
{
    setObjectName(QStringLiteral("trafficDock"));
    m_filter = new TrafficFilter(this);
    m_filter->setSourceModel(m_model);
    m_presentation = new TrafficPresentation(this);
    m_presentation->setSourceModel(m_filter);

    auto* trafficHost = new QWidget(this);
    auto* trafficLayout = new QVBoxLayout(trafficHost);
    trafficLayout->setContentsMargins(2, 2, 2, 2);
    auto* trafficBar = new QHBoxLayout;
    m_logLevel = new QComboBox(trafficHost);
    m_logLevel->setObjectName(QStringLiteral("logLevel"));
    for (const char* level : { "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" })
        m_logLevel->addItem(QString::fromLatin1(level));
    m_logLevel->setCurrentText(QStringLiteral("info"));
    m_setLevel = new QAction(tr("Set server log level"), trafficHost);
    m_setLevel->setObjectName(QStringLiteral("setLogLevelAction"));
    connect(m_setLevel, &QAction::triggered, this, [this] { Q_EMIT setLevelRequested(m_logLevel->currentText()); });
    auto* setLevelButton = new QToolBar(trafficHost);
    setLevelButton->addAction(m_setLevel);
    auto* showLevel = new QComboBox(trafficHost);
    showLevel->setObjectName(QStringLiteral("showLogLevel"));
    for (const char* level : { "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency" })
        showLevel->addItem(QString::fromLatin1(level));
    connect(showLevel, &QComboBox::currentIndexChanged, m_filter, &TrafficFilter::setMinimumLevel);
    m_text = new QLineEdit(trafficHost);
    m_text->setObjectName(QStringLiteral("trafficTextFilter"));
    m_text->setPlaceholderText(tr("Filter: method, server or message text"));
    m_text->setClearButtonEnabled(true);
    connect(m_text, &QLineEdit::textChanged, m_filter, &TrafficFilter::setText);
    m_server = new QComboBox(trafficHost);
    m_server->setObjectName(QStringLiteral("trafficServerFilter"));
    m_server->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_server, &QComboBox::currentIndexChanged, this,
        [this] { m_filter->setServer(m_server->currentData().toString()); });
    refreshServers();
    if (Engine* engine = m_model->engine()) {
        // Once per event-loop pass: a workspace of 100 servers refilled (and re-measured) the box 100 times.
        m_refreshServers.setSingleShot(true);
        m_refreshServers.setInterval(0);
        connect(&m_refreshServers, &QTimer::timeout, this, &TrafficDock::refreshServers);
        connect(engine, &Engine::serverAdded, &m_refreshServers, qOverload<>(&QTimer::start));
        connect(engine, &Engine::serverRemoved, &m_refreshServers, qOverload<>(&QTimer::start));
    }
    trafficBar->addWidget(m_text, 1);
    trafficBar->addWidget(m_server);
    trafficBar->addSpacing(16);
    trafficBar->addWidget(new QLabel(tr("Show logs from:"), trafficHost));
    trafficBar->addWidget(showLevel);
    trafficBar->addSpacing(16);
    trafficBar->addWidget(new QLabel(tr("Server log level:"), trafficHost));
    trafficBar->addWidget(m_logLevel);
    trafficBar->addWidget(setLevelButton);
    trafficLayout->addLayout(trafficBar);
    auto* trafficSplit = new QSplitter(Qt::Horizontal, trafficHost);
    m_view = Presentation::makeTable(trafficSplit, QStringLiteral("trafficView"));
    m_view->setModel(m_presentation);
    Presentation::sizeColumns(m_view,
        { { TrafficModelColumn::Time, u"00:00:00.000" }, { TrafficModelColumn::Server, u"everything-stdio-00" },
            { TrafficModelColumn::Direction, u"← received" }, { TrafficModelColumn::Method, u"notifications/message" },
            { TrafficModelColumn::Size, u"1,000.0 kB" } });
    m_detail = new QPlainTextEdit(trafficSplit);
    m_detail->setReadOnly(true);
    m_detail->setFont(QFont(QStringLiteral("monospace")));
    // The table, with its Message column, gets most of the width; the detail shows one message.
    trafficSplit->setStretchFactor(0, 3);
    trafficSplit->setStretchFactor(1, 2);
    trafficLayout->addWidget(trafficSplit);
    setWidget(trafficHost);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
        const QByteArray payload = index.data(TrafficModelRole::PayloadRole).toByteArray();
        const QJsonDocument doc = QJsonDocument::fromJson(payload);
        m_detail->setPlainText(
            doc.isNull() ? QString::fromUtf8(payload) : QString::fromUtf8(doc.toJson(QJsonDocument::Indented)));
    });
    connect(m_presentation, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_view->currentIndex().isValid())
            m_view->scrollToBottom();
    });
}

void TrafficDock::setLogLevelUnavailable(const QString& why)
{
    m_setLevel->setEnabled(why.isEmpty());
    m_logLevel->setEnabled(why.isEmpty());
    const QString tip = why.isEmpty() ? tr("Send logging/setLevel to the selected server") : why;
    m_setLevel->setToolTip(tip);
    m_logLevel->setToolTip(tip);
}

void TrafficDock::refreshServers()
{
    const QString current = m_server->currentData().toString();
    const QSignalBlocker blocker(m_server);
    m_server->clear();
    m_server->addItem(tr("All servers"), QString());
    if (Engine* engine = m_model->engine()) {
        for (const ServerConnection* c : engine->connections())
            m_server->addItem(c->name(), c->name());
    }
    const int index = m_server->findData(current);
    m_server->setCurrentIndex(index < 0 ? 0 : index);
    m_filter->setServer(m_server->currentData().toString());
}

QList<QByteArray> TrafficDock::messagesOf(const CallRecord& record) const
{
    QList<QByteArray> raw;
    QSet<QString> ids;
    for (const CallAttempt& a : record.attempts)
        ids.insert(a.requestId);
    for (int row = m_model->rowCount() - 1; row >= 0 && raw.size() < 20; --row) {
        const QModelIndex t = m_model->index(row, 0);
        if (t.data(TrafficModelRole::ServerRole).toString() != record.server)
            continue;
        if (ids.contains(t.data(TrafficModelRole::RpcIdRole).toString()))
            raw.prepend(t.data(TrafficModelRole::PayloadRole).toByteArray());
        if (t.data(TrafficModelRole::TimestampRole).toLongLong() < record.startedAt - 1000)
            break;
    }
    return raw;
}

} // namespace mcpscope
