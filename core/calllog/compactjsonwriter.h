#pragma once

// The call log's JSON writer: CallRecord::toCompactJson() writes each record with it, without building the
// QJsonObject tree first.

#include "storedstring.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QCborArray>
#include <QCborMap>
#include <QCborValue>
#include <QChar>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QLocale>
#include <QStringView>
#include <QSysInfo>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <functional>
#include <iterator>
#include <utility>

namespace mcpscope {

/// Appends JSON text exactly as QJsonDocument::toJson(Compact) writes it (qjsonwriter.cpp): members in
/// the order a QJsonObject keeps them (sorted by key), integers in decimal, other numbers in the shortest
/// form that reads back the same ("null" when not finite), strings as UTF-8 with '"', '\\' and the
/// control characters escaped, and a UTF-16 unit that is no valid character (a lone surrogate) as \uXXXX.
class CompactWriter
{
public:
    /// The buffer starts at reserve bytes (untouched pages of it cost no memory) and doubles when full.
    /// reserve() first: resize() alone rounds a 22 MB buffer up to 32 MiB.
    CompactWriter(const CompactWriter&) = delete;
    CompactWriter& operator=(const CompactWriter&) = delete;
    explicit CompactWriter(qsizetype reserve)
    {
        m_out.reserve(std::max<qsizetype>(reserve, 64));
        resizeBuffer(m_out.capacity());
    }
    /// Writes after buffer's bytes, in its allocation when that is not shared and has room for reserve more.
    CompactWriter(QByteArray&& buffer, qsizetype reserve)
        : m_out(std::move(buffer))
        , m_size(m_out.size())
    {
        const qsizetype wanted = m_size + std::max<qsizetype>(reserve, 64);
        if (m_out.capacity() < wanted)
            m_out.reserve(wanted);
        resizeBuffer(m_out.capacity());
    }

    QByteArray take()
    {
        m_out.truncate(m_size);
        m_size = 0;
        m_data = nullptr;
        m_capacity = 0;
        return std::move(m_out);
    }

    /// From now on the buffer is not grown to hold the whole text: whenever it is full, what it holds goes
    /// to drain and the buffer starts over, so the text passes through it a piece at a time (the size given
    /// to the constructor, or more for one piece that needs more). finish() hands over the last piece; take()
    /// is not for a drained writer. For a large call record, which the log compresses as it is written
    /// instead of holding its whole text next to the record.
    void setDrain(std::function<void(QByteArrayView)> drain) { m_drain = std::move(drain); }
    void finish()
    {
        if (m_drain && m_size > 0)
            m_drain(QByteArrayView(m_data, m_size));
        m_size = 0;
    }

    void raw(char c) { *room(1) = c; }
    void raw(QByteArrayView text) { put(text.data(), text.size()); }

    /// Starts the member key: a comma before every member but the first.
    void key(QByteArrayView name, bool* first)
    {
        if (!*first)
            raw(',');
        *first = false;
        raw('"');
        put(name.data(), name.size());
        put("\":", 2);
    }

    void integer(qint64 value)
    {
        char digits[24];
        const auto result = std::to_chars(std::begin(digits), std::end(digits), value);
        put(digits, result.ptr - digits);
    }

    void boolean(bool value) { value ? put("true", 4) : put("false", 5); }

    void string(QStringView text)
    {
        raw('"');
        const char16_t* src = text.utf16();
        const char16_t* const end = src + text.size();
        while (src != end) {
            // Room for a slice at a time, so a 50 MB result does not reserve six times its size at once: each
            // UTF-16 unit becomes at most 6 bytes (\u001f, or \uXXXX for a lone surrogate); a surrogate pair
            // that reaches past the slice writes 4 bytes for the 6 of its first unit.
            const char16_t* const slice = src + std::min<qsizetype>(end - src, 4096);
            char* cursor = room(6 * (slice - src));
            while (src < slice) {
                if (slice - src >= 4) {
                    const int plain = plainAscii4(src, cursor);
                    src += plain;
                    cursor += plain;
                    if (plain == 4)
                        continue;
                }
                const char16_t u = *src++;
                if (u < 0x80) {
                    cursor = ascii(cursor, char(u));
                } else if (u < 0x800) {
                    *cursor++ = char(0xc0 | (u >> 6));
                    *cursor++ = char(0x80 | (u & 0x3f));
                } else if (!QChar::isSurrogate(u)) {
                    *cursor++ = char(0xe0 | (u >> 12));
                    *cursor++ = char(0x80 | ((u >> 6) & 0x3f));
                    *cursor++ = char(0x80 | (u & 0x3f));
                } else if (QChar::isHighSurrogate(u) && src != end && QChar::isLowSurrogate(*src)) {
                    const char32_t ucs = QChar::surrogateToUcs4(u, *src++);
                    *cursor++ = char(0xf0 | (ucs >> 18));
                    *cursor++ = char(0x80 | ((ucs >> 12) & 0x3f));
                    *cursor++ = char(0x80 | ((ucs >> 6) & 0x3f));
                    *cursor++ = char(0x80 | (ucs & 0x3f));
                } else {
                    *cursor++ = '\\';
                    cursor = hex4(cursor, u);
                }
            }
            m_size = cursor - m_data;
        }
        raw('"');
    }

    /// UTF-8 bytes as string() writes QString::fromUtf8 of them: pure ASCII straight from the bytes (the
    /// usual JSON-RPC line), anything else through QString, where a bad sequence becomes U+FFFD.
    void utf8String(QByteArrayView text) { bytesString(text, &QString::fromUtf8); }
    /// Latin-1 bytes as string() writes QString::fromLatin1 of them (an HTTP header's name).
    void latin1String(QByteArrayView text) { bytesString(text, &QString::fromLatin1); }

    /// Strings are read from the parsed document's own storage (storedStringUtf8()) instead of through
    /// QJsonValue::toString(), which builds a UTF-16 copy of each: for a large answer, where that copy of a
    /// 20 MB text is 40 MB and 12 ms. The output is the same. Costs a little more per string, so it is for
    /// records that are large.
    void setStringsFromStorage(bool fromStorage) { m_fromStorage = fromStorage; }
    /// An answer from this size on makes a record large enough for setStringsFromStorage().
    static constexpr qint64 LargeAnswerBytes = 64 * 1024;
    /// memoizedObject() keeps objects of at most this many members and bytes.
    static constexpr qsizetype MemoMaxMembers = 8;
    static constexpr qsizetype MemoMaxBytes = 1024;

    void value(const QJsonValue& value)
    {
        switch (value.type()) {
        case QJsonValue::Bool:
            boolean(value.toBool());
            break;
        case QJsonValue::Double: {
            // QJsonValue keeps integers apart from doubles; Qt writes the two differently.
            const QCborValue number = QCborValue::fromJsonValue(value);
            if (number.isInteger()) {
                integer(number.toInteger());
            } else {
                const double d = number.toDouble();
                if (qIsFinite(d))
                    raw(QByteArray::number(d, 'g', QLocale::FloatingPointShortest));
                else
                    put("null", 4);
            }
            break;
        }
        case QJsonValue::String:
            string(value.toString());
            break;
        case QJsonValue::Array:
            array(value.toArray());
            break;
        case QJsonValue::Object:
            object(value.toObject());
            break;
        default:
            put("null", 4);
            break;
        }
    }

    void array(const QJsonArray& array)
    {
        raw('[');
        open();
        bool first = true;
        const QCborArray stored = m_fromStorage ? QCborArray::fromJsonArray(array) : QCborArray();
        auto storedItem = stored.constBegin();
        for (const QJsonValue& item : array) {
            member(&first);
            if (!m_fromStorage || item.type() != QJsonValue::String || !storedString(*storedItem))
                value(item);
            if (m_fromStorage)
                ++storedItem;
        }
        close(first);
        raw(']');
    }

    void object(const QJsonObject& object)
    {
        raw('{');
        open();
        bool first = true;
        // The same container seen as CBOR: the same members in the same order.
        const QCborMap stored = m_fromStorage ? QCborMap::fromJsonObject(object) : QCborMap();
        auto storedMember = stored.constBegin();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            member(&first);
            string(it.key());
            m_indented ? put(": ", 2) : raw(':');
            if (!m_fromStorage || it.value().type() != QJsonValue::String || !storedString(storedMember.value()))
                value(it.value());
            if (m_fromStorage)
                ++storedMember;
        }
        close(first);
        raw('}');
    }

    /// object(), for a call record's top-level members (arguments, annotations, result): the last few small
    /// objects this thread wrote compactly are kept with their bytes. A call repeated from a load run, a
    /// script or the window carries the same arguments and annotations objects call after call (shared
    /// data: QJsonObject compares them by pointer), and often an equal result. Writing them key by key cost
    /// 6,000 of the record's 19,000 instructions (bench_stdiocall, callgrind), each key and string a QString
    /// allocated for the occasion. Other objects compare member by member, stopping at the first difference;
    /// equal members are the same bytes.
    void memoizedObject(const QJsonObject& object)
    {
        if (m_indented || m_fromStorage || m_drain || object.size() > MemoMaxMembers) {
            this->object(object);
            return;
        }
        struct Entry
        {
            QJsonObject object;
            QByteArray bytes;
        };
        thread_local std::array<Entry, 4> memo;
        thread_local unsigned next = 0;
        for (const Entry& entry : memo) {
            if (!entry.bytes.isEmpty() && entry.object == object) {
                put(entry.bytes.constData(), entry.bytes.size());
                return;
            }
        }
        const qsizetype at = m_size;
        this->object(object);
        const qsizetype size = m_size - at;
        if (size <= MemoMaxBytes) {
            Entry& entry = memo[next++ % memo.size()];
            entry.object = object;
            entry.bytes = QByteArray(m_data + at, size);
        }
    }

    /// From now on arrays and objects are written as QJsonDocument::toJson(Indented) writes them: a member
    /// a line, four spaces a level, ": " after a key, and "[\n]" for an empty one. (A whole document there
    /// ends with a line break, which the caller adds.) For a large answer shown as text, where Qt's writer
    /// grows its buffer by doubling and would hold five times the answer at once.
    void setIndented(bool indented) { m_indented = indented; }
    bool indented() const { return m_indented; }

private:
    /// Writes a string from the document's storage as string() writes it. False, with nothing written,
    /// where the bytes cannot tell: a document keeps a string it parsed with escapes (or built with non-ASCII
    /// text) as UTF-16, and the conversion to UTF-8 turns a lone surrogate in it, which string() writes as
    /// \uXXXX, into '?' or U+FFFD. So a text holding either goes the QString way.
    bool storedString(const QCborValue& stored)
    {
        if (m_drain) {
            // What is drained cannot be taken back: look first, then write.
            if (!plainStored(stored))
                return false;
            raw('"');
            storedStringUtf8(stored, [this](QByteArrayView piece) { validUtf8(piece); });
            raw('"');
            return true;
        }
        const qsizetype mark = m_size;
        raw('"');
        const bool whole = storedStringUtf8(stored, [this](QByteArrayView piece) { validUtf8(piece); });
        const QByteArrayView written(m_data + mark, m_size - mark);
        if (!whole || written.contains('?') || written.contains(QByteArrayView("\xef\xbf\xbd"))) {
            m_size = mark;
            return false;
        }
        raw('"');
        return true;
    }

    /// Whether a stored string is whole and holds neither '?' nor U+FFFD, which storedString() cannot tell
    /// from a converted lone surrogate. U+FFFD may straddle two pieces: the last two bytes of one are
    /// looked at with the first two of the next.
    static bool plainStored(const QCborValue& stored)
    {
        static constexpr QByteArrayView Replacement("\xef\xbf\xbd");
        bool plain = true;
        QByteArray seam; // the last two bytes before the piece
        const bool whole = storedStringUtf8(stored, [&](QByteArrayView piece) {
            if (!plain || piece.isEmpty())
                return;
            const QByteArray joined = seam + piece.first(std::min<qsizetype>(2, piece.size())).toByteArray();
            plain = !piece.contains('?') && !piece.contains(Replacement) && !joined.contains(Replacement);
            seam = piece.size() >= 2 ? piece.last(2).toByteArray() : QByteArray(seam + piece.toByteArray()).right(2);
        });
        return whole && plain;
    }

    /// Valid UTF-8 as string() writes its text: ASCII escaped where JSON needs it, the rest as it is.
    void validUtf8(QByteArrayView text)
    {
        const char* src = text.data();
        const char* const end = src + text.size();
        while (src != end) {
            // A slice at a time, as in string(): each byte becomes at most 6 (\u001f).
            const char* const slice = src + std::min<qsizetype>(end - src, 4096);
            char* cursor = room(6 * (slice - src));
            while (src < slice) {
                if (slice - src >= 8) {
                    const int plain = plainBytes8(src, cursor);
                    src += plain;
                    cursor += plain;
                    if (plain == 8)
                        continue;
                }
                cursor = ascii(cursor, *src++);
            }
            m_size = cursor - m_data;
        }
    }

    void open()
    {
        if (m_indented)
            raw('\n');
        ++m_depth;
    }
    /// Before a member: the comma, and in indented mode the line break and the indentation.
    void member(bool* first)
    {
        if (!*first)
            m_indented ? put(",\n", 2) : raw(',');
        *first = false;
        if (m_indented)
            indent();
    }
    void close(bool empty)
    {
        --m_depth;
        if (!m_indented)
            return;
        if (!empty)
            raw('\n');
        indent();
    }
    void indent() { std::fill_n(room(4 * m_depth), 4 * m_depth, ' '); }

    /// Bytes in an encoding that is ASCII below 0x80: ASCII text straight from them, anything else through
    /// the QString that decode makes of them.
    void bytesString(QByteArrayView text, QString (*decode)(QByteArrayView))
    {
        if (hasNonAscii(text)) {
            string(decode(text));
            return;
        }
        raw('"');
        validUtf8(text);
        raw('"');
    }

    /// Whether any byte is from 0x80 up: eight at a time, with no branch per byte (a byte-wise scan was a
    /// quarter of the cost of writing a record's stdio lines).
    static bool hasNonAscii(QByteArrayView text)
    {
        const char* p = text.data();
        const char* const end = p + text.size();
        quint64 seen = 0;
        for (; end - p >= 8; p += 8) {
            quint64 word;
            std::memcpy(&word, p, 8);
            seen |= word;
        }
        for (; p != end; ++p)
            seen |= uchar(*p);
        return seen & 0x8080808080808080ULL;
    }

    /// The bytes of word that JSON text cannot hold as they are ('"', '\\', control characters), each
    /// marked by its high bit; bytes from 0x80 up are not marked (UTF-8 goes as it is). All bytes at once,
    /// without a branch per byte, by the "has a byte less than n" and "has a zero byte" tests of Bit
    /// Twiddling Hacks. Only the lowest mark is sure to be right (a borrow can mark bytes above a
    /// marked one), and only the lowest is used.
    template <typename Word> static Word escapeMarks(Word word)
    {
        constexpr Word Ones = Word(~Word(0)) / 0xff;
        constexpr Word High = Ones * 0x80;
        const auto zeroMarks = [](Word v) { return (v - Ones) & ~v & High; };
        return ((word - Ones * 0x20) & ~word & High) | zeroMarks(word ^ (Ones * '"')) | zeroMarks(word ^ (Ones * '\\'));
    }
    static constexpr bool LittleEndian = QSysInfo::ByteOrder == QSysInfo::LittleEndian;

    /// Text mostly needs no escape for many bytes in a row. These copy the leading bytes that need none,
    /// several at a time, and return how many they were; the caller writes the next one itself. Both
    /// write all 8 (or 4) bytes, past what they return, into room the caller has reserved.
    /// (Little-endian only: the first byte in memory is the lowest. Elsewhere they copy nothing.)
    static int plainBytes8(const char* src, char* cursor)
    {
        if constexpr (!LittleEndian)
            return 0;
        quint64 bytes;
        std::memcpy(&bytes, src, 8);
        std::memcpy(cursor, &bytes, 8);
        const quint64 marks = escapeMarks(bytes);
        return marks ? std::countr_zero(marks) / 8 : 8;
    }
    /// The same for UTF-16 units that are ASCII: four units, written as four bytes.
    static int plainAscii4(const char16_t* src, char* cursor)
    {
        if constexpr (!LittleEndian)
            return 0;
        quint64 units;
        std::memcpy(&units, src, 8);
        const auto bytes = quint32(
            (units & 0xff) | ((units >> 8) & 0xff00) | ((units >> 16) & 0xff0000) | ((units >> 24) & 0xff000000));
        std::memcpy(cursor, &bytes, 4);
        // A unit from 0x80 up stops the run as an escape does; its low byte, copied above, is written over.
        const quint64 wide = units & 0xff80ff80ff80ff80ULL;
        const quint32 marks = escapeMarks(bytes);
        return std::min(wide ? std::countr_zero(wide) / 16 : 4, marks ? std::countr_zero(marks) / 8 : 4);
    }

    /// One byte of ASCII or UTF-8 text as JSON holds it: itself, or its escape. Most bytes are themselves and
    /// '"' is common (a JSON-RPC line quoted as a string has one every few bytes), so those two and '\\' are
    /// written the same way, without a branch the CPU would mispredict at each quote: two bytes from a
    /// table, of which the cursor keeps one or two. Needs room for 6 bytes.
    static char* ascii(char* cursor, char c)
    {
        const Escape& e = Escapes[uchar(c)];
        if (e.length > 2) [[unlikely]]
            return escaped(cursor, char16_t(uchar(c)));
        std::memcpy(cursor, e.text, 2);
        return cursor + e.length;
    }

    struct Escape
    {
        char text[2];
        quint8 length; ///< 1 or 2; more for an escape that escaped() writes
    };
    static constexpr std::array<Escape, 256> Escapes = [] {
        std::array<Escape, 256> table {};
        for (int c = 0; c < 256; ++c)
            table[c] = { { char(c), 0 }, quint8(c < 0x20 ? 6 : 1) };
        table['"'] = { { '\\', '"' }, 2 };
        table['\\'] = { { '\\', '\\' }, 2 };
        for (const auto& [c, letter] : { std::pair('\b', 'b'), std::pair('\f', 'f'), std::pair('\n', 'n'),
                 std::pair('\r', 'r'), std::pair('\t', 't') })
            table[uchar(c)] = { { '\\', letter }, 2 };
        return table;
    }();

    /// The escape of a character below 0x80 that JSON text cannot hold as it is.
    static char* escaped(char* cursor, char16_t u)
    {
        *cursor++ = '\\';
        switch (u) {
        case '"':
        case '\\':
            *cursor++ = char(u);
            return cursor;
        case 0x8:
            *cursor++ = 'b';
            return cursor;
        case 0xc:
            *cursor++ = 'f';
            return cursor;
        case 0xa:
            *cursor++ = 'n';
            return cursor;
        case 0xd:
            *cursor++ = 'r';
            return cursor;
        case 0x9:
            *cursor++ = 't';
            return cursor;
        default:
            return hex4(cursor, u);
        }
    }

    static char* hex4(char* cursor, char16_t u)
    {
        constexpr char Digits[] = "0123456789abcdef";
        *cursor++ = 'u';
        *cursor++ = Digits[(u >> 12) & 0xf];
        *cursor++ = Digits[(u >> 8) & 0xf];
        *cursor++ = Digits[(u >> 4) & 0xf];
        *cursor++ = Digits[u & 0xf];
        return cursor;
    }

    /// Room for n more bytes at the end of what is written, which then counts them: the caller writes
    /// them (or sets m_size back to where it stopped). QByteArray::append() is a call into Qt per piece,
    /// and a small record is some 40 pieces; this is a compare and a memcpy.
    char* room(qsizetype n)
    {
        if (m_size + n > m_capacity) [[unlikely]]
            grow(n);
        char* at = m_data + m_size;
        m_size += n;
        return at;
    }
    void grow(qsizetype n)
    {
        if (m_drain) {
            finish();
            if (n > m_capacity)
                resizeBuffer(n);
        } else {
            resizeBuffer(std::max(m_capacity * 2, m_size + n));
        }
    }
    void resizeBuffer(qsizetype size)
    {
        m_out.resize(size);
        m_data = m_out.data();
        m_capacity = m_out.size();
    }
    void put(const char* data, qsizetype n) { std::memcpy(room(n), data, size_t(n)); }

    QByteArray m_out; ///< its size is the buffer's; m_size is what is written
    char* m_data = nullptr; ///< m_out's bytes, detached once when sized, not on every write
    qsizetype m_capacity = 0; ///< m_out's size
    qsizetype m_size = 0;
    bool m_indented = false;
    bool m_fromStorage = false;
    int m_depth = 0;
    std::function<void(QByteArrayView)> m_drain;
};

} // namespace mcpscope
