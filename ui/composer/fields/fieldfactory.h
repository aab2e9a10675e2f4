#pragma once

class QWidget;

namespace mcpscope {

class FormField;
struct InputSchema;

/// The widget that edits @p field, chosen by its kind; a raw JSON editor for what the form cannot
/// express. @p item marks an array's item, which always has a value (null when left empty).
FormField* createField(const InputSchema& field, bool required, bool item, QWidget* parent);

} // namespace mcpscope
