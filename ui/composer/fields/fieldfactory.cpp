#include "fieldfactory.h"

#include "arrayfield.h"
#include "boolfield.h"
#include "enumfield.h"
#include "enumsetfield.h"
#include "numberfield.h"
#include "objectfield.h"
#include "rawjsonfield.h"
#include "stringfield.h"

namespace mcpscope {

FormField* createField(const InputSchema& field, bool required, bool item, QWidget* parent)
{
    using Kind = InputSchema::Kind;
    switch (field.kind) {
    case Kind::String:
        return new StringField(field, required, item, parent);
    case Kind::Number:
    case Kind::Integer:
        return new NumberField(field, required, item, parent);
    case Kind::Boolean:
        return new BoolField(field, required, item, parent);
    case Kind::Enum:
        return new EnumField(field, required, item, parent);
    case Kind::EnumSet:
        return new EnumSetField(field, required, item, parent);
    case Kind::Array:
        return new ArrayField(field, required, item, parent);
    case Kind::Object:
        return new ObjectField(field, false, required, item, parent);
    case Kind::Raw:
        break;
    }
    return new RawJsonField(field, required, item, parent);
}

} // namespace mcpscope
