#include "serverrequestsdock.h"

#include "engine/serverrequestqueue.h"
#include "requests/samplingeditor.h"

#include <QDateTime>
#include <QDesktopServices>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace mcpscope {

namespace {

constexpr int IdRole = Qt::UserRole + 1;

QString kindName(const PendingServerRequest& request)
{
    switch (request.kind()) {
    case PendingServerRequest::Kind::Sampling:
        return QObject::tr("Sampling");
    case PendingServerRequest::Kind::ElicitationForm:
        return QObject::tr("Elicitation (form)");
    case PendingServerRequest::Kind::ElicitationUrl:
        return request.fromError ? QObject::tr("URL required (-32042)") : QObject::tr("Elicitation (URL)");
    }
    return request.method;
}

} // namespace

ServerRequestsDock::ServerRequestsDock(ServerRequestQueue* queue, QWidget* parent)
    : QDockWidget(tr("Server Requests"), parent)
    , m_queue(queue)
    , m_opener([](const QUrl& url) { return QDesktopServices::openUrl(url); })
{
    setObjectName(QStringLiteral("serverRequestsDock"));
    auto* body = new QWidget(this);
    auto* layout = new QVBoxLayout(body);
    m_count = new QLabel(body);
    m_count->setObjectName(QStringLiteral("serverRequestCount"));
    layout->addWidget(m_count);

    auto* splitter = new QSplitter(Qt::Vertical, body);
    m_list = new QListWidget(splitter);
    m_list->setObjectName(QStringLiteral("serverRequestList"));
    // A few rows are enough for the queue; the room goes to the request being answered.
    m_list->setMinimumHeight(m_list->fontMetrics().height() * 2);
    m_list->setMaximumHeight(m_list->fontMetrics().height() * 6);
    splitter->addWidget(m_list);

    auto* detail = new QWidget(splitter);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    m_origin = new QLabel(detail);
    m_origin->setObjectName(QStringLiteral("serverRequestOrigin"));
    m_origin->setWordWrap(true);
    detailLayout->addWidget(m_origin);
    // Every editor scrolls as a whole: a long form or a URL with its consent step always fits.
    m_scroll = new QScrollArea(detail);
    m_scroll->setObjectName(QStringLiteral("serverRequestScroll"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_editors = new QStackedWidget(m_scroll);
    m_empty = new QLabel(tr("Nothing waiting.\n\nWhen a server asks for sampling (an LLM reply) or elicitation "
                            "(input from you), the request appears here to be answered, and the call that "
                            "caused it shows each request and answer in its timeline."),
        m_editors);
    m_empty->setObjectName(QStringLiteral("serverRequestsEmpty"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_editors->addWidget(m_empty);
    m_scroll->setWidget(m_editors);
    detailLayout->addWidget(m_scroll, 1);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 4);
    layout->addWidget(splitter, 1);
    setWidget(body);

    connect(m_list, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        const quint64 id = item ? item->data(IdRole).toULongLong() : 0;
        const PendingServerRequest* request = m_queue->find(id);
        QWidget* editor = m_editorOf.value(id);
        m_editors->setCurrentWidget(editor ? editor : m_empty);
        if (!request) {
            m_origin->clear();
            return;
        }
        QString origin = tr("From <b>%1</b>").arg(request->origin.server.toHtmlEscaped());
        if (!request->origin.callIds.isEmpty())
            origin += tr(", during call %1").arg(request->origin.callIds.join(QStringLiteral(", ")).toHtmlEscaped());
        origin += tr(", at %1").arg(
            QDateTime::fromMSecsSinceEpoch(request->receivedAtMs).toString(QStringLiteral("HH:mm:ss")));
        m_origin->setText(origin);
    });
    connect(m_queue, &ServerRequestQueue::added, this, &ServerRequestsDock::onAdded);
    connect(m_queue, &ServerRequestQueue::changed, this, &ServerRequestsDock::onChanged);
    connect(m_queue, &ServerRequestQueue::removed, this, &ServerRequestsDock::onRemoved);
    connect(m_queue, &ServerRequestQueue::answeredAutomatically, this,
        [this](const QString& server, const QString& method) {
            Q_EMIT statusMessage(tr("Answered %1 from %2 with its canned reply.").arg(method, server));
        });
    for (const PendingServerRequest& request : m_queue->pending())
        onAdded(request.id);
    updateCount();
}

QListWidgetItem* ServerRequestsDock::itemOf(quint64 id) const
{
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(IdRole).toULongLong() == id)
            return m_list->item(i);
    return nullptr;
}

quint64 ServerRequestsDock::currentRequest() const
{
    const QListWidgetItem* item = m_list->currentItem();
    return item ? item->data(IdRole).toULongLong() : 0;
}

QWidget* ServerRequestsDock::currentEditor() const
{
    return m_editorOf.value(currentRequest());
}

void ServerRequestsDock::showRequest(quint64 id)
{
    if (QListWidgetItem* item = itemOf(id))
        m_list->setCurrentItem(item);
}

void ServerRequestsDock::updateItem(QListWidgetItem* item, const PendingServerRequest& request)
{
    QString text = tr("%1 · %2").arg(request.origin.server, kindName(request));
    if (request.state == PendingServerRequest::State::AwaitingCompletion)
        text += tr(" · awaiting completion");
    item->setText(text);
    QFont font = item->font();
    font.setBold(request.state == PendingServerRequest::State::Waiting);
    item->setFont(font);
}

void ServerRequestsDock::updateCount()
{
    const int waiting = m_queue->waitingCount();
    m_count->setText(
        waiting == 0 ? tr("No request waiting for you.") : tr("%n request(s) waiting for you.", nullptr, waiting));
    setWindowTitle(waiting == 0 ? tr("Server Requests") : tr("Server Requests (%1)").arg(waiting));
}

QWidget* ServerRequestsDock::createEditor(const PendingServerRequest& request)
{
    const quint64 id = request.id;
    if (request.kind() == PendingServerRequest::Kind::Sampling) {
        auto* editor = new SamplingEditor(request.params, m_editors);
        connect(editor, &SamplingEditor::approved, this, [this, id](const QJsonObject& result) {
            m_queue->answer(id, result);
            Q_EMIT statusMessage(tr("Sampling reply sent."));
        });
        connect(editor, &SamplingEditor::rejected, this, [this, id] {
            m_queue->reject(id, ServerRequestQueue::userRejected());
            Q_EMIT statusMessage(tr("Sampling request rejected."));
        });
        return editor;
    }
    auto* editor = new ElicitationEditor(request.params, request.fromError, m_opener, m_editors);
    connect(editor, &ElicitationEditor::answered, this, [this, id](const QJsonObject& result) {
        m_queue->answer(id, result);
        Q_EMIT statusMessage(tr("Elicitation answered \"%1\".").arg(result.value(QLatin1String("action")).toString()));
    });
    connect(editor, &ElicitationEditor::dismissed, this, [this, id] { m_queue->dismiss(id); });
    return editor;
}

void ServerRequestsDock::onAdded(quint64 id)
{
    const PendingServerRequest* request = m_queue->find(id);
    if (!request || itemOf(id))
        return;
    QWidget* editor = createEditor(*request);
    m_editors->addWidget(editor);
    m_editorOf.insert(id, editor);
    auto* item = new QListWidgetItem(m_list);
    item->setData(IdRole, id);
    updateItem(item, *request);
    updateCount();
    // The newest request comes forward unless the user is in the middle of another one.
    if (!m_queue->find(currentRequest()))
        m_list->setCurrentItem(item);
    show();
    raise();
    Q_EMIT statusMessage(tr("%1 asks for %2: answer it in the Server Requests panel.")
                             .arg(request->origin.server, kindName(*request).toLower()));
}

void ServerRequestsDock::onChanged(quint64 id)
{
    const PendingServerRequest* request = m_queue->find(id);
    if (QListWidgetItem* item = itemOf(id); item && request)
        updateItem(item, *request);
    if (auto* editor = qobject_cast<ElicitationEditor*>(m_editorOf.value(id)))
        editor->showAwaitingCompletion();
    updateCount();
}

void ServerRequestsDock::onRemoved(quint64 id, const QString& why)
{
    if (QWidget* editor = m_editorOf.take(id)) {
        m_editors->removeWidget(editor);
        editor->deleteLater();
    }
    delete itemOf(id);
    if (!m_list->currentItem() && m_list->count() > 0)
        m_list->setCurrentRow(0);
    if (m_list->count() == 0) {
        m_editors->setCurrentWidget(m_empty);
        m_origin->clear();
    }
    updateCount();
    if (!why.isEmpty())
        Q_EMIT statusMessage(tr("A server request left the queue: %1.").arg(why));
}

} // namespace mcpscope
