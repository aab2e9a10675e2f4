#include "transport/sseparser.h"

#include <QDebug>
#include <QTest>

#include <limits>

using namespace Qt::StringLiterals;

namespace mcpscope {

// Lets QCOMPARE print both event lists when they differ.
QDebug operator<<(QDebug debug, const SseEvent& event)
{
    const QDebugStateSaver saver(debug);
    debug.nospace() << "SseEvent(" << event.type << ", " << event.data << ", id=" << event.id
                    << (event.hasId ? ", hasId)" : ")");
    return debug;
}

} // namespace mcpscope

using mcpscope::SseEvent;
using mcpscope::SseParser;
using Events = QList<SseEvent>;

namespace {

SseEvent sse(
    const QByteArray& data, const QByteArray& type = "message"_ba, const QByteArray& id = {}, bool hasId = false)
{
    return SseEvent { type, data, id, hasId };
}

struct Outcome
{
    Events events;
    QByteArray lastEventId;
    bool hasLastEventId = false;
    int retryMs = -1;
    qsizetype bufferedBytes = 0;

    friend bool operator==(const Outcome&, const Outcome&) = default;
};

QDebug operator<<(QDebug debug, const Outcome& outcome)
{
    const QDebugStateSaver saver(debug);
    debug.nospace() << "Outcome(" << outcome.events << ", lastEventId=" << outcome.lastEventId
                    << ", hasLastEventId=" << outcome.hasLastEventId << ", retry=" << outcome.retryMs
                    << ", buffered=" << outcome.bufferedBytes << ')';
    return debug;
}

Outcome feedChunks(const QByteArrayList& chunks)
{
    SseParser parser;
    Outcome outcome;
    for (const QByteArray& chunk : chunks)
        outcome.events += parser.feed(chunk);
    outcome.lastEventId = parser.lastEventId();
    outcome.hasLastEventId = parser.hasLastEventId();
    outcome.retryMs = parser.retryMs();
    outcome.bufferedBytes = parser.bufferedBytes();
    return outcome;
}

QByteArrayList byteByByte(const QByteArray& stream)
{
    QByteArrayList chunks;
    chunks.reserve(stream.size());
    for (const char byte : stream)
        chunks.append(QByteArray(1, byte));
    return chunks;
}

// Failure text that names the chunking which broke, since a loop of QCOMPAREs would not.
QByteArray mismatch(const QString& how, const Outcome& actual, const Outcome& expected)
{
    QString text;
    QDebug(&text) << how << "\n   Actual:  " << actual << "\n   Expected:" << expected;
    return text.toUtf8();
}

// Modelled on what the MCP SDK servers put on the wire for a tools/call answered over SSE: a priming event carrying
// the resumption id and retry, a keep-alive comment, a progress notification, then the result. CRLF line ends as
// sse-starlette (the Python SDK) writes them; the result's JSON is split over two data: lines as servers that
// pretty-print do, and it holds multi-byte UTF-8 so chunk splits land inside sequences.
const QByteArray kRecordedStream
    = "id: 0f3c9a_0\r\n"
      "retry: 1500\r\n"
      "data: \r\n"
      "\r\n"
      ": ping - 2025-06-01 12:00:15.000000+00:00\r\n"
      "\r\n"
      "event: message\r\n"
      "id: 0f3c9a_1\r\n"
      "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
      "\"params\":{\"progressToken\":7,\"progress\":1,\"total\":2}}\r\n"
      "\r\n"
      "event: message\r\n"
      "id: 0f3c9a_2\r\n"
      "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\r\n"
      "data: \"text\":\"h\xC3\xA9llo \xE2\x9C\x93\"}],\"isError\":false}}\r\n"
      "\r\n"_ba;

} // namespace

class tst_SseParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void chunkBoundaries_data();
    void chunkBoundaries();
    void reset_data();
    void reset();
    void recordedStream_data();
    void recordedStream();
    void bufferedBytesCountsHeldLineAndData();
    void largeDataLineInSmallChunks();
};

void tst_SseParser::parse_data()
{
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<Events>("events");
    QTest::addColumn<QByteArray>("lastEventId");
    QTest::addColumn<int>("retryMs");

    const int noRetry = -1;

    QTest::newRow("single event") << "data: hello\n\n"_ba << Events { sse("hello"_ba) } << QByteArray() << noRetry;
    QTest::newRow("two events in one chunk")
        << "data: a\n\ndata: b\n\n"_ba << Events { sse("a"_ba), sse("b"_ba) } << QByteArray() << noRetry;
    QTest::newRow("multi-line data joined with LF")
        << "data: a\ndata: b\ndata: c\n\n"_ba << Events { sse("a\nb\nc"_ba) } << QByteArray() << noRetry;
    QTest::newRow("empty data line dispatches empty data")
        << "data:\n\n"_ba << Events { sse(QByteArray()) } << QByteArray() << noRetry;
    QTest::newRow("empty data line after data keeps its LF")
        << "data: a\ndata:\n\n"_ba << Events { sse("a\n"_ba) } << QByteArray() << noRetry;
    QTest::newRow("NUL in data is kept") << "data: a\0b\n\n"_ba << Events { sse("a\0b"_ba) } << QByteArray() << noRetry;

    QTest::newRow("event type") << "event: ping\ndata: x\n\n"_ba << Events { sse("x"_ba, "ping"_ba) } << QByteArray()
                                << noRetry;
    QTest::newRow("event type resets after dispatch")
        << "event: ping\ndata: 1\n\ndata: 2\n\n"_ba << Events { sse("1"_ba, "ping"_ba), sse("2"_ba) } << QByteArray()
        << noRetry;
    QTest::newRow("event type resets when nothing is dispatched")
        << "event: ping\n\ndata: 2\n\n"_ba << Events { sse("2"_ba) } << QByteArray() << noRetry;
    QTest::newRow("empty event type means message")
        << "event:\ndata: x\n\n"_ba << Events { sse("x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("last event field wins")
        << "event: a\nevent: b\ndata: x\n\n"_ba << Events { sse("x"_ba, "b"_ba) } << QByteArray() << noRetry;

    QTest::newRow("id sets last event id")
        << "id: 7\ndata: x\n\n"_ba << Events { sse("x"_ba, "message"_ba, "7"_ba, true) } << "7"_ba << noRetry;
    QTest::newRow("id persists across events")
        << "id: 7\ndata: x\n\ndata: y\n\n"_ba
        << Events { sse("x"_ba, "message"_ba, "7"_ba, true), sse("y"_ba, "message"_ba, "7"_ba) } << "7"_ba << noRetry;
    QTest::newRow("id containing NUL is ignored")
        << "id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"_ba
        << Events { sse("a"_ba, "message"_ba, "1"_ba, true), sse("b"_ba, "message"_ba, "1"_ba) } << "1"_ba << noRetry;
    QTest::newRow("empty id clears last event id")
        << "id: 1\ndata: a\n\nid:\ndata: b\n\n"_ba
        << Events { sse("a"_ba, "message"_ba, "1"_ba, true), sse("b"_ba, "message"_ba, QByteArray(), true) }
        << QByteArray() << noRetry;
    QTest::newRow("id is committed only on dispatch")
        << "id: 1\ndata: a\n\nid: 2\ndata: b\n"_ba << Events { sse("a"_ba, "message"_ba, "1"_ba, true) } << "1"_ba
        << noRetry;

    QTest::newRow("priming event skipped but id remembered")
        << "id: 0f3c9a_0\ndata: \n\n"_ba << Events {} << "0f3c9a_0"_ba << noRetry;
    QTest::newRow("priming event without data line") << "id: p\n\n"_ba << Events {} << "p"_ba << noRetry;
    QTest::newRow("priming event with retry then message")
        << "id: p\nretry: 500\ndata: \n\nevent: message\nid: q\ndata: {}\n\n"_ba
        << Events { sse("{}"_ba, "message"_ba, "q"_ba, true) } << "q"_ba << 500;
    QTest::newRow("empty data with NUL id is not priming")
        << "id: a\0b\ndata:\n\n"_ba << Events { sse(QByteArray()) } << QByteArray() << noRetry;

    QTest::newRow("retry valid") << "retry: 3000\n"_ba << Events {} << QByteArray() << 3000;
    QTest::newRow("retry zero") << "retry: 0\n"_ba << Events {} << QByteArray() << 0;
    QTest::newRow("retry with letters ignored") << "retry: 3000\nretry: 12a\n"_ba << Events {} << QByteArray() << 3000;
    QTest::newRow("retry negative ignored") << "retry: -5\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("retry fraction ignored") << "retry: 1.5\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("retry empty ignored") << "retry:\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("retry with trailing space ignored") << "retry: 10 \n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("retry with two leading spaces ignored") << "retry:  10\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("retry beyond int saturates")
        << "retry: 99999999999999999999\n"_ba << Events {} << QByteArray() << std::numeric_limits<int>::max();
    QTest::newRow("retry does not dispatch pending data")
        << "data: x\nretry: 10\n\n"_ba << Events { sse("x"_ba) } << QByteArray() << 10;

    QTest::newRow("comment line ignored")
        << ": keep-alive\ndata: x\n\n"_ba << Events { sse("x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("comment between data lines")
        << "data: a\n: note\ndata: b\n\n"_ba << Events { sse("a\nb"_ba) } << QByteArray() << noRetry;
    QTest::newRow("comments alone dispatch nothing") << ":\n\n: hi\n\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("blank lines alone dispatch nothing") << "\n\n\n"_ba << Events {} << QByteArray() << noRetry;

    QTest::newRow("LF line ends") << "data: a\ndata: b\n\n"_ba << Events { sse("a\nb"_ba) } << QByteArray() << noRetry;
    QTest::newRow("CRLF line ends") << "data: a\r\ndata: b\r\n\r\n"_ba << Events { sse("a\nb"_ba) } << QByteArray()
                                    << noRetry;
    QTest::newRow("CR line ends") << "data: a\rdata: b\r\r"_ba << Events { sse("a\nb"_ba) } << QByteArray() << noRetry;
    QTest::newRow("mixed line ends") << "data: a\r\ndata: b\rdata: c\n\r\nid: 1\rdata: d\n\r"_ba
                                     << Events { sse("a\nb\nc"_ba), sse("d"_ba, "message"_ba, "1"_ba, true) } << "1"_ba
                                     << noRetry;
    QTest::newRow("LF CR is two line ends")
        << "data: a\n\rdata: b\n\n"_ba << Events { sse("a"_ba), sse("b"_ba) } << QByteArray() << noRetry;
    QTest::newRow("CR CR LF is two line ends")
        << "data: a\r\r\ndata: b\n\n"_ba << Events { sse("a"_ba), sse("b"_ba) } << QByteArray() << noRetry;

    QTest::newRow("BOM at start skipped") << "\xEF\xBB\xBF"
                                             "data: x\n\n"_ba
                                          << Events { sse("x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("BOM skipped only once") << "\xEF\xBB\xBF\xEF\xBB\xBF"
                                              "data: x\n\ndata: y\n\n"_ba
                                           << Events { sse("y"_ba) } << QByteArray() << noRetry;
    QTest::newRow("BOM in data kept") << "data: \xEF\xBB\xBFx\n\n"_ba << Events { sse("\xEF\xBB\xBFx"_ba) }
                                      << QByteArray() << noRetry;
    QTest::newRow("BOM at start of a later line kept") << "data: a\n\n\xEF\xBB\xBF"
                                                          "data: b\n\n"_ba
                                                       << Events { sse("a"_ba) } << QByteArray() << noRetry;
    QTest::newRow("BOM prefix at start is part of the first field name")
        << "\xEF\xBB"
           "data: x\n\ndata: y\n\n"_ba
        << Events { sse("y"_ba) } << QByteArray() << noRetry;

    QTest::newRow("field without colon has empty value")
        << "data\n\n"_ba << Events { sse(QByteArray()) } << QByteArray() << noRetry;
    QTest::newRow("two data fields without colon")
        << "data\ndata\n\n"_ba << Events { sse("\n"_ba) } << QByteArray() << noRetry;
    QTest::newRow("no space after colon") << "data:x\n\n"_ba << Events { sse("x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("one space after colon removed")
        << "data: x\n\n"_ba << Events { sse("x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("only one space after colon removed")
        << "data:  x\n\n"_ba << Events { sse(" x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("tab after colon kept") << "data:\tx\n\n"_ba << Events { sse("\tx"_ba) } << QByteArray() << noRetry;
    QTest::newRow("space before colon is part of the name")
        << "data : x\n\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("trailing spaces kept") << "data: x  \n\n"_ba << Events { sse("x  "_ba) } << QByteArray() << noRetry;
    QTest::newRow("split on the first colon only")
        << "data: a: b\n\n"_ba << Events { sse("a: b"_ba) } << QByteArray() << noRetry;

    QTest::newRow("unknown field ignored")
        << "foo: bar\ndata: x\n\n"_ba << Events { sse("x"_ba) } << QByteArray() << noRetry;
    QTest::newRow("unknown field alone dispatches nothing")
        << "foo: bar\n\n"_ba << Events {} << QByteArray() << noRetry;
    QTest::newRow("field names are case-sensitive")
        << "Data: x\n\nEVENT: y\ndata: z\n\n"_ba << Events { sse("z"_ba) } << QByteArray() << noRetry;

    QTest::newRow("incomplete trailing event not emitted")
        << "data: a\n\ndata: b\n"_ba << Events { sse("a"_ba) } << QByteArray() << noRetry;
    QTest::newRow("unterminated trailing line not emitted")
        << "data: a\n\ndata: b"_ba << Events { sse("a"_ba) } << QByteArray() << noRetry;
    QTest::newRow("trailing CR completes the line but not the event")
        << "data: a\n\ndata: b\r"_ba << Events { sse("a"_ba) } << QByteArray() << noRetry;
}

void tst_SseParser::parse()
{
    QFETCH(QByteArray, stream);
    QFETCH(Events, events);
    QFETCH(QByteArray, lastEventId);
    QFETCH(int, retryMs);

    const Outcome whole = feedChunks({ stream });
    QCOMPARE(whole.events, events);
    QCOMPARE(whole.lastEventId, lastEventId);
    QCOMPARE(whole.hasLastEventId, !lastEventId.isEmpty());
    QCOMPARE(whole.retryMs, retryMs);

    // Every row doubles as a chunking test: any split must give the same result as one feed.
    const Outcome bytewise = feedChunks(byteByByte(stream));
    if (bytewise != whole)
        QFAIL(mismatch(u"byte by byte"_s, bytewise, whole).constData());
    for (qsizetype at = 1; at < stream.size(); ++at) {
        const Outcome split = feedChunks({ stream.first(at), stream.sliced(at) });
        if (split != whole)
            QFAIL(mismatch(u"split at "_s + QString::number(at), split, whole).constData());
    }
}

void tst_SseParser::chunkBoundaries_data()
{
    QTest::addColumn<QByteArrayList>("chunks");
    QTest::addColumn<Events>("events");

    QTest::newRow("CRLF split between chunks is one line end")
        << QByteArrayList { "data: a\r"_ba, "\ndata: b\r\n\r\n"_ba } << Events { sse("a\nb"_ba) };
    QTest::newRow("CRLF split with an empty chunk between")
        << QByteArrayList { "data: a\r"_ba, QByteArray(), "\ndata: b\r\n\r\n"_ba } << Events { sse("a\nb"_ba) };
    QTest::newRow("CR at chunk end then CR is two line ends")
        << QByteArrayList { "data: a\r"_ba, "\rdata: b\n\n"_ba } << Events { sse("a"_ba), sse("b"_ba) };
    QTest::newRow("CR at chunk end then data is one line end")
        << QByteArrayList { "data: a\r"_ba, "data: b\r\r"_ba } << Events { sse("a\nb"_ba) };
    QTest::newRow("LF after a consumed CRLF is a blank line")
        << QByteArrayList { "data: a\r\n"_ba, "\ndata: b\n\n"_ba } << Events { sse("a"_ba), sse("b"_ba) };
    QTest::newRow("line split inside field name")
        << QByteArrayList { "da"_ba, "ta: x\n\n"_ba } << Events { sse("x"_ba) };
    QTest::newRow("line split after colon before space")
        << QByteArrayList { "data:"_ba, " x\n\n"_ba } << Events { sse("x"_ba) };
    QTest::newRow("UTF-8 sequence split between chunks")
        << QByteArrayList { "data: \xE2\x9C"_ba, "\x93\n\n"_ba } << Events { sse("\xE2\x9C\x93"_ba) };
    QTest::newRow("BOM split between chunks") << QByteArrayList { "\xEF"_ba, "\xBB"_ba,
        "\xBF"
        "data: x\n\n"_ba } << Events { sse("x"_ba) };
    QTest::newRow("BOM prefix is part of the first field name")
        << QByteArrayList { "\xEF\xBB"_ba, "data: x\n\ndata: y\n\n"_ba } << Events { sse("y"_ba) };
    QTest::newRow("empty chunks are harmless")
        << QByteArrayList { QByteArray(), "data: x\n"_ba, QByteArray(), "\n"_ba } << Events { sse("x"_ba) };
}

void tst_SseParser::chunkBoundaries()
{
    QFETCH(QByteArrayList, chunks);
    QFETCH(Events, events);

    QCOMPARE(feedChunks(chunks).events, events);
}

void tst_SseParser::reset_data()
{
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("after");
    QTest::addColumn<Events>("events");
    QTest::addColumn<QByteArray>("lastEventId");
    QTest::addColumn<int>("retryMs");

    QTest::newRow("reset keeps last event id and retry")
        << "id: 5\nretry: 200\ndata: a\n\n"_ba
        << "data: b\n\n"_ba << Events { sse("b"_ba, "message"_ba, "5"_ba) } << "5"_ba << 200;
    QTest::newRow("reset keeps the id of a priming event")
        << "id: p\nretry: 10\ndata: \n\n"_ba << QByteArray() << Events {} << "p"_ba << 10;
    QTest::newRow("reset discards a partial line") << "data: a\n\ndata: part"_ba
                                                   << "ial\n\n"_ba << Events {} << QByteArray() << -1;
    QTest::newRow("reset discards undispatched data and type")
        << "event: ping\ndata: a\n"_ba
        << "data: b\n\n"_ba << Events { sse("b"_ba) } << QByteArray() << -1;
    QTest::newRow("reset discards an uncommitted id")
        << "id: 1\ndata: a\n\nid: 2\ndata: b\n"_ba
        << "data: c\n\n"_ba << Events { sse("c"_ba, "message"_ba, "1"_ba) } << "1"_ba << -1;
    QTest::newRow("reset re-arms BOM skipping") << "data: a\n\n"_ba
                                                << "\xEF\xBB\xBF"
                                                   "data: b\n\n"_ba
                                                << Events { sse("b"_ba) } << QByteArray() << -1;
    QTest::newRow("reset forgets a partial BOM") << "\xEF\xBB"_ba
                                                 << "\xBF"
                                                    "data: b\n\n"_ba
                                                 << Events {} << QByteArray() << -1;
}

void tst_SseParser::reset()
{
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, after);
    QFETCH(Events, events);
    QFETCH(QByteArray, lastEventId);
    QFETCH(int, retryMs);

    SseParser parser;
    (void)parser.feed(before);
    parser.reset();
    QCOMPARE(parser.bufferedBytes(), 0);
    QCOMPARE(parser.feed(after), events);
    QCOMPARE(parser.lastEventId(), lastEventId);
    QCOMPARE(parser.hasLastEventId(), !lastEventId.isEmpty());
    QCOMPARE(parser.retryMs(), retryMs);
}

void tst_SseParser::recordedStream_data()
{
    QTest::addColumn<QByteArrayList>("chunks");

    QTest::newRow("whole") << QByteArrayList { kRecordedStream };
    QTest::newRow("byte by byte") << byteByByte(kRecordedStream);
    for (qsizetype at = 1; at < kRecordedStream.size(); ++at) {
        QTest::addRow("split at %lld", qlonglong(at))
            << QByteArrayList { kRecordedStream.first(at), kRecordedStream.sliced(at) };
    }
}

void tst_SseParser::recordedStream()
{
    QFETCH(QByteArrayList, chunks);

    const Events expected {
        sse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
            "\"params\":{\"progressToken\":7,\"progress\":1,\"total\":2}}"_ba,
            "message"_ba, "0f3c9a_1"_ba, true),
        sse("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\n"
            "\"text\":\"h\xC3\xA9llo \xE2\x9C\x93\"}],\"isError\":false}}"_ba,
            "message"_ba, "0f3c9a_2"_ba, true),
    };

    const Outcome outcome = feedChunks(chunks);
    QCOMPARE(outcome.events, expected);
    QCOMPARE(outcome.lastEventId, "0f3c9a_2"_ba);
    QVERIFY(outcome.hasLastEventId);
    QCOMPARE(outcome.retryMs, 1500);
    QCOMPARE(outcome.bufferedBytes, 0);
}

void tst_SseParser::bufferedBytesCountsHeldLineAndData()
{
    SseParser parser;
    QCOMPARE(parser.bufferedBytes(), 0);

    QVERIFY(parser.feed("data: a\ndata: b"_ba).isEmpty());
    QCOMPARE(parser.bufferedBytes(), "a\n"_ba.size() + "data: b"_ba.size());

    QCOMPARE(parser.feed("\n\n"_ba), Events { sse("a\nb"_ba) });
    QCOMPARE(parser.bufferedBytes(), 0);

    // A comment keep-alive held mid-line still counts: callers cap bytes, not meaning.
    QVERIFY(parser.feed(": keep"_ba).isEmpty());
    QCOMPARE(parser.bufferedBytes(), 6);
    QVERIFY(parser.feed("-alive\n"_ba).isEmpty());
    QCOMPARE(parser.bufferedBytes(), 0);
}

void tst_SseParser::largeDataLineInSmallChunks()
{
    constexpr qsizetype payloadSize = qsizetype(5) * 1024 * 1024;
    constexpr qsizetype chunkSize = 4096;

    // A non-repeating-at-chunk-size pattern, so a dropped or duplicated chunk cannot go unnoticed.
    QByteArray payload(payloadSize, Qt::Uninitialized);
    for (qsizetype i = 0; i < payloadSize; ++i)
        payload[i] = char('a' + (i * 7 + i / 4099) % 26);
    const QByteArray idLine = "id: big\n"_ba;
    const QByteArray stream = idLine + "data: "_ba + payload + "\n\n"_ba;

    SseParser parser;
    Events events;
    for (qsizetype at = 0; at < stream.size(); at += chunkSize) {
        events += parser.feed(QByteArrayView(stream).sliced(at, std::min(chunkSize, stream.size() - at)));
        if (events.isEmpty())
            QCOMPARE(parser.bufferedBytes(), std::min(at + chunkSize, stream.size()) - idLine.size());
    }

    QCOMPARE(events.size(), 1);
    QCOMPARE(events.first().data.size(), payloadSize);
    QVERIFY(events.first().data == payload);
    QCOMPARE(events.first().id, "big"_ba);
    QCOMPARE(parser.bufferedBytes(), 0);
}

QTEST_GUILESS_MAIN(tst_SseParser)
#include "tst_sseparser.moc"
