#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace mcpscope {

/// One allowed value of an enum-like field, with the text a form shows for it.
struct InputOption
{
    QJsonValue value;
    QString label;
    QString description;
};

/// A problem with a form's value: the field's JSON path ("args.items[0].name") and what failed.
struct InputProblem
{
    QString path;
    QString text;

    QString toString() const { return path + QStringLiteral(": ") + text; }
    bool operator==(const InputProblem&) const = default;
};

/// The field a JSON Schema describes, as a form edits it: a tool's `inputSchema` in the call
/// composer, or an elicitation's `requestedSchema` (a flat object of primitives with title,
/// description, default, enum or oneOf+const, format and bounds).
///
/// The common wrappers around one schema are folded first: `anyOf: [X, {type: null}]` (pydantic's
/// Optional[X]), a one-element `allOf`, and `type: [X, "null"]`. What a form cannot express as its
/// own widget (`$ref`, `additionalProperties` maps, `oneOf` of objects, tuples, untyped values,
/// type unions) is Raw: an editor for any JSON value.
struct InputSchema
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::InputSchema)
public:
    enum class Kind { String, Number, Integer, Boolean, Enum, EnumSet, Array, Object, Raw };
    struct Property;

    /// The field @p schema describes (one property, an array's items).
    static InputSchema fromSchema(const QJsonObject& schema);
    /// The arguments object of a tool or the content of an elicitation: a schema without
    /// `properties`, `additionalProperties` or `$ref` (`{}`, `{"type":"object"}`) has no fields.
    static InputSchema forArguments(const QJsonObject& schema);

    Kind kind = Kind::Raw;
    /// The schema as given, for validation.
    QJsonObject source;
    /// The schema with its wrappers folded, which every member below reads.
    QJsonObject schema;
    /// "string", "number", …; empty for a missing type or a union.
    QString type;
    QString title;
    QString description;
    QString format;
    /// Undefined when the schema has no `default`.
    QJsonValue defaultValue;

    /// The allowed values: of the field for Enum, of each item for EnumSet.
    std::vector<InputOption> options;
    /// An Object's fields, required ones first, then by key.
    std::vector<Property> properties;
    /// An Array's item field; an EnumSet's, which is an Enum.
    std::shared_ptr<const InputSchema> items;

    /// Bounds; draft-04's boolean exclusiveMinimum/-Maximum and draft-06's numbers both set the flags.
    std::optional<double> minimum;
    std::optional<double> maximum;
    bool exclusiveMinimum = false;
    bool exclusiveMaximum = false;
    std::optional<qint64> minLength;
    std::optional<qint64> maxLength;
    std::optional<qint64> minItems;
    std::optional<qint64> maxItems;
    QString pattern;

    /// The field at @p path below this one (object keys, array indices), or nullptr when the path
    /// leaves what the form shows as fields (inside a Raw value, a key the schema does not name).
    const InputSchema* find(const QStringList& path) const;

    /// Everything wrong with @p value, validated by valijson (SchemaValidator) against `source` and
    /// put in the form's words; @p rootPath names the value itself ("args"). Also checks the
    /// formats valijson leaves alone (uri, email, uuid).
    QList<InputProblem> problems(const QJsonValue& value, const QString& rootPath) const;
};

struct InputSchema::Property
{
    QString key;
    bool required = false;
    InputSchema field;
};

/// JSON as the forms show and read it.
namespace InputJson {
/// Any JSON value, scalars included; on failure @p error says where, as "line L, column C: why".
std::optional<QJsonValue> parse(const QString& text, QString* error = nullptr);
/// Objects and arrays indented, scalars compact.
QString pretty(const QJsonValue& value);
/// One line.
QString compact(const QJsonValue& value);
/// Numbers without a trailing ".0"; integers beyond 2^53 keep every digit.
QString number(const QJsonValue& value);
/// "null", "boolean", "number", "string", "array" or "object".
QString typeName(const QJsonValue& value);
/// A value as a form labels it when the schema gives no title: strings bare, numbers short, the rest compact.
QString label(const QJsonValue& value);
/// @p path extended by an object key: ".key" for identifiers, `["odd key"]` otherwise.
QString childPath(const QString& path, const QString& key);
/// Whether @p path names @p ancestor itself or a value inside it.
bool isAtOrBelow(const QString& path, const QString& ancestor);
} // namespace InputJson

} // namespace mcpscope
