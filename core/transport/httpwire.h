#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

#include <utility>

namespace mcpscope {

/// HTTP/1.1 message framing shared by the engine's HTTP client, the fault proxy and its control server,
/// which need the raw wire: Qt's network access manager re-sends POSTs on its own and cannot cut a response.
namespace HttpWire {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

/// The first value of a header, matched case-insensitively; empty when absent.
QByteArray header(const HeaderList& headers, QByteArrayView name);
/// Whether a comma-separated header (Connection, Transfer-Encoding) lists token.
bool headerHasToken(const HeaderList& headers, QByteArrayView name, QByteArrayView token);
/// Headers that belong to one hop and are never forwarded (RFC 9110 §7.6.1), plus framing headers the
/// proxy sets itself and any header the Connection header names.
HeaderList endToEndHeaders(const HeaderList& headers);
QByteArray reasonPhrase(int status);
/// n in decimal, as QByteArray::number(n) writes it, for the Content-Length of every request: Qt's
/// general conversion costs several times the rest of the header line.
QByteArray decimal(qint64 n);
/// One chunk of a chunked body; an empty data gives the terminating chunk.
QByteArray chunk(QByteArrayView data);

/// Incremental reader of one HTTP/1.1 request or response: head, then the body in Content-Length,
/// chunked or until-close framing. Body bytes are handed out as they arrive (takeBody), so streams
/// pass through without being buffered.
class MessageReader
{
public:
    enum class Kind { Request, Response };
    enum class Framing { None, Length, Chunked, UntilClose };

    explicit MessageReader(Kind kind);

    /// Appends bytes. Returns false once the message is malformed (error() says why).
    bool feed(QByteArrayView bytes);
    /// The peer closed its side: completes an until-close body. Returns whether the message is complete.
    bool closeReceived();
    /// A response to HEAD has no body whatever its headers say; call before the head arrives.
    void setNoBody() { m_noBody = true; }

    bool headComplete() const { return m_state != State::Head; }
    bool complete() const { return m_state == State::Done; }
    bool failed() const { return m_state == State::Error; }
    const QString& error() const { return m_error; }
    Framing framing() const { return m_framing; }
    qint64 contentLength() const { return m_contentLength; }
    qint64 bodyBytesSeen() const { return m_bodyBytesSeen; }

    /// Decoded body bytes received since the last call.
    QByteArray takeBody() { return std::exchange(m_body, {}); }
    /// Bytes after the end of a complete message (the next request on a kept-alive connection).
    QByteArray takeRemainder() { return std::exchange(m_buffer, {}); }

    QByteArray method; ///< requests
    QByteArray target; ///< requests: origin-form path and query
    QByteArray version; ///< "HTTP/1.1"
    int status = 0; ///< responses
    QByteArray reason; ///< responses
    HeaderList headers;

private:
    enum class State { Head, Body, ChunkSize, ChunkData, ChunkDataEnd, Trailers, Done, Error };

    bool parseHead(QByteArrayView head);
    bool fail(const QString& error);
    void process();

    Kind m_kind;
    State m_state = State::Head;
    Framing m_framing = Framing::None;
    QByteArray m_buffer;
    QByteArray m_body;
    QString m_error;
    qint64 m_contentLength = -1;
    qint64 m_remaining = 0;
    qint64 m_bodyBytesSeen = 0;
    /// Bytes at the head of m_buffer already searched for the end of the message head, so that a head
    /// trickling in byte by byte is scanned once, not once per read.
    qsizetype m_headScanned = 0;
    bool m_noBody = false;
};

} // namespace HttpWire

} // namespace mcpscope
