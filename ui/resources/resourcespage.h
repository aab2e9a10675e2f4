#pragma once

#include "resources/resourcecontentview.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>
#include <QSplitter>

#include <functional>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStringListModel;
class QTreeView;

namespace mcpscope {

class Engine;
class ResourcesModel;
class ServerConnection;

/// The Resources tab: the selected server's resources and resource templates (ResourcesModel: paged
/// resources/list and resources/templates/list, re-listed on list_changed with the selection kept), the
/// selected one read and rendered by type (ResourceContentView), a template's variables as fields with
/// completion/complete (ref/resource) suggestions, expanded with RFC 6570 and read, and Subscribe /
/// Unsubscribe with the history of notifications/resources/updated for each URI. Every request goes
/// through Engine, so each has a call record. Listed when the tab is first on screen.
///
/// Signals: statusMessage(text) when a request cannot start or fails, naming the server; resourceShown
/// after a read was rendered (or failed: kind Message); completionsShown(variable, values).
class ResourcesPage : public QSplitter
{
    Q_OBJECT
public:
    ResourcesPage(Engine* engine, std::function<ServerConnection*()> currentConnection, QWidget* parent = nullptr);

    /// Follows the selected server; its resources are listed when the page is (or next comes) on screen.
    void showConnection(ServerConnection* connection);
    void refresh();
    /// Selects the resource listed with uri (or a template by its uriTemplate) and reads a resource; a
    /// URI that is not listed (a resource link to a template's expansion) is read all the same.
    void openUri(const QString& uri);
    /// Reads the selected resource, or the selected template expanded with the form's values.
    void read();
    void requestCompletion(const QString& variable);
    /// Subscribes to the selected resource, or unsubscribes when it is subscribed.
    void toggleSubscription();

    ResourcesModel* model() const { return m_model; }
    QTreeView* resourcesView() const { return m_list; }
    ResourceContentView* contentView() const { return m_content; }
    QLineEdit* variableField(const QString& name) const { return m_fields.value(name); }
    QPushButton* subscribeButton() const { return m_subscribe; }
    QListWidget* historyView() const { return m_history; }
    /// The URI shown (a resource's, or a template's expansion), empty when none.
    QString currentUri() const { return m_uri; }
    /// The URI or template selected in the list, empty when none.
    QString selectedUri() const { return m_selected; }
    /// The template's expansion with the form's values.
    QString expandedUri() const;

Q_SIGNALS:
    void statusMessage(const QString& text);
    void resourcesListed(int resources, int templates);
    void resourceShown(const QString& uri);
    void completionsShown(const QString& variable, const QStringList& values);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void select(const QModelIndex& index);
    void showEntry(const QJsonObject& entry, bool isTemplate);
    void readUri(const QString& uri);
    void showContents(const QString& uri, const QJsonArray& contents);
    void updateSubscription();
    void updateHistory();
    void attachModel();

    Engine* m_engine;
    std::function<ServerConnection*()> m_currentConnection;
    ResourcesModel* m_model = nullptr;
    QTreeView* m_list = nullptr;
    QLabel* m_title = nullptr;
    QWidget* m_formArea = nullptr;
    QFormLayout* m_form = nullptr;
    QLabel* m_expanded = nullptr;
    QPushButton* m_read = nullptr;
    QPushButton* m_subscribe = nullptr;
    QComboBox* m_contentsPicker = nullptr;
    ResourceContentView* m_content = nullptr;
    QLabel* m_historyLabel = nullptr;
    QListWidget* m_history = nullptr;
    QHash<QString, QLineEdit*> m_fields;
    QHash<QString, QStringListModel*> m_suggestions;
    QHash<QString, quint64> m_completionGeneration;
    QJsonArray m_contents; ///< the last read's contents
    QString m_selected; ///< uri or uriTemplate selected in the list
    bool m_selectedTemplate = false;
    QString m_uri; ///< the URI read (or to be read)
    QPointer<ServerConnection> m_connection;
    /// Bumped on each selection: a late read or completion for an older one is dropped.
    quint64 m_generation = 0;
};

} // namespace mcpscope
