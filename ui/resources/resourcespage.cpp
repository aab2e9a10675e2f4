#include "resourcespage.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "models/resourcesmodel.h"
#include "models/resourcesmodeldefs.h"
#include "session/clientsession.h"
#include "session/uritemplate.h"

#include <QComboBox>
#include <QCompleter>
#include <QDateTime>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStringListModel>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

namespace mcpscope {

namespace {

/// The Name column marks a subscribed resource (bold) and one with updates (● and the count).
class ResourceMarkerDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        // A count only where there is one: no column of zeros, none for a template.
        if (index.column() == ResourcesModelColumn::Updates && index.data().toInt() == 0)
            option->text.clear();
        if (index.column() != ResourcesModelColumn::Name)
            return;
        if (index.data(ResourcesModelRole::KindRole).toInt() == int(ResourceKind::Template))
            option->font.setItalic(true);
        if (index.data(ResourcesModelRole::SubscribedRole).toBool())
            option->font.setBold(true);
        if (index.data(ResourcesModelRole::UpdatesRole).toInt() > 0)
            option->text = QStringLiteral("● ") + option->text;
    }
};

QString failure(const CallRecord& record)
{
    const QString message = record.error.value(QLatin1String("message")).toString();
    return message.isEmpty() ? outcomeName(record.outcome)
                             : QStringLiteral("%1: %2").arg(outcomeName(record.outcome), message);
}

} // namespace

ResourcesPage::ResourcesPage(Engine* engine, std::function<ServerConnection*()> currentConnection, QWidget* parent)
    : QSplitter(Qt::Horizontal, parent)
    , m_engine(engine)
    , m_currentConnection(std::move(currentConnection))
    , m_model(new ResourcesModel(engine, this))
{
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_list = new QTreeView(left);
    m_list->setObjectName(QStringLiteral("resourcesView"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setModel(m_model);
    m_list->setItemDelegate(new ResourceMarkerDelegate(m_list));
    m_list->hideColumn(ResourcesModelColumn::Uri);
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(ResourcesModelColumn::Name, QHeaderView::Stretch);
    m_list->header()->setSectionResizeMode(ResourcesModelColumn::MimeType, QHeaderView::ResizeToContents);
    m_list->header()->setSectionResizeMode(ResourcesModelColumn::Updates, QHeaderView::ResizeToContents);
    auto* refreshButton = new QPushButton(tr("Refresh"), left);
    refreshButton->setObjectName(QStringLiteral("refreshResources"));
    leftLayout->addWidget(m_list);
    leftLayout->addWidget(refreshButton);
    connect(refreshButton, &QPushButton::clicked, this, &ResourcesPage::refresh);

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    m_title = new QLabel(right);
    m_title->setObjectName(QStringLiteral("resourceTitle"));
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_formArea = new QWidget(right);
    m_form = new QFormLayout(m_formArea);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_expanded = new QLabel(right);
    m_expanded->setObjectName(QStringLiteral("expandedUri"));
    m_expanded->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QHBoxLayout;
    m_read = new QPushButton(tr("Read"), right);
    m_read->setObjectName(QStringLiteral("readResource"));
    m_read->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_subscribe = new QPushButton(tr("Subscribe"), right);
    m_subscribe->setObjectName(QStringLiteral("subscribeResource"));
    m_contentsPicker = new QComboBox(right);
    m_contentsPicker->setObjectName(QStringLiteral("contentsPicker"));
    buttons->addWidget(m_read);
    buttons->addWidget(m_subscribe);
    buttons->addWidget(m_contentsPicker);
    buttons->addStretch(1);
    m_content = new ResourceContentView(right);
    m_content->setObjectName(QStringLiteral("resourceContent"));
    m_historyLabel = new QLabel(right);
    m_history = new QListWidget(right);
    m_history->setObjectName(QStringLiteral("updateHistory"));
    m_history->setMaximumHeight(90);
    rightLayout->addWidget(m_title);
    rightLayout->addWidget(m_formArea);
    rightLayout->addWidget(m_expanded);
    rightLayout->addLayout(buttons);
    rightLayout->addWidget(m_content, 1);
    rightLayout->addWidget(m_historyLabel);
    rightLayout->addWidget(m_history);
    setStretchFactor(0, 1);
    setStretchFactor(1, 2);
    setSizes({ 440, 560 });

    connect(m_read, &QPushButton::clicked, this, &ResourcesPage::read);
    connect(m_subscribe, &QPushButton::clicked, this, &ResourcesPage::toggleSubscription);
    connect(m_contentsPicker, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && index < m_contents.size())
            m_content->showContent(m_contents.at(index).toObject());
    });
    connect(m_content, &ResourceContentView::statusMessage, this, &ResourcesPage::statusMessage);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ResourcesPage::select);
    // A re-list that changed the rows is a reset: the selection comes back by URI.
    connect(m_model, &ResourcesModel::listed, this, [this] {
        if (!m_selected.isEmpty()) {
            const int row
                = m_model->rowOf(m_selected, m_selectedTemplate ? ResourceKind::Template : ResourceKind::Resource);
            if (row >= 0 && m_list->currentIndex().row() != row) {
                const QSignalBlocker blocker(m_list->selectionModel());
                m_list->setCurrentIndex(m_model->index(row, 0));
            }
        }
        Q_EMIT resourcesListed(m_model->resourceCount(), m_model->templateCount());
    });
    connect(m_model, &ResourcesModel::listFailed, this, [this](const QString& text) {
        Q_EMIT statusMessage(tr("Server '%1': %2").arg(m_connection ? m_connection->name() : QString(), text));
    });
    connect(m_model, &ResourcesModel::resourceUpdated, this, [this](const QString& uri) {
        if (uri == m_uri)
            updateHistory();
    });
    connect(m_model, &ResourcesModel::subscriptionChanged, this, [this] { updateSubscription(); });
    connect(m_model, &ResourcesModel::subscriptionFailed, this, [this](const QString& uri, const QString& text) {
        updateSubscription();
        Q_EMIT statusMessage(tr("Server '%1', %2: %3").arg(m_connection ? m_connection->name() : QString(), uri, text));
    });
    showEntry({}, false);
}

void ResourcesPage::showConnection(ServerConnection* connection)
{
    if (connection == m_connection)
        return;
    if (m_connection)
        m_connection->disconnect(this);
    m_connection = connection;
    m_selected.clear();
    showEntry({}, false);
    if (connection)
        connect(connection, &ServerConnection::ready, this, [this] {
            if (m_selected.isEmpty())
                showEntry({}, false);
        });
    // Listed when the page is on screen: a server is not sent resources/list for a tab nobody looks at.
    if (isVisible() || !connection)
        attachModel();
}

void ResourcesPage::attachModel()
{
    if (m_model->connection() != m_connection || !m_connection)
        m_model->setConnection(m_connection);
}

void ResourcesPage::showEvent(QShowEvent* event)
{
    QSplitter::showEvent(event);
    attachModel();
}

void ResourcesPage::refresh()
{
    if (!m_currentConnection()) {
        Q_EMIT statusMessage(tr("Select a server first."));
        return;
    }
    attachModel();
    m_model->refresh();
}

void ResourcesPage::select(const QModelIndex& index)
{
    if (!index.isValid()) {
        showEntry({}, false);
        return;
    }
    const bool isTemplate = index.data(ResourcesModelRole::KindRole).toInt() == int(ResourceKind::Template);
    showEntry(index.data(ResourcesModelRole::RawRole).toJsonObject(), isTemplate);
    if (!isTemplate)
        read();
}

void ResourcesPage::showEntry(const QJsonObject& entry, bool isTemplate)
{
    ++m_generation;
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_fields.clear();
    m_suggestions.clear();
    m_contents = {};
    m_contentsPicker->hide();
    m_selectedTemplate = isTemplate;
    m_selected = entry.value(isTemplate ? QLatin1String("uriTemplate") : QLatin1String("uri")).toString();
    m_uri = isTemplate ? QString() : m_selected;
    m_content->clear();
    m_formArea->setVisible(isTemplate);
    m_expanded->setVisible(isTemplate);
    m_read->setEnabled(!m_selected.isEmpty());
    if (m_selected.isEmpty()) {
        const ClientSession* session = m_connection ? m_connection->session() : nullptr;
        if (!m_connection)
            m_title->setText(tr("Select a server to see its resources."));
        else if (session && session->isReady() && !session->details().capabilities.contains(QLatin1String("resources")))
            m_title->setText(tr("Server '%1' does not declare the resources capability.").arg(m_connection->name()));
        else
            m_title->setText(tr("Select a resource or a template."));
        updateSubscription();
        updateHistory();
        return;
    }
    const QString name = entry.value(QLatin1String("title")).toString(entry.value(QLatin1String("name")).toString());
    const QString mime = entry.value(QLatin1String("mimeType")).toString();
    m_title->setText(
        QStringLiteral("<b>%1</b>%2<br><code>%3</code>%4")
            .arg(name.toHtmlEscaped(), isTemplate ? tr(" (template)") : QString(), m_selected.toHtmlEscaped(),
                (mime.isEmpty() ? QString() : QStringLiteral(" · ") + mime.toHtmlEscaped()) + QStringLiteral("<br>")
                    + entry.value(QLatin1String("description")).toString().toHtmlEscaped()));
    if (isTemplate) {
        for (const QString& variable : UriTemplate::variables(m_selected)) {
            auto* field = new QLineEdit(m_formArea);
            field->setObjectName(QStringLiteral("templateVar_") + variable);
            auto* suggestions = new QStringListModel(field);
            auto* completer = new QCompleter(suggestions, field);
            completer->setCaseSensitivity(Qt::CaseInsensitive);
            field->setCompleter(completer);
            connect(field, &QLineEdit::textEdited, this, [this, variable] { requestCompletion(variable); });
            connect(field, &QLineEdit::textChanged, this, [this] {
                m_uri = expandedUri();
                m_expanded->setText(tr("URI: %1").arg(m_uri));
                updateSubscription();
                updateHistory();
            });
            m_form->addRow(variable, field);
            m_fields.insert(variable, field);
            m_suggestions.insert(variable, suggestions);
        }
        m_uri = expandedUri();
        m_expanded->setText(tr("URI: %1").arg(m_uri));
    }
    updateSubscription();
    updateHistory();
}

QString ResourcesPage::expandedUri() const
{
    if (!m_selectedTemplate)
        return m_uri;
    QVariantMap values;
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it) {
        if (!it.value()->text().isEmpty())
            values.insert(it.key(), it.value()->text());
    }
    return UriTemplate::expand(m_selected, values);
}

void ResourcesPage::openUri(const QString& uri)
{
    attachModel();
    const int row = m_model->rowOf(uri);
    const int templateRow = row >= 0 ? -1 : m_model->rowOf(uri, ResourceKind::Template);
    if (row >= 0 || templateRow >= 0) {
        const QModelIndex index = m_model->index(row >= 0 ? row : templateRow, 0);
        if (m_list->currentIndex().isValid() && m_list->currentIndex().row() == index.row())
            select(index);
        else
            m_list->setCurrentIndex(index);
        return;
    }
    // Not listed (a template's expansion, a session resource not yet re-listed): read all the same.
    {
        const QSignalBlocker blocker(m_list->selectionModel());
        m_list->clearSelection();
        m_list->setCurrentIndex({});
    }
    showEntry({ { QStringLiteral("uri"), uri }, { QStringLiteral("name"), uri.section(QLatin1Char('/'), -1) } }, false);
    read();
}

void ResourcesPage::read()
{
    ServerConnection* c = m_currentConnection();
    if (!c) {
        Q_EMIT statusMessage(tr("Select a server first."));
        return;
    }
    const QString uri = m_selectedTemplate ? expandedUri() : m_uri;
    if (uri.isEmpty()) {
        Q_EMIT statusMessage(tr("Select a resource first."));
        return;
    }
    m_uri = uri;
    readUri(uri);
}

void ResourcesPage::readUri(const QString& uri)
{
    const QString server = m_currentConnection()->name();
    const quint64 generation = m_generation;
    m_content->showMessage(tr("Reading %1 from %2…").arg(uri, server));
    updateSubscription();
    updateHistory();
    QPointer<ResourcesPage> self(this);
    m_engine->call(server, QStringLiteral("resources/read"), { { QStringLiteral("uri"), uri } }, {},
        [self, generation, server, uri](const CallRecord& record) {
            if (!self || generation != self->m_generation || uri != self->m_uri)
                return;
            if (record.outcome != CallOutcome::Success) {
                const QString text
                    = self->tr("Reading %1 from server '%2' failed (%3).").arg(uri, server, failure(record));
                self->m_content->showMessage(text);
                Q_EMIT self->statusMessage(text);
                Q_EMIT self->resourceShown(uri);
                return;
            }
            self->showContents(uri, record.result.toObject().value(QLatin1String("contents")).toArray());
        });
}

void ResourcesPage::showContents(const QString& uri, const QJsonArray& contents)
{
    m_contents = contents;
    {
        const QSignalBlocker blocker(m_contentsPicker);
        m_contentsPicker->clear();
        for (int i = 0; i < contents.size(); ++i) {
            const QJsonObject content = contents.at(i).toObject();
            m_contentsPicker->addItem(
                tr("%1 of %2: %3").arg(i + 1).arg(contents.size()).arg(content.value(QLatin1String("uri")).toString()));
        }
    }
    m_contentsPicker->setVisible(contents.size() > 1);
    if (contents.isEmpty())
        m_content->showMessage(tr("%1 has no contents.").arg(uri));
    else
        m_content->showContent(contents.first().toObject());
    Q_EMIT resourceShown(uri);
}

void ResourcesPage::requestCompletion(const QString& variable)
{
    ServerConnection* c = m_currentConnection();
    QLineEdit* field = m_fields.value(variable);
    if (!c || !field || !m_selectedTemplate)
        return;
    QJsonObject context;
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it) {
        if (it.key() != variable && !it.value()->text().isEmpty())
            context.insert(it.key(), it.value()->text());
    }
    QJsonObject params { { QStringLiteral("ref"),
                             QJsonObject { { QStringLiteral("type"), QStringLiteral("ref/resource") },
                                 { QStringLiteral("uri"), m_selected } } },
        { QStringLiteral("argument"),
            QJsonObject { { QStringLiteral("name"), variable }, { QStringLiteral("value"), field->text() } } } };
    if (!context.isEmpty())
        params.insert(QStringLiteral("context"), QJsonObject { { QStringLiteral("arguments"), context } });
    const quint64 generation = m_generation;
    const quint64 request = ++m_completionGeneration[variable];
    QPointer<ResourcesPage> self(this);
    m_engine->call(c->name(), QStringLiteral("completion/complete"), params, {},
        [self, generation, request, variable](const CallRecord& record) {
            if (!self || generation != self->m_generation || request != self->m_completionGeneration.value(variable))
                return;
            QLineEdit* field = self->m_fields.value(variable);
            QStringListModel* suggestions = self->m_suggestions.value(variable);
            if (!field || !suggestions || record.outcome != CallOutcome::Success)
                return;
            QStringList values;
            const QJsonArray listed = record.result.toObject()
                                          .value(QLatin1String("completion"))
                                          .toObject()
                                          .value(QLatin1String("values"))
                                          .toArray();
            for (const QJsonValue& value : listed)
                values.append(value.toString());
            suggestions->setStringList(values);
            if (!values.isEmpty() && field->hasFocus())
                field->completer()->complete();
            Q_EMIT self->completionsShown(variable, values);
        });
}

void ResourcesPage::toggleSubscription()
{
    if (m_uri.isEmpty() || !m_model->canSubscribe())
        return;
    m_subscribe->setEnabled(false);
    if (m_model->isSubscribed(m_uri))
        m_model->unsubscribe(m_uri);
    else
        m_model->subscribe(m_uri);
}

void ResourcesPage::updateSubscription()
{
    const bool can = m_model->canSubscribe();
    const bool subscribed = !m_uri.isEmpty() && m_model->isSubscribed(m_uri);
    m_subscribe->setText(subscribed ? tr("Unsubscribe") : tr("Subscribe"));
    m_subscribe->setEnabled(can && !m_uri.isEmpty());
    m_subscribe->setToolTip(can ? tr("resources/subscribe: the server sends notifications/resources/updated")
                                : tr("The server does not declare resources.subscribe."));
}

void ResourcesPage::updateHistory()
{
    const QList<ResourceUpdate> updates = m_uri.isEmpty() ? QList<ResourceUpdate>() : m_model->history(m_uri);
    m_history->clear();
    for (const ResourceUpdate& update : updates)
        m_history->addItem(tr("%1  notifications/resources/updated")
                               .arg(QDateTime::fromMSecsSinceEpoch(update.receivedAt)
                                        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz"))));
    m_history->scrollToBottom();
    const bool subscribed = !m_uri.isEmpty() && m_model->isSubscribed(m_uri);
    m_historyLabel->setText(updates.isEmpty() ? tr("No updates received for this resource.")
                                              : tr("Updates received: %1").arg(updates.size()));
    m_historyLabel->setVisible(!m_uri.isEmpty() && (subscribed || !updates.isEmpty()));
    m_history->setVisible(!updates.isEmpty());
}

} // namespace mcpscope
