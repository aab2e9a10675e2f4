#include "resourcesmodel.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "session/clientsession.h"

#include <QJsonArray>

#include <memory>
#include <utility>

namespace mcpscope {

namespace {

QList<QJsonObject> objectsOf(const QJsonValue& value)
{
    QList<QJsonObject> out;
    const QJsonArray array = value.toArray();
    out.reserve(array.size());
    for (const QJsonValue& item : array)
        out.append(item.toObject());
    return out;
}

QString uriOf(const QJsonObject& entry, ResourceKind kind)
{
    return entry.value(kind == ResourceKind::Resource ? QLatin1String("uri") : QLatin1String("uriTemplate")).toString();
}

QString failureText(const QString& method, const CallRecord& record)
{
    return ResourcesModel::tr("%1 failed (%2): %3")
        .arg(method, outcomeName(record.outcome), record.error.value(QLatin1String("message")).toString());
}

} // namespace

ResourcesModel::ResourcesModel(Engine* engine, QObject* parent)
    : QAbstractTableModel(parent)
    , m_engine(engine)
{ }

ResourcesModel::~ResourcesModel() = default;

void ResourcesModel::setConnection(ServerConnection* connection)
{
    if (m_connection)
        m_connection->disconnect(this);
    if (m_session)
        m_session->disconnect(this);
    m_connection = connection;
    m_session = nullptr;
    m_resubscribe.clear();
    clearAll();
    if (!connection)
        return;
    connect(connection, &ServerConnection::sessionCreated, this, [this](ClientSession* session) {
        // A new session (a heal, a reconnect) knows none of the old one's subscriptions: they are sent again
        // once it is ready, and the updates seen so far stay in the history.
        const QSet<QString> subscribed = m_subscribed;
        const auto history = m_history;
        clearAll();
        m_resubscribe.unite(subscribed);
        m_history = history;
        watchSession(session);
    });
    connect(connection, &ServerConnection::ready, this, [this] {
        refresh();
        const QSet<QString> resubscribe = std::exchange(m_resubscribe, {});
        if (canSubscribe()) {
            for (const QString& uri : resubscribe)
                subscribe(uri);
        }
    });
    connect(connection, &QObject::destroyed, this, &ResourcesModel::clearAll);
    watchSession(connection->session());
    refresh();
}

void ResourcesModel::watchSession(ClientSession* session)
{
    if (m_session)
        m_session->disconnect(this);
    m_session = session;
    if (session)
        connect(session, &ClientSession::notificationReceived, this, &ResourcesModel::onNotification);
}

void ResourcesModel::clearAll()
{
    ++m_generation;
    m_subscribed.clear();
    m_history.clear();
    if (m_resources.isEmpty() && m_templates.isEmpty())
        return;
    beginResetModel();
    m_resources.clear();
    m_templates.clear();
    endResetModel();
}

bool ResourcesModel::canSubscribe() const
{
    const ClientSession* session = m_connection ? m_connection->session() : nullptr;
    return session
        && session->details()
               .capabilities.value(QLatin1String("resources"))
               .toObject()
               .value(QLatin1String("subscribe"))
               .toBool();
}

void ResourcesModel::refresh()
{
    const ClientSession* session = m_connection ? m_connection->session() : nullptr;
    if (!session || !session->isReady() || !session->details().capabilities.contains(QLatin1String("resources")))
        return;
    const quint64 generation = ++m_generation;
    const QString server = m_connection->name();
    // Both lists land together: one reset (or one dataChanged) for the pair, never half a listing.
    struct Pending
    {
        QList<QJsonObject> resources;
        QList<QJsonObject> templates;
        int left = 2;
    };
    auto pending = std::make_shared<Pending>();
    QPointer<ResourcesModel> self(this);
    auto finish = [self, generation, pending] {
        if (!self || generation != self->m_generation || --pending->left > 0)
            return;
        self->show(std::move(pending->resources), std::move(pending->templates));
        Q_EMIT self->listed();
    };
    m_engine->list(server, QStringLiteral("resources/list"), QStringLiteral("resources"), {},
        [self, pending, finish](const CallRecord& record) {
            if (record.outcome == CallOutcome::Success)
                pending->resources = objectsOf(record.result.toObject().value(QLatin1String("resources")));
            else if (self)
                Q_EMIT self->listFailed(failureText(QStringLiteral("resources/list"), record));
            finish();
        });
    m_engine->list(server, QStringLiteral("resources/templates/list"), QStringLiteral("resourceTemplates"), {},
        [self, pending, finish](const CallRecord& record) {
            if (record.outcome == CallOutcome::Success)
                pending->templates = objectsOf(record.result.toObject().value(QLatin1String("resourceTemplates")));
            else if (self)
                Q_EMIT self->listFailed(failureText(QStringLiteral("resources/templates/list"), record));
            finish();
        });
}

void ResourcesModel::show(QList<QJsonObject> resources, QList<QJsonObject> templates)
{
    bool same = resources.size() == m_resources.size() && templates.size() == m_templates.size();
    for (qsizetype i = 0; same && i < resources.size(); ++i)
        same = uriOf(resources.at(i), ResourceKind::Resource) == uriOf(m_resources.at(i), ResourceKind::Resource);
    for (qsizetype i = 0; same && i < templates.size(); ++i)
        same = uriOf(templates.at(i), ResourceKind::Template) == uriOf(m_templates.at(i), ResourceKind::Template);
    if (!same) {
        beginResetModel();
        m_resources = std::move(resources);
        m_templates = std::move(templates);
        endResetModel();
        return;
    }
    m_resources = std::move(resources);
    m_templates = std::move(templates);
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ResourcesModelColumn::Count - 1));
}

void ResourcesModel::onNotification(const JsonRpcMessage& message)
{
    if (message.method == QLatin1String("notifications/resources/list_changed")) {
        refresh();
    } else if (message.method == QLatin1String("notifications/resources/updated")) {
        const QString uri = message.params.value(QLatin1String("uri")).toString();
        m_history[uri].append(ResourceUpdate { QDateTime::currentMSecsSinceEpoch(), message.params });
        const int row = rowOf(uri);
        if (row >= 0)
            Q_EMIT dataChanged(index(row, 0), index(row, ResourcesModelColumn::Count - 1));
        Q_EMIT resourceUpdated(uri);
    }
}

void ResourcesModel::subscribe(const QString& uri)
{
    setSubscription(uri, true);
}

void ResourcesModel::unsubscribe(const QString& uri)
{
    setSubscription(uri, false);
}

void ResourcesModel::setSubscription(const QString& uri, bool subscribe)
{
    if (!m_connection)
        return;
    const QString method = subscribe ? QStringLiteral("resources/subscribe") : QStringLiteral("resources/unsubscribe");
    QPointer<ResourcesModel> self(this);
    m_engine->call(m_connection->name(), method, { { QStringLiteral("uri"), uri } }, {},
        [self, uri, subscribe, method](const CallRecord& record) {
            if (!self)
                return;
            if (record.outcome != CallOutcome::Success) {
                Q_EMIT self->subscriptionFailed(uri, failureText(method, record));
                return;
            }
            // A list refresh of the same session keeps it; a new session sends it again when it is ready.
            if (subscribe)
                self->m_subscribed.insert(uri);
            else
                self->m_subscribed.remove(uri);
            const int row = self->rowOf(uri);
            if (row >= 0)
                Q_EMIT self->dataChanged(self->index(row, 0), self->index(row, ResourcesModelColumn::Count - 1));
            Q_EMIT self->subscriptionChanged(uri, subscribe);
        });
}

ResourceKind ResourcesModel::kind(int row) const
{
    return row < m_resources.size() ? ResourceKind::Resource : ResourceKind::Template;
}

const QJsonObject& ResourcesModel::entry(int row) const
{
    return row < m_resources.size() ? m_resources.at(row) : m_templates.at(row - m_resources.size());
}

QString ResourcesModel::uri(int row) const
{
    return uriOf(entry(row), kind(row));
}

int ResourcesModel::rowOf(const QString& uri, ResourceKind kind) const
{
    const QList<QJsonObject>& list = kind == ResourceKind::Resource ? m_resources : m_templates;
    const int offset = kind == ResourceKind::Resource ? 0 : int(m_resources.size());
    for (int i = 0; i < list.size(); ++i) {
        if (uriOf(list.at(i), kind) == uri)
            return offset + i;
    }
    return -1;
}

int ResourcesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_resources.size() + m_templates.size());
}

int ResourcesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ResourcesModelColumn::Count;
}

QVariant ResourcesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ResourcesModelColumn::Name:
        return tr("Name");
    case ResourcesModelColumn::Uri:
        return tr("URI");
    case ResourcesModelColumn::MimeType:
        return tr("MIME type");
    case ResourcesModelColumn::Updates:
        return tr("Updates");
    default:
        return {};
    }
}

QVariant ResourcesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const QJsonObject& item = entry(row);
    const QString itemUri = uri(row);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case ResourcesModelColumn::Name:
            return item.value(QLatin1String("name")).toString();
        case ResourcesModelColumn::Uri:
            return itemUri;
        case ResourcesModelColumn::MimeType:
            return item.value(QLatin1String("mimeType")).toString();
        case ResourcesModelColumn::Updates:
            return int(m_history.value(itemUri).size());
        default:
            return {};
        }
    case ResourcesModelRole::KindRole:
        return int(kind(row));
    case ResourcesModelRole::UriRole:
        return itemUri;
    case ResourcesModelRole::RawRole:
        return item;
    case ResourcesModelRole::SubscribedRole:
        return m_subscribed.contains(itemUri);
    case ResourcesModelRole::UpdatesRole:
        return int(m_history.value(itemUri).size());
    case ResourcesModelRole::DescriptionRole:
        return item.value(QLatin1String("description")).toString();
    default:
        return {};
    }
}

} // namespace mcpscope
