#include "storedstring.h"

#include <QCborStreamWriter>
#include <QIODevice>

namespace mcpscope {

namespace {

/// Takes the CBOR encoding of one text string and passes its payload to a sink: the header (major type 3
/// and a definite length) is read and dropped, whatever pieces the writer splits it into.
class TextStringTap final : public QIODevice
{
public:
    explicit TextStringTap(const std::function<void(QByteArrayView)>& sink)
        : m_sink(sink)
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }

    bool complete() const { return m_state == State::Done; }

protected:
    qint64 readData(char*, qint64) override { return -1; }

    qint64 writeData(const char* data, qint64 size) override
    {
        qint64 at = 0;
        while (at < size) {
            switch (m_state) {
            case State::Header: {
                const uchar initial = uchar(data[at++]);
                const uchar info = initial & 0x1f;
                if ((initial >> 5) != 3 || info > 27) { // not a text string, or one of indefinite length
                    m_state = State::Bad;
                    break;
                }
                if (info < 24) {
                    m_left = info;
                    m_state = m_left == 0 ? State::Done : State::Payload;
                } else {
                    m_lengthBytes = 1 << (info - 24);
                    m_state = State::Length;
                }
                break;
            }
            case State::Length:
                m_left = (m_left << 8) | uchar(data[at++]);
                if (--m_lengthBytes == 0)
                    m_state = m_left == 0 ? State::Done : State::Payload;
                break;
            case State::Payload: {
                const qint64 n = std::min<quint64>(m_left, quint64(size - at));
                m_sink(QByteArrayView(data + at, n));
                at += n;
                m_left -= quint64(n);
                if (m_left == 0)
                    m_state = State::Done;
                break;
            }
            case State::Done:
            case State::Bad:
                return size;
            }
        }
        return size;
    }

private:
    enum class State { Header, Length, Payload, Done, Bad };
    const std::function<void(QByteArrayView)>& m_sink;
    State m_state = State::Header;
    int m_lengthBytes = 0;
    quint64 m_left = 0;
};

} // namespace

bool storedStringUtf8(const QCborValue& value, const std::function<void(QByteArrayView)>& sink)
{
    if (!value.isString())
        return false;
    TextStringTap tap(sink);
    QCborStreamWriter writer(&tap);
    value.toCbor(writer);
    return tap.complete();
}

QByteArray storedStringUtf8(const QCborValue& value)
{
    if (!value.isString())
        return {};
    QByteArray bytes(0, Qt::Uninitialized); // not null: an empty string is still a string
    storedStringUtf8(value, [&bytes](QByteArrayView piece) {
        // The usual case is one piece, the whole string: one allocation of its size.
        if (bytes.isEmpty())
            bytes = piece.toByteArray();
        else
            bytes.append(piece);
    });
    return bytes;
}

} // namespace mcpscope
