#pragma once

#include "session/inputschema.h"

#include <QCoreApplication>
#include <QJsonValue>
#include <QList>
#include <QWidget>

#include <functional>
#include <optional>

namespace mcpscope {

/// One field of a SchemaForm: a widget that edits one JSON value, or leaves it unset.
///
/// Values given through setValue() that the widget cannot show (a string for a number, a value
/// outside an enum) are held as "foreign" and returned unchanged until the user edits the field,
/// so a round trip JSON → form → JSON never loses them silently.
class FormField : public QWidget
{
    Q_DECLARE_TR_FUNCTIONS(mcpscope::SchemaForm)
public:
    FormField(bool required, bool item, QWidget* parent);
    ~FormField() override;

    std::optional<QJsonValue> value() const;
    void setValue(const std::optional<QJsonValue>& value);

    /// Appends this field's problems to @p out in form order: what the widget holds that is no value
    /// yet, or else the problems @p schemaProblems (valijson's, by path) reports here, which it takes
    /// out of that list. A field with no value sends nothing, so its inner fields are not asked.
    void collectProblems(QList<InputProblem>& schemaProblems, QList<InputProblem>& out) const;

    void setPath(const QString& path);
    QString path() const { return m_path; }

    void setBaseToolTip(const QString& toolTip);

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
    /// Text the user typed that is no JSON value yet, which the schema cannot check.
    virtual std::optional<QString> inputProblem() const { return std::nullopt; }
    /// The fields inside this one, in form order; a field without any takes the schema's problems
    /// below its path too (inside a raw value, an enum set's items).
    virtual QList<const FormField*> innerFields() const { return {}; }
    virtual void applyPath() { input()->setObjectName(m_path); }

    /// Puts the one widget of a simple field in it, edge to edge, so that the form's rows line up.
    void setEditor(QWidget* editor);
    /// Called from the widgets' change signals; ignores the changes made by setValue().
    void edited();
    bool isShowing() const { return m_showing; }

    QString m_path;
    bool m_required = false;
    bool m_item = false;

private:
    void updateForeignMarker();

    std::optional<QJsonValue> m_foreign;
    QString m_baseToolTip;
    bool m_showing = false;
};

/// Tooltip text: the description first, then the constraints the widget cannot show.
QString fieldToolTip(const QString& key, const InputSchema& field);

} // namespace mcpscope
