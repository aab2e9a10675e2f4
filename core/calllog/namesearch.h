#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace mcpscope {

/// Finds any of some names (lowercase ASCII, none empty) in text, ignoring ASCII case. Runs over every
/// record and wire message, so each name is looked for by its rarest byte ("z" of "authorization", "k"
/// of "cookie"): memchr() finds that byte, in either case, a vector at a time, and the name is compared
/// only around it. Horspool's search, which looks at fewer bytes, took as long on call records (about 2
/// ns a byte): its test of each window's last byte is a branch the CPU cannot predict.
class NameSearch
{
public:
    explicit NameSearch(const QList<QByteArray>& names)
    {
        // A name that contains another ("set-cookie", "cookie") is found whenever it is: only the shorter
        // one is searched for.
        for (const QByteArray& name : names) {
            const bool redundant = std::any_of(names.cbegin(), names.cend(),
                [&name](const QByteArray& other) { return other.size() < name.size() && name.contains(other); });
            if (redundant || name.isEmpty()
                || std::any_of(m_names.cbegin(), m_names.cend(), [&name](const Anchored& a) { return a.name == name; }))
                continue;
            qsizetype at = 0;
            for (qsizetype j = 1; j < name.size(); ++j) {
                if (commonness(name.at(j)) < commonness(name.at(at)))
                    at = j;
            }
            m_names.append({ name, at });
        }
    }

    /// The longest name, or 0 when there are none.
    qsizetype longest() const
    {
        qsizetype longest = 0;
        for (const Anchored& a : m_names)
            longest = std::max(longest, a.name.size());
        return longest;
    }

    bool foundIn(QByteArrayView text) const
    {
        for (const Anchored& a : m_names) {
            const char lower = a.name.at(a.at);
            const char upper = asciiUpper(lower);
            if (foundBy(text, a, lower) || (upper != lower && foundBy(text, a, upper)))
                return true;
        }
        return false;
    }

private:
    struct Anchored
    {
        QByteArray name;
        qsizetype at = 0; ///< the index of the name's rarest byte
    };

    static char asciiLower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
    static char asciiUpper(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

    /// How often a byte turns up in JSON text, as a rank: letters by their frequency in English, from
    /// "z" (0) to "e" (25); digits, punctuation and anything else count as common.
    static int commonness(char c)
    {
        static constexpr std::string_view Letters = "zqjxkvbpygfwmucldrhsnioate";
        const std::size_t rank = Letters.find(asciiLower(c));
        return rank == std::string_view::npos ? int(Letters.size()) : int(rank);
    }

    /// Whether a.name occurs in text with its rarest byte as c.
    static bool foundBy(QByteArrayView text, const Anchored& a, char c)
    {
        const qsizetype size = a.name.size();
        if (text.size() < size)
            return false;
        const char* data = text.data();
        // The anchor of a match at i is at i + a.at, with 0 <= i <= text.size() - size.
        const char* p = data + a.at;
        const char* const end = data + (text.size() - size) + a.at + 1;
        while (p < end) {
            p = static_cast<const char*>(std::memchr(p, c, std::size_t(end - p)));
            if (!p)
                return false;
            const char* start = p - a.at;
            qsizetype k = 0;
            while (k < size && asciiLower(start[k]) == a.name.at(k))
                ++k;
            if (k == size)
                return true;
            ++p;
        }
        return false;
    }

    QList<Anchored> m_names;
};

} // namespace mcpscope
