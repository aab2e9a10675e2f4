#include "jsontree.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace mcpscope {

namespace {
void fill(JsonNode* node, const QJsonValue& value)
{
    switch (value.type()) {
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        node->type = QStringLiteral("object");
        node->value = QStringLiteral("{%1}").arg(object.size());
        int row = 0;
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            auto child = std::make_unique<JsonNode>();
            child->key = it.key();
            child->parent = node;
            child->row = row++;
            fill(child.get(), it.value());
            node->children.push_back(std::move(child));
        }
        break;
    }
    case QJsonValue::Array: {
        const QJsonArray array = value.toArray();
        node->type = QStringLiteral("array");
        node->value = QStringLiteral("[%1]").arg(array.size());
        for (int i = 0; i < array.size(); ++i) {
            auto child = std::make_unique<JsonNode>();
            child->key = QString::number(i);
            child->parent = node;
            child->row = i;
            fill(child.get(), array.at(i));
            node->children.push_back(std::move(child));
        }
        break;
    }
    case QJsonValue::String: {
        node->type = QStringLiteral("string");
        QString text = value.toString();
        // A cell is no place for megabytes; the raw view has the full text.
        if (text.size() > 4096)
            text = text.left(4096) + QStringLiteral("… (%1 characters)").arg(value.toString().size());
        node->value = text;
        break;
    }
    case QJsonValue::Double:
        node->type = QStringLiteral("number");
        node->value = QString::number(value.toDouble(), 'g', 17);
        break;
    case QJsonValue::Bool:
        node->type = QStringLiteral("boolean");
        node->value = value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        break;
    case QJsonValue::Null:
        node->type = QStringLiteral("null");
        node->value = QStringLiteral("null");
        break;
    case QJsonValue::Undefined:
        node->type = QStringLiteral("undefined");
        break;
    }
}
} // namespace

std::unique_ptr<JsonNode> buildJsonTree(const QJsonValue& value)
{
    auto root = std::make_unique<JsonNode>();
    fill(root.get(), value);
    return root;
}

JsonTreeModel::JsonTreeModel(QObject* parent)
    : QAbstractItemModel(parent)
{ }

JsonTreeModel::~JsonTreeModel() = default;

void JsonTreeModel::setRoot(std::unique_ptr<JsonNode> root)
{
    beginResetModel();
    m_root = std::move(root);
    endResetModel();
}

void JsonTreeModel::clear()
{
    setRoot(nullptr);
}

const JsonNode* JsonTreeModel::node(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<const JsonNode*>(index.internalPointer()) : m_root.get();
}

QModelIndex JsonTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    const JsonNode* p = node(parent);
    if (!p || row < 0 || column < 0 || column >= ColumnCount || size_t(row) >= p->children.size())
        return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex JsonTreeModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const JsonNode* n = node(child);
    const JsonNode* p = n->parent;
    if (!p || p == m_root.get())
        return {};
    return createIndex(p->row, 0, const_cast<JsonNode*>(p));
}

int JsonTreeModel::rowCount(const QModelIndex& parent) const
{
    if (parent.column() > 0)
        return 0;
    const JsonNode* p = node(parent);
    return p ? int(p->children.size()) : 0;
}

int JsonTreeModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QVariant JsonTreeModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    const JsonNode* n = node(index);
    switch (index.column()) {
    case KeyColumn:
        return n->key;
    case ValueColumn:
        return n->value;
    case TypeColumn:
        return n->type;
    default:
        return {};
    }
}

QVariant JsonTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn:
        return tr("Key");
    case ValueColumn:
        return tr("Value");
    case TypeColumn:
        return tr("Type");
    default:
        return {};
    }
}

} // namespace mcpscope
