#include "schemaform.h"

#include "session/inputschema.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDate>
#include <QDateTime>
#include <QDoubleValidator>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QToolButton>
#include <QUrl>
#include <QUuid>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

namespace mcpscope {

namespace {

// Strings longer than this get a multi-line editor.
constexpr qint64 MultiLineMaxLength = 200;

QString problem(const QString& path, const QString& text)
{
    return path + QStringLiteral(": ") + text;
}

QString compactJson(const QJsonValue& value)
{
    return InputJson::compact(value);
}

QString prettyJson(const QJsonValue& value)
{
    return InputJson::pretty(value);
}

QString jsonTypeName(const QJsonValue& value)
{
    return InputJson::typeName(value);
}

bool matchesType(const QJsonValue& value, const QString& type)
{
    if (type == QLatin1String("integer"))
        return value.isDouble() && std::isfinite(value.toDouble()) && std::trunc(value.toDouble()) == value.toDouble();
    return jsonTypeName(value) == type;
}

QString numberText(const QJsonValue& value)
{
    return InputJson::number(value);
}

std::optional<QJsonValue> parseJson(const QString& text, QString* error)
{
    return InputJson::parse(text, error);
}

QJsonObject normalize(const QJsonObject& schema)
{
    return InputSchema::fromSchema(schema).schema;
}

using Kind = InputSchema::Kind;
using Option = InputOption;

QString optionLabel(const QJsonValue& value)
{
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return numberText(value);
    return compactJson(value);
}

/// Tooltip text: the description first, then the constraints the widget cannot show.
QString fieldToolTip(const QString& key, const QJsonObject& schema)
{
    QStringList lines;
    const QString title = schema.value(QStringLiteral("title")).toString();
    if (!title.isEmpty() && title != key)
        lines << title;
    const QString description = schema.value(QStringLiteral("description")).toString();
    if (!description.isEmpty())
        lines << description;
    QStringList facts;
    const QJsonValue type = schema.value(QStringLiteral("type"));
    if (type.isString())
        facts << SchemaForm::tr("type: %1").arg(type.toString());
    const QString format = schema.value(QStringLiteral("format")).toString();
    if (!format.isEmpty())
        facts << SchemaForm::tr("format: %1").arg(format);
    static const std::pair<const char*, const char*> constraints[] = {
        { "minimum", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "minimum: %1") },
        { "maximum", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "maximum: %1") },
        { "minLength", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "min length: %1") },
        { "maxLength", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "max length: %1") },
        { "minItems", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "min items: %1") },
        { "maxItems", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "max items: %1") },
        { "pattern", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "pattern: %1") },
        { "default", QT_TRANSLATE_NOOP("mcpscope::SchemaForm", "default: %1") },
    };
    for (const auto& [name, text] : constraints) {
        const QJsonValue value = schema.value(QLatin1String(name));
        if (!value.isUndefined())
            facts << SchemaForm::tr(text).arg(value.isString() ? value.toString() : compactJson(value));
    }
    if (!facts.isEmpty())
        lines << facts.join(QStringLiteral(", "));
    return lines.join(QLatin1Char('\n'));
}

QFont monospaceFont()
{
    return QFontDatabase::systemFont(QFontDatabase::FixedFont);
}

} // namespace

/// One field of the form: a widget that edits one JSON value, or leaves it unset.
///
/// Values given through setValue() that the widget cannot show (a string for a number, a value
/// outside an enum) are held as "foreign" and returned unchanged until the user edits the field,
/// so a round trip JSON → form → JSON never loses them silently.
class FormField : public QWidget
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::SchemaForm)
public:
    FormField(const QJsonObject& schema, bool required, bool item, QWidget* parent)
        : QWidget(parent)
        , m_schema(schema)
        , m_required(required || item)
        , m_item(item)
    { }

    ~FormField() override
    {
        // QWidget's destructor deletes the child widgets after the subclass is gone; a change signal
        // they emitted on the way out must not reach a half-destroyed field.
        for (QObject* child : findChildren<QObject*>())
            QObject::disconnect(child, nullptr, this, nullptr);
    }

    std::optional<QJsonValue> value() const
    {
        if (m_foreign)
            return m_foreign;
        return widgetValue();
    }

    void setValue(const std::optional<QJsonValue>& value)
    {
        m_showing = true;
        m_foreign.reset();
        if (value && !accepts(*value)) {
            m_foreign = *value;
            showValue(std::nullopt);
        } else {
            showValue(value);
        }
        m_showing = false;
        updateForeignMarker();
    }

    void validate(QStringList& problems) const
    {
        if (m_foreign) {
            problems << problem(m_path, tr("expected %1, got %2").arg(expected(), compactJson(*m_foreign)));
            return;
        }
        if (m_required && !widgetValue() && !hasUnparsedInput()) {
            problems << problem(m_path, tr("required"));
            return;
        }
        validateWidget(problems);
    }

    void setPath(const QString& path)
    {
        m_path = path;
        applyPath();
    }
    QString path() const { return m_path; }

    void setBaseToolTip(const QString& toolTip)
    {
        m_baseToolTip = toolTip;
        updateForeignMarker();
    }

    /// The widget a label points at, and that carries the tooltip.
    virtual QWidget* input() const = 0;
    /// Nested objects take the whole form row, their group box carries the label.
    virtual bool spansRow() const { return false; }
    virtual void setLabel(const QString& /*label*/) { }

    std::function<void()> onChanged;

protected:
    virtual std::optional<QJsonValue> widgetValue() const = 0;
    virtual bool accepts(const QJsonValue& value) const = 0;
    virtual void showValue(const std::optional<QJsonValue>& value) = 0;
    virtual void validateWidget(QStringList& /*problems*/) const { }
    virtual void applyPath() { input()->setObjectName(m_path); }
    virtual QString expected() const { return tr("a %1").arg(m_schema.value(QStringLiteral("type")).toString()); }
    /// Text the user typed that does not parse yet: reported by validateWidget(), not as "required".
    virtual bool hasUnparsedInput() const { return false; }

    /// Called from the widgets' change signals; ignores the changes made by setValue().
    void edited()
    {
        if (m_showing)
            return;
        if (m_foreign) {
            m_foreign.reset();
            updateForeignMarker();
        }
        if (onChanged)
            onChanged();
    }
    bool isShowing() const { return m_showing; }

    QJsonObject m_schema;
    QString m_path;
    bool m_required = false;
    bool m_item = false;

private:
    void updateForeignMarker()
    {
        input()->setToolTip(m_foreign ? tr("Holds %1, which this field cannot show; editing the field replaces it.")
                                            .arg(compactJson(*m_foreign))
                                      : m_baseToolTip);
    }

    std::optional<QJsonValue> m_foreign;
    QString m_baseToolTip;
    bool m_showing = false;
};

namespace {

FormField* createField(const QJsonObject& rawSchema, bool required, bool item, QWidget* parent);

class StringField final : public FormField
{
public:
    StringField(const QJsonObject& schema, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
    {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        const QString placeholder = schema.value(QStringLiteral("description")).toString();
        if (schema.value(QStringLiteral("maxLength")).toInteger() > MultiLineMaxLength) {
            m_text = new QPlainTextEdit(this);
            m_text->setPlaceholderText(placeholder);
            m_text->setTabChangesFocus(true);
            m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 4 + 12);
            layout->addWidget(m_text);
            QObject::connect(m_text, &QPlainTextEdit::textChanged, this, [this] { userEdit(); });
        } else {
            m_line = new QLineEdit(this);
            const QString format = schema.value(QStringLiteral("format")).toString();
            m_line->setPlaceholderText(placeholder.isEmpty() ? format : placeholder);
            layout->addWidget(m_line);
            QObject::connect(m_line, &QLineEdit::textChanged, this, [this] { userEdit(); });
        }
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isString() ? std::optional(def) : std::nullopt);
    }

    QWidget* input() const override { return m_line ? static_cast<QWidget*>(m_line) : m_text; }

protected:
    QString text() const { return m_line ? m_line->text() : m_text->toPlainText(); }

    std::optional<QJsonValue> widgetValue() const override
    {
        const QString t = text();
        if (t.isEmpty() && !m_item && !m_explicitEmpty)
            return std::nullopt;
        return QJsonValue(t);
    }
    bool accepts(const QJsonValue& value) const override { return value.isString(); }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        const QString t = value ? value->toString() : QString();
        m_explicitEmpty = value && t.isEmpty();
        if (m_line) {
            m_line->setText(t);
            // Show where a long default (a URL) starts, not where it ends.
            m_line->setCursorPosition(0);
        } else
            m_text->setPlainText(t);
    }
    void validateWidget(QStringList& problems) const override
    {
        const auto v = widgetValue();
        if (!v)
            return;
        const QString s = v->toString();
        const qint64 length = s.toUcs4().size();
        const QJsonValue minLength = m_schema.value(QStringLiteral("minLength"));
        const QJsonValue maxLength = m_schema.value(QStringLiteral("maxLength"));
        if (minLength.isDouble() && length < minLength.toInteger())
            problems << problem(m_path, tr("shorter than %1 characters").arg(minLength.toInteger()));
        if (maxLength.isDouble() && length > maxLength.toInteger())
            problems << problem(m_path, tr("longer than %1 characters").arg(maxLength.toInteger()));
        const QString pattern = m_schema.value(QStringLiteral("pattern")).toString();
        if (!pattern.isEmpty()) {
            const QRegularExpression re(pattern);
            if (re.isValid() && !re.match(s).hasMatch())
                problems << problem(m_path, tr("does not match the pattern %1").arg(pattern));
        }
        const QString format = m_schema.value(QStringLiteral("format")).toString();
        if (!formatOk(format, s))
            problems << problem(m_path, tr("not a valid %1").arg(format));
    }

private:
    static bool formatOk(const QString& format, const QString& s)
    {
        if (format == QLatin1String("uri") || format == QLatin1String("url")) {
            const QUrl url(s, QUrl::StrictMode);
            return url.isValid() && !url.scheme().isEmpty();
        }
        if (format == QLatin1String("email")) {
            static const QRegularExpression email(QStringLiteral("^[^@\\s]+@[^@\\s]+$"));
            return email.match(s).hasMatch();
        }
        if (format == QLatin1String("date"))
            return QDate::fromString(s, Qt::ISODate).isValid();
        if (format == QLatin1String("date-time"))
            return QDateTime::fromString(s, Qt::ISODate).isValid();
        if (format == QLatin1String("uuid"))
            return !QUuid::fromString(s).isNull();
        return true;
    }

    void userEdit()
    {
        if (isShowing())
            return;
        m_explicitEmpty = false;
        edited();
    }

    QLineEdit* m_line = nullptr;
    QPlainTextEdit* m_text = nullptr;
    // setValue("") keeps an empty string present; an emptied field is otherwise unset.
    bool m_explicitEmpty = false;
};

/// `number` and `integer`: a line edit, so that empty can mean "unset" and 64-bit integers keep
/// every digit (QSpinBox is 32-bit, QDoubleSpinBox rounds to its decimals).
class NumberField final : public FormField
{
public:
    NumberField(const QJsonObject& schema, bool integer, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
        , m_integer(integer)
        , m_line(new QLineEdit(this))
    {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_line);
        if (integer) {
            m_line->setValidator(
                new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[+-]?[0-9]*")), m_line));
        } else {
            auto* validator = new QDoubleValidator(m_line);
            validator->setLocale(QLocale::c());
            validator->setNotation(QDoubleValidator::ScientificNotation);
            m_line->setValidator(validator);
        }
        const QString description = schema.value(QStringLiteral("description")).toString();
        m_line->setPlaceholderText(description.isEmpty() ? (integer ? tr("integer") : tr("number")) : description);
        QObject::connect(m_line, &QLineEdit::textChanged, this, [this] { edited(); });
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isDouble() ? std::optional(def) : std::nullopt);
    }

    QWidget* input() const override { return m_line; }

protected:
    std::optional<QJsonValue> widgetValue() const override
    {
        const QString t = m_line->text().trimmed();
        if (t.isEmpty())
            return std::nullopt;
        bool ok = false;
        if (m_integer) {
            const qint64 i = t.toLongLong(&ok);
            if (ok)
                return QJsonValue(i);
        }
        const double d = QLocale::c().toDouble(t, &ok);
        if (ok && std::isfinite(d))
            return QJsonValue(d);
        return std::nullopt;
    }
    bool hasUnparsedInput() const override { return !m_line->text().trimmed().isEmpty(); }
    bool accepts(const QJsonValue& value) const override { return value.isDouble(); }
    QString expected() const override { return m_integer ? tr("an integer") : tr("a number"); }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        m_line->setText(value ? numberText(*value) : QString());
    }
    void validateWidget(QStringList& problems) const override
    {
        const QString t = m_line->text().trimmed();
        if (t.isEmpty())
            return;
        const auto v = widgetValue();
        if (!v) {
            problems << problem(m_path, tr("\"%1\" is not a number").arg(t));
            return;
        }
        static const QRegularExpression digits(QStringLiteral("^[+-]?[0-9]+$"));
        if (m_integer) {
            bool ok = false;
            t.toLongLong(&ok);
            if (!ok) {
                problems << problem(m_path,
                    digits.match(t).hasMatch() ? tr("outside the 64-bit integer range")
                                               : tr("must be an integer, not %1").arg(t));
                return;
            }
        }
        const double d = v->toDouble();
        // draft-04 spells exclusive bounds as booleans beside minimum/maximum, draft-06+ as numbers.
        const QJsonValue minimum = m_schema.value(QStringLiteral("minimum"));
        const QJsonValue maximum = m_schema.value(QStringLiteral("maximum"));
        const QJsonValue exclusiveMinimum = m_schema.value(QStringLiteral("exclusiveMinimum"));
        const QJsonValue exclusiveMaximum = m_schema.value(QStringLiteral("exclusiveMaximum"));
        if (minimum.isDouble()) {
            const bool exclusive = exclusiveMinimum.toBool(false);
            if (exclusive ? d <= minimum.toDouble() : d < minimum.toDouble())
                problems << problem(
                    m_path, (exclusive ? tr("must be > %1") : tr("must be ≥ %1")).arg(numberText(minimum)));
        }
        if (maximum.isDouble()) {
            const bool exclusive = exclusiveMaximum.toBool(false);
            if (exclusive ? d >= maximum.toDouble() : d > maximum.toDouble())
                problems << problem(
                    m_path, (exclusive ? tr("must be < %1") : tr("must be ≤ %1")).arg(numberText(maximum)));
        }
        if (exclusiveMinimum.isDouble() && d <= exclusiveMinimum.toDouble())
            problems << problem(m_path, tr("must be > %1").arg(numberText(exclusiveMinimum)));
        if (exclusiveMaximum.isDouble() && d >= exclusiveMaximum.toDouble())
            problems << problem(m_path, tr("must be < %1").arg(numberText(exclusiveMaximum)));
        const double multipleOf = m_schema.value(QStringLiteral("multipleOf")).toDouble(0);
        if (multipleOf > 0) {
            const double ratio = d / multipleOf;
            if (std::abs(ratio - std::round(ratio)) > 1e-9 * std::max(1.0, std::abs(ratio)))
                problems << problem(m_path, tr("must be a multiple of %1").arg(numberText(QJsonValue(multipleOf))));
        }
    }

private:
    bool m_integer;
    QLineEdit* m_line;
};

/// A check box; tri-state when the field is optional, the middle state meaning "unset".
class BoolField final : public FormField
{
public:
    BoolField(const QJsonObject& schema, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
        , m_box(new QCheckBox(this))
    {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_box);
        m_box->setTristate(!m_required);
        QObject::connect(m_box, &QCheckBox::stateChanged, this, [this] {
            updateText();
            if (isShowing())
                return;
            m_absent = false;
            edited();
        });
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isBool() ? std::optional(def) : std::nullopt);
        // A fresh required check box starts at false; only setValue() without it leaves it unset.
        m_absent = false;
        updateText();
    }

    QWidget* input() const override { return m_box; }

protected:
    std::optional<QJsonValue> widgetValue() const override
    {
        if (m_absent || m_box->checkState() == Qt::PartiallyChecked)
            return std::nullopt;
        return QJsonValue(m_box->isChecked());
    }
    bool accepts(const QJsonValue& value) const override { return value.isBool(); }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        m_absent = !value && !m_box->isTristate();
        m_box->setCheckState(!value ? (m_box->isTristate() ? Qt::PartiallyChecked : Qt::Unchecked)
                : value->toBool()   ? Qt::Checked
                                    : Qt::Unchecked);
        updateText();
    }

private:
    void updateText()
    {
        const auto v = widgetValue();
        m_box->setText(!v ? tr("not set") : v->toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    }

    QCheckBox* m_box;
    bool m_absent = false;
};

/// A combo box over the allowed values. Optional fields get a "not set" entry first; required
/// ones start on a placeholder until a value is chosen.
class EnumField final : public FormField
{
public:
    EnumField(const QJsonObject& schema, std::vector<Option> options, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
        , m_options(std::move(options))
        , m_combo(new QComboBox(this))
    {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_combo);
        if (!m_required)
            m_combo->addItem(tr("(not set)"));
        else
            m_combo->setPlaceholderText(tr("Choose…"));
        for (const Option& option : m_options) {
            m_combo->addItem(option.label);
            const QString tip = option.description.isEmpty() || option.label == optionLabel(option.value)
                ? option.description
                : compactJson(option.value) + QStringLiteral(" — ") + option.description;
            if (!tip.isEmpty())
                m_combo->setItemData(m_combo->count() - 1, tip, Qt::ToolTipRole);
        }
        QObject::connect(m_combo, &QComboBox::currentIndexChanged, this, [this] { edited(); });
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isUndefined() || !accepts(def) ? std::nullopt : std::optional(def));
    }

    QWidget* input() const override { return m_combo; }

protected:
    qsizetype offset() const { return m_required ? 0 : 1; }
    std::optional<QJsonValue> widgetValue() const override
    {
        const qsizetype index = m_combo->currentIndex() - offset();
        if (index < 0 || index >= qsizetype(m_options.size()))
            return std::nullopt;
        return m_options[size_t(index)].value;
    }
    bool accepts(const QJsonValue& value) const override { return indexOf(value) >= 0; }
    QString expected() const override
    {
        QStringList values;
        for (const Option& option : m_options)
            values << compactJson(option.value);
        return tr("one of %1").arg(values.join(QStringLiteral(", ")));
    }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        m_combo->setCurrentIndex(value ? int(indexOf(*value) + offset()) : (m_required ? -1 : 0));
    }

private:
    qsizetype indexOf(const QJsonValue& value) const
    {
        for (size_t i = 0; i < m_options.size(); ++i) {
            if (m_options[i].value == value)
                return qsizetype(i);
        }
        return -1;
    }

    std::vector<Option> m_options;
    QComboBox* m_combo;
};

/// An array of enum values: a list of check boxes, one per allowed value.
class EnumSetField final : public FormField
{
public:
    EnumSetField(const QJsonObject& schema, std::vector<Option> options, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
        , m_options(std::move(options))
        , m_list(new QListWidget(this))
    {
        auto* layout = new QHBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_list);
        for (const Option& option : m_options) {
            auto* item = new QListWidgetItem(option.label, m_list);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
            item->setCheckState(Qt::Unchecked);
            if (!option.description.isEmpty())
                item->setToolTip(option.description);
        }
        const int rows = int(std::min<size_t>(m_options.size(), 6));
        m_list->setFixedHeight(m_list->sizeHintForRow(0) * rows + 2 * m_list->frameWidth() + 2);
        QObject::connect(m_list, &QListWidget::itemChanged, this, [this] {
            if (isShowing())
                return;
            m_explicit = false;
            edited();
        });
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isArray() ? std::optional(def) : std::nullopt);
    }

    QWidget* input() const override { return m_list; }

protected:
    std::optional<QJsonValue> widgetValue() const override
    {
        QJsonArray values;
        for (size_t i = 0; i < m_options.size(); ++i) {
            if (m_list->item(int(i))->checkState() == Qt::Checked)
                values.append(m_options[i].value);
        }
        if (values.isEmpty() && !m_required && !m_explicit)
            return std::nullopt;
        return values;
    }
    bool accepts(const QJsonValue& value) const override
    {
        if (!value.isArray())
            return false;
        const QJsonArray values = value.toArray();
        return std::all_of(values.begin(), values.end(), [this](const QJsonValue& v) {
            return std::any_of(
                m_options.begin(), m_options.end(), [&v](const Option& option) { return option.value == v; });
        });
    }
    QString expected() const override { return tr("an array of the listed values"); }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        const QJsonArray values = value ? value->toArray() : QJsonArray();
        m_explicit = value.has_value();
        for (size_t i = 0; i < m_options.size(); ++i)
            m_list->item(int(i))->setCheckState(values.contains(m_options[i].value) ? Qt::Checked : Qt::Unchecked);
    }
    void validateWidget(QStringList& problems) const override
    {
        const auto v = widgetValue();
        if (!v)
            return;
        const qsizetype count = v->toArray().size();
        const QJsonValue minItems = m_schema.value(QStringLiteral("minItems"));
        const QJsonValue maxItems = m_schema.value(QStringLiteral("maxItems"));
        if (minItems.isDouble() && count < minItems.toInteger())
            problems << problem(m_path, tr("choose at least %1").arg(minItems.toInteger()));
        if (maxItems.isDouble() && count > maxItems.toInteger())
            problems << problem(m_path, tr("choose at most %1").arg(maxItems.toInteger()));
    }

private:
    std::vector<Option> m_options;
    QListWidget* m_list;
    bool m_explicit = false;
};

/// Any JSON value, typed as text: the fallback for schema parts the form cannot express.
class RawJsonField final : public FormField
{
public:
    RawJsonField(const QJsonObject& schema, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
        , m_edit(new QPlainTextEdit(this))
        , m_error(new QLabel(this))
    {
        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        layout->addWidget(m_edit);
        layout->addWidget(m_error);
        m_edit->setFont(monospaceFont());
        m_edit->setTabChangesFocus(true);
        m_edit->setFixedHeight(m_edit->fontMetrics().lineSpacing() * 4 + 12);
        const QString type = schema.value(QStringLiteral("type")).toString();
        m_edit->setPlaceholderText(type.isEmpty() ? tr("JSON value") : tr("JSON %1").arg(type));
        m_error->setWordWrap(true);
        m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
        m_error->hide();
        QObject::connect(m_edit, &QPlainTextEdit::textChanged, this, [this] {
            updateError();
            edited();
        });
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isUndefined() ? std::nullopt : std::optional(def));
    }

    QWidget* input() const override { return m_edit; }

protected:
    std::optional<QJsonValue> widgetValue() const override
    {
        const QString text = m_edit->toPlainText();
        if (text.trimmed().isEmpty())
            return std::nullopt;
        return parseJson(text, nullptr);
    }
    bool hasUnparsedInput() const override { return !m_edit->toPlainText().trimmed().isEmpty(); }
    bool accepts(const QJsonValue& /*value*/) const override { return true; }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        m_edit->setPlainText(value ? prettyJson(*value) : QString());
    }
    void applyPath() override
    {
        m_edit->setObjectName(m_path);
        m_error->setObjectName(m_path + QStringLiteral(":error"));
    }
    void validateWidget(QStringList& problems) const override
    {
        const QString text = m_edit->toPlainText();
        if (text.trimmed().isEmpty())
            return;
        QString error;
        const auto v = parseJson(text, &error);
        if (!v) {
            problems << problem(m_path, tr("invalid JSON at %1").arg(error));
            return;
        }
        const QJsonValue type = m_schema.value(QStringLiteral("type"));
        QStringList types;
        if (type.isString())
            types << type.toString();
        for (const QJsonValue& t : type.toArray())
            types << t.toString();
        if (!types.isEmpty()
            && std::none_of(types.begin(), types.end(), [&v](const QString& t) { return matchesType(*v, t); }))
            problems << problem(
                m_path, tr("expected %1, got %2").arg(types.join(QStringLiteral(" or ")), jsonTypeName(*v)));
    }

private:
    void updateError()
    {
        QString error;
        const QString text = m_edit->toPlainText();
        const bool bad = !text.trimmed().isEmpty() && !parseJson(text, &error);
        m_error->setText(bad ? tr("Invalid JSON at %1").arg(error) : QString());
        m_error->setVisible(bad);
    }

    QPlainTextEdit* m_edit;
    QLabel* m_error;
};

/// A list editor: one row per item with a remove button, and an "Add item" button below.
class ArrayField final : public FormField
{
public:
    ArrayField(const QJsonObject& schema, bool required, bool item, QWidget* parent)
        : FormField(schema, required, item, parent)
        , m_itemSchema(schema.value(QStringLiteral("items")).toObject())
        , m_rows(new QVBoxLayout)
        , m_add(new QPushButton(tr("Add item"), this))
    {
        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(4);
        m_rows->setContentsMargins(0, 0, 0, 0);
        m_rows->setSpacing(4);
        layout->addLayout(m_rows);
        auto* buttons = new QHBoxLayout;
        buttons->addWidget(m_add);
        buttons->addStretch();
        layout->addLayout(buttons);
        QObject::connect(m_add, &QPushButton::clicked, this, [this] {
            m_explicit = false;
            addRow(std::nullopt);
            edited();
        });
        const QJsonValue def = schema.value(QStringLiteral("default"));
        setValue(def.isArray() ? std::optional(def) : std::nullopt);
    }

    QWidget* input() const override { return m_add; }

protected:
    std::optional<QJsonValue> widgetValue() const override
    {
        if (m_items.empty() && !m_required && !m_explicit)
            return std::nullopt;
        QJsonArray values;
        for (const Row& row : m_items)
            values.append(row.field->value().value_or(QJsonValue(QJsonValue::Null)));
        return values;
    }
    bool accepts(const QJsonValue& value) const override { return value.isArray(); }
    QString expected() const override { return tr("an array"); }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        while (!m_items.empty())
            removeRow(m_items.size() - 1);
        m_explicit = value.has_value();
        if (value) {
            for (const QJsonValue& element : value->toArray())
                addRow(element);
        }
    }
    void applyPath() override
    {
        setObjectName(m_path);
        m_add->setObjectName(m_path + QStringLiteral(":add"));
        for (size_t i = 0; i < m_items.size(); ++i)
            applyRowPath(i);
    }
    void validateWidget(QStringList& problems) const override
    {
        const auto v = widgetValue();
        if (!v)
            return;
        for (const Row& row : m_items)
            row.field->validate(problems);
        const QJsonArray values = v->toArray();
        const QJsonValue minItems = m_schema.value(QStringLiteral("minItems"));
        const QJsonValue maxItems = m_schema.value(QStringLiteral("maxItems"));
        if (minItems.isDouble() && values.size() < minItems.toInteger())
            problems << problem(m_path, tr("needs at least %1 items").arg(minItems.toInteger()));
        if (maxItems.isDouble() && values.size() > maxItems.toInteger())
            problems << problem(m_path, tr("allows at most %1 items").arg(maxItems.toInteger()));
        if (m_schema.value(QStringLiteral("uniqueItems")).toBool()) {
            for (qsizetype i = 0; i < values.size(); ++i) {
                for (qsizetype j = i + 1; j < values.size(); ++j) {
                    if (values.at(i) == values.at(j)) {
                        problems << problem(m_path, tr("items %1 and %2 are equal").arg(i).arg(j));
                        return;
                    }
                }
            }
        }
    }

private:
    struct Row
    {
        QWidget* widget;
        FormField* field;
        QToolButton* remove;
    };

    void addRow(const std::optional<QJsonValue>& value)
    {
        auto* row = new QWidget(this);
        auto* layout = new QHBoxLayout(row);
        layout->setContentsMargins(0, 0, 0, 0);
        FormField* field = createField(m_itemSchema, true, true, row);
        field->setBaseToolTip(fieldToolTip(QString(), normalize(m_itemSchema)));
        if (value)
            field->setValue(value);
        auto* remove = new QToolButton(row);
        remove->setText(QStringLiteral("−"));
        remove->setToolTip(tr("Remove this item"));
        layout->addWidget(field, 1);
        layout->addWidget(remove, 0, Qt::AlignTop);
        m_rows->addWidget(row);
        m_items.push_back({ row, field, remove });
        field->onChanged = [this] { edited(); };
        QObject::connect(remove, &QToolButton::clicked, this, [this, row] {
            for (size_t i = 0; i < m_items.size(); ++i) {
                if (m_items[i].widget == row) {
                    m_explicit = false;
                    removeRow(i);
                    edited();
                    return;
                }
            }
        });
        applyRowPath(m_items.size() - 1);
        updateAddButton();
    }

    void removeRow(size_t index)
    {
        const Row row = m_items[index];
        m_items.erase(m_items.begin() + qsizetype(index));
        row.field->onChanged = nullptr;
        m_rows->removeWidget(row.widget);
        row.widget->hide();
        // The click that asked for the removal is still being delivered to this row's button.
        row.widget->deleteLater();
        row.widget->setObjectName(QString());
        row.remove->setObjectName(QString());
        row.field->setPath(QString());
        for (size_t i = index; i < m_items.size(); ++i)
            applyRowPath(i);
        updateAddButton();
    }

    void applyRowPath(size_t index)
    {
        const QString path = m_path + QStringLiteral("[%1]").arg(index);
        m_items[index].field->setPath(path);
        m_items[index].field->setLabel(QStringLiteral("[%1]").arg(index));
        m_items[index].remove->setObjectName(path + QStringLiteral(":remove"));
    }

    void updateAddButton()
    {
        const QJsonValue maxItems = m_schema.value(QStringLiteral("maxItems"));
        m_add->setEnabled(!maxItems.isDouble() || qsizetype(m_items.size()) < maxItems.toInteger());
    }

    QJsonObject m_itemSchema;
    QVBoxLayout* m_rows;
    QPushButton* m_add;
    std::vector<Row> m_items;
    bool m_explicit = false;
};

/// The arguments object itself, or a nested object in a group box: one labelled row per property,
/// required ones first. Keys the schema does not describe are kept and sent along.
class ObjectField final : public FormField
{
public:
    ObjectField(const QJsonObject& schema, bool root, bool required, bool item, QWidget* parent)
        : FormField(schema, required || root, item, parent)
        , m_input(this)
    {
        auto* outer = new QVBoxLayout(this);
        outer->setContentsMargins(0, 0, 0, 0);
        QWidget* body = this;
        if (!root) {
            m_group = new QGroupBox(this);
            outer->addWidget(m_group);
            body = m_group;
            m_input = m_group;
        }
        m_form = new QFormLayout;
        m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        m_form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (root) {
            m_form->setContentsMargins(0, 0, 0, 0);
            outer->addLayout(m_form);
        } else {
            m_group->setLayout(m_form);
        }

        const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
        QStringList requiredKeys;
        for (const QJsonValue& key : schema.value(QStringLiteral("required")).toArray())
            requiredKeys << key.toString();
        // QJsonObject has lost the schema's property order; required fields first reads best.
        QStringList keys = properties.keys();
        std::stable_partition(
            keys.begin(), keys.end(), [&requiredKeys](const QString& key) { return requiredKeys.contains(key); });
        for (const QString& key : keys) {
            const bool isRequired = requiredKeys.contains(key);
            const QJsonObject propertySchema = normalize(properties.value(key).toObject());
            FormField* field = createField(propertySchema, isRequired, false, body);
            field->onChanged = [this] { edited(); };
            QString plainLabel = key;
            if (isRequired)
                plainLabel += QStringLiteral(" *");
            const QString toolTip = fieldToolTip(key, propertySchema);
            field->setBaseToolTip(toolTip);
            QLabel* label = nullptr;
            if (field->spansRow()) {
                field->setLabel(plainLabel);
                m_form->addRow(field);
            } else {
                QString richLabel = key.toHtmlEscaped();
                if (isRequired)
                    richLabel += QStringLiteral("<span style=\"color:#c0392b\">&nbsp;*</span>");
                label = new QLabel(richLabel, body);
                label->setTextFormat(Qt::RichText);
                label->setToolTip(toolTip);
                label->setBuddy(field->input());
                m_form->addRow(label, field);
            }
            m_properties.push_back({ key, field, label });
        }
        if (m_properties.empty()) {
            auto* none = new QLabel(tr("No arguments."), body);
            none->setEnabled(false);
            m_form->addRow(none);
        }
        m_extraNote = new QLabel(body);
        m_extraNote->setWordWrap(true);
        m_extraNote->setEnabled(false);
        m_extraNote->hide();
        m_form->addRow(m_extraNote);

        const QJsonValue def = schema.value(QStringLiteral("default"));
        if (def.isObject())
            setValue(def);
    }

    QWidget* input() const override { return m_input; }
    bool spansRow() const override { return true; }
    void setLabel(const QString& label) override
    {
        if (m_group)
            m_group->setTitle(label);
    }

protected:
    std::optional<QJsonValue> widgetValue() const override
    {
        QJsonObject object = m_extra;
        for (const Property& property : m_properties) {
            if (const auto v = property.field->value())
                object.insert(property.key, *v);
        }
        if (object.isEmpty() && !m_required && !m_explicit)
            return std::nullopt;
        return object;
    }
    bool accepts(const QJsonValue& value) const override { return value.isObject(); }
    QString expected() const override { return tr("an object"); }
    void showValue(const std::optional<QJsonValue>& value) override
    {
        const QJsonObject object = value ? value->toObject() : QJsonObject();
        m_explicit = value.has_value();
        m_extra = object;
        for (const Property& property : m_properties) {
            m_extra.remove(property.key);
            property.field->setValue(
                object.contains(property.key) ? std::optional(object.value(property.key)) : std::nullopt);
        }
        m_extraNote->setText(tr("Also sends keys the schema does not describe (edit them as JSON): %1")
                                 .arg(m_extra.keys().join(QStringLiteral(", "))));
        m_extraNote->setVisible(!m_extra.isEmpty());
    }
    void applyPath() override
    {
        input()->setObjectName(m_path);
        for (const Property& property : m_properties) {
            property.field->setPath(m_path.isEmpty() ? QString() : InputJson::childPath(m_path, property.key));
            if (property.label)
                property.label->setObjectName(property.field->path() + QStringLiteral(":label"));
        }
    }
    void validateWidget(QStringList& problems) const override
    {
        // An optional object nobody filled in is simply absent: its required members do not apply.
        if (!widgetValue())
            return;
        for (const Property& property : m_properties)
            property.field->validate(problems);
        if (m_schema.value(QStringLiteral("additionalProperties")) == QJsonValue(false)) {
            for (const QString& key : m_extra.keys())
                problems << problem(m_path, tr("unexpected property \"%1\"").arg(key));
        }
    }

private:
    struct Property
    {
        QString key;
        FormField* field;
        QLabel* label;
    };

    QWidget* m_input;
    QGroupBox* m_group = nullptr;
    QFormLayout* m_form = nullptr;
    QLabel* m_extraNote = nullptr;
    std::vector<Property> m_properties;
    QJsonObject m_extra;
    bool m_explicit = false;
};

FormField* createField(const QJsonObject& rawSchema, bool required, bool item, QWidget* parent)
{
    const InputSchema field = InputSchema::fromSchema(rawSchema);
    const QJsonObject& schema = field.schema;
    switch (field.kind) {
    case Kind::String:
        return new StringField(schema, required, item, parent);
    case Kind::Number:
        return new NumberField(schema, false, required, item, parent);
    case Kind::Integer:
        return new NumberField(schema, true, required, item, parent);
    case Kind::Boolean:
        return new BoolField(schema, required, item, parent);
    case Kind::Enum:
        return new EnumField(schema, field.options, required, item, parent);
    case Kind::EnumSet:
        return new EnumSetField(schema, field.options, required, item, parent);
    case Kind::Array:
        return new ArrayField(schema, required, item, parent);
    case Kind::Object:
        return new ObjectField(schema, false, required, item, parent);
    case Kind::Raw:
        break;
    }
    return new RawJsonField(schema, required, item, parent);
}

} // namespace

SchemaForm::SchemaForm(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addStretch();
    setSchema(QJsonObject());
}

SchemaForm::~SchemaForm() = default;

void SchemaForm::setSchema(const QJsonObject& inputSchema)
{
    m_schema = inputSchema;
    m_loading = true;
    if (m_root) {
        // Deleted later: setSchema() may run inside one of the old fields' signals (a valueChanged()
        // handler). Their object names go now, for the new fields that reuse them.
        m_root->onChanged = nullptr;
        layout()->removeWidget(m_root);
        m_root->hide();
        m_root->setObjectName(QString());
        for (QObject* object : m_root->findChildren<QObject*>())
            object->setObjectName(QString());
        m_root->deleteLater();
    }
    const InputSchema root = InputSchema::forArguments(inputSchema);
    const QJsonObject& schema = root.schema;
    if (root.kind == Kind::Object)
        m_root = new ObjectField(schema, true, true, false, this);
    else
        m_root = new RawJsonField(schema, false, false, this);
    m_root->setPath(QStringLiteral("args"));
    m_root->onChanged = [this] { fieldChanged(); };
    static_cast<QVBoxLayout*>(layout())->insertWidget(0, m_root);
    m_loading = false;
}

QJsonObject SchemaForm::value() const
{
    return m_root->value().value_or(QJsonValue()).toObject();
}

void SchemaForm::setValue(const QJsonObject& arguments)
{
    m_loading = true;
    m_root->setValue(QJsonValue(arguments));
    m_loading = false;
}

bool SchemaForm::isValid(QStringList* problems) const
{
    QStringList found;
    m_root->validate(found);
    const auto v = m_root->value();
    if (found.isEmpty() && v && !v->isObject())
        found << problem(m_root->path(), tr("the arguments must be a JSON object"));
    if (problems)
        *problems = found;
    return found.isEmpty();
}

std::optional<QJsonValue> SchemaForm::parseJson(const QString& text, QString* error)
{
    return mcpscope::parseJson(text, error);
}

QString SchemaForm::toJsonText(const QJsonValue& value)
{
    return prettyJson(value);
}

void SchemaForm::fieldChanged()
{
    if (!m_loading)
        Q_EMIT valueChanged();
}

} // namespace mcpscope
