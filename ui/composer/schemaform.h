#pragma once

#include <QJsonObject>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>

namespace mcpscope {

class FormField;
struct InputSchema;

/// An editor for a tool's arguments, generated from its `inputSchema` (a JSON Schema object).
///
/// Every input widget is named by its JSON path ("args.location", "args.items[0].name"); around it
/// are "<path>:label" (the form label), "<path>:add" and "<path>[i]:remove" (an array's buttons) and
/// "<path>:error" (a raw JSON field's parse error). Parts of a schema the form cannot express
/// (`$ref`, `additionalProperties` maps, `oneOf` of objects, tuples, untyped values) get a raw JSON
/// editor for that field instead.
///
/// The form can send invalid arguments on purpose (an inspector tests the server's validation), so
/// isValid() only reports problems; it never blocks value().
class SchemaForm : public QWidget
{
    Q_OBJECT
public:
    explicit SchemaForm(QWidget* parent = nullptr);
    ~SchemaForm() override;

    /// Rebuilds the form; fields start at their `default` (or unset). Does not emit valueChanged().
    void setSchema(const QJsonObject& inputSchema);
    QJsonObject schema() const { return m_schema; }

    /// The arguments object: fields left unset are omitted, keys the schema does not describe
    /// (given through setValue()) are kept.
    QJsonObject value() const;

    /// Shows @p arguments; properties missing from it are unset (not reset to their default).
    /// Values the widgets cannot show (a string where a number belongs) are kept as they are
    /// until the field is edited, and reported by isValid(). Does not emit valueChanged().
    void setValue(const QJsonObject& arguments);

    /// Validates the arguments against the schema (valijson, through InputSchema::problems()) and
    /// adds what the widgets hold that is no value yet: raw JSON that does not parse, a number typed
    /// beyond 64 bits, an empty array item. Each problem names the field by its path, in form order.
    bool isValid(QStringList* problems = nullptr) const;

    /// Parses any JSON value, scalars included; on failure @p error says where, as "line L, column C: why".
    static std::optional<QJsonValue> parseJson(const QString& text, QString* error = nullptr);
    /// Objects and arrays indented, scalars compact, as the JSON editors show them.
    static QString toJsonText(const QJsonValue& value);

Q_SIGNALS:
    /// Fires when a field changes through its widget, never for setSchema() or setValue().
    void valueChanged();

private:
    void fieldChanged();

    QJsonObject m_schema;
    std::unique_ptr<const InputSchema> m_input;
    FormField* m_root = nullptr;
    bool m_loading = false;
};

} // namespace mcpscope
