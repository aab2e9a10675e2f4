#pragma once

#include <QString>
#include <QStringView>

#include <cstddef>
#include <optional>
#include <span>

namespace mcpscope {

template <typename E> struct EnumName
{
    E value;
    QStringView name;
};

/// The stable names of one enum, from one table: name() and its inverse fromName() cannot disagree.
/// The names go into logs, exports and settings, so a table once shipped only grows. Lives in the
/// lowest layer so that every layer can name its enums the same way.
///
///     constexpr EnumName<Color> ColorEntries[] = { { Color::Red, u"red" }, { Color::Green, u"green" } };
///     constexpr EnumNames<Color> ColorNames(ColorEntries);
template <typename E> class EnumNames
{
public:
    template <std::size_t N>
    constexpr explicit EnumNames(const EnumName<E> (&entries)[N])
        : m_entries(entries)
    { }

    /// The name of a value, without copying it (the table's literals live as long as the program); empty
    /// for a value the table does not hold.
    QString name(E value) const
    {
        const QStringView view = nameView(value);
        return QString::fromRawData(view.data(), view.size());
    }

    constexpr QStringView nameView(E value) const
    {
        for (const EnumName<E>& entry : m_entries) {
            if (entry.value == value)
                return entry.name;
        }
        return {};
    }

    std::optional<E> fromName(QStringView name, Qt::CaseSensitivity cs = Qt::CaseSensitive) const
    {
        for (const EnumName<E>& entry : m_entries) {
            if (entry.name.compare(name, cs) == 0)
                return entry.value;
        }
        return std::nullopt;
    }

private:
    std::span<const EnumName<E>> m_entries;
};

} // namespace mcpscope
