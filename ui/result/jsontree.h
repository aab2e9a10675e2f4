#pragma once

#include <QAbstractItemModel>
#include <QJsonValue>

#include <memory>
#include <vector>

namespace mcpscope {

/// A read-only tree over a JSON value: key, value (scalars) and type columns. The node tree is
/// built by buildJsonTree(), which is safe to run on a worker thread; setRoot() adopts it on the
/// GUI thread, so a 20 MB result never blocks the window while it is parsed.
struct JsonNode
{
    QString key;
    QString value; ///< the scalar as JSON text, or "{n}" / "[n]" for containers
    QString type;
    JsonNode* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<JsonNode>> children;
};

std::unique_ptr<JsonNode> buildJsonTree(const QJsonValue& value);

class JsonTreeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { KeyColumn, ValueColumn, TypeColumn, ColumnCount };

    explicit JsonTreeModel(QObject* parent = nullptr);
    ~JsonTreeModel() override;

    void setRoot(std::unique_ptr<JsonNode> root);
    void clear();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const JsonNode* node(const QModelIndex& index) const;
    std::unique_ptr<JsonNode> m_root;
};

} // namespace mcpscope
