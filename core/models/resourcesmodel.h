#pragma once

#include "engine/serverconnection.h"
#include "resourcesmodeldefs.h"
#include "session/clientsession.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QSet>

namespace mcpscope {

class Engine;

/// One notifications/resources/updated as it arrived.
struct ResourceUpdate
{
    qint64 receivedAt = 0; ///< ms since the epoch
    QJsonObject params; ///< the notification's params (uri, and whatever else the server sent)
};

/// The resources and resource templates of one server's current session: the resources first (in
/// listing order), then the templates. Every read goes through Engine::list / Engine::call, so each
/// has a call record.
///
/// With a connection set, both lists are read when a session becomes ready and again on
/// notifications/resources/list_changed; a new session starts empty. A re-list with the same rows
/// in the same order updates them in place (dataChanged), anything else is a model reset.
///
/// Signals: listed after each completed re-list (both lists); listFailed(text) when a list call did
/// not succeed, naming the method; resourceUpdated(uri) for each notifications/resources/updated;
/// subscriptionChanged(uri, subscribed) when subscribe/unsubscribe succeeded, subscriptionFailed(uri,
/// text) when not.
class ResourcesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit ResourcesModel(Engine* engine, QObject* parent = nullptr);
    ~ResourcesModel() override;

    /// Shows connection's resources; nullptr shows none.
    void setConnection(ServerConnection* connection);
    ServerConnection* connection() const { return m_connection; }

    ResourceKind kind(int row) const;
    QString uri(int row) const;
    const QJsonObject& entry(int row) const;
    /// The row of a resource (or template) by uri, or -1.
    int rowOf(const QString& uri, ResourceKind kind = ResourceKind::Resource) const;
    int resourceCount() const { return int(m_resources.size()); }
    int templateCount() const { return int(m_templates.size()); }

    /// The server declared capabilities.resources.subscribe.
    bool canSubscribe() const;
    bool isSubscribed(const QString& uri) const { return m_subscribed.contains(uri); }
    /// Every notifications/resources/updated for uri in this session, oldest first.
    QList<ResourceUpdate> history(const QString& uri) const { return m_history.value(uri); }

    /// resources/subscribe (or unsubscribe) through the engine.
    void subscribe(const QString& uri);
    void unsubscribe(const QString& uri);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

public Q_SLOTS:
    /// Lists resources and templates again (when the session is ready and declares resources).
    void refresh();

Q_SIGNALS:
    void listed();
    void listFailed(const QString& text);
    void resourceUpdated(const QString& uri);
    void subscriptionChanged(const QString& uri, bool subscribed);
    void subscriptionFailed(const QString& uri, const QString& text);

private:
    void watchSession(ClientSession* session);
    void onNotification(const JsonRpcMessage& message);
    void show(QList<QJsonObject> resources, QList<QJsonObject> templates);
    void clearAll();
    void setSubscription(const QString& uri, bool subscribe);

    Engine* m_engine;
    QPointer<ServerConnection> m_connection;
    QPointer<ClientSession> m_session;
    QList<QJsonObject> m_resources;
    QList<QJsonObject> m_templates;
    QSet<QString> m_subscribed;
    QSet<QString> m_resubscribe; ///< the subscriptions of the session before, sent again when the new one is ready
    QHash<QString, QList<ResourceUpdate>> m_history;
    /// Bumped by every refresh and every new session: a list answer for an older one is dropped.
    quint64 m_generation = 0;
};

} // namespace mcpscope
