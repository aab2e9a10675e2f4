// The HTTP/1.1 message codec the engine's HTTP client and the fault proxy share. Each response in the
// table is fed whole, byte by byte, and split in two at every byte; every way must give the same
// status, headers, body, framing and completeness, because TCP may cut a response anywhere.

#include "transport/httpwire.h"

#include <QTest>

using namespace mcpscope;
using Reader = HttpWire::MessageReader;

namespace {

struct Outcome
{
    bool failed = false;
    bool headComplete = false;
    bool complete = false;
    int status = 0;
    QByteArray reason;
    HttpWire::HeaderList headers;
    QByteArray body;
    QByteArray remainder;
    int framing = 0;

    friend bool operator==(const Outcome&, const Outcome&) = default;
};

QByteArray describe(const Outcome& o)
{
    QByteArray headers;
    for (const auto& [name, value] : o.headers)
        headers += name + ": " + value + "; ";
    return "failed=" + QByteArray::number(o.failed) + " head=" + QByteArray::number(o.headComplete)
        + " complete=" + QByteArray::number(o.complete) + " status=" + QByteArray::number(o.status)
        + " reason=" + o.reason + " headers=[" + headers + "] body=" + o.body.toPercentEncoding()
        + " remainder=" + o.remainder.toPercentEncoding() + " framing=" + QByteArray::number(o.framing);
}

Outcome feed(const QByteArrayList& chunks, bool closeAtEnd)
{
    Reader reader(Reader::Kind::Response);
    Outcome outcome;
    for (const QByteArray& chunk : chunks) {
        if (!reader.feed(chunk))
            break;
        outcome.body += reader.takeBody();
    }
    if (closeAtEnd && !reader.failed())
        reader.closeReceived();
    outcome.body += reader.takeBody();
    outcome.failed = reader.failed();
    outcome.headComplete = reader.headComplete();
    outcome.complete = reader.complete();
    outcome.status = reader.status;
    outcome.reason = reader.reason;
    outcome.headers = reader.headers;
    outcome.remainder = reader.complete() ? reader.takeRemainder() : QByteArray();
    outcome.framing = int(reader.framing());
    return outcome;
}

} // namespace

class TestHttpWire : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void responseAtEverySplit_data();
    void responseAtEverySplit();
    void malformed_data();
    void malformed();
    void requestLine();
};

void TestHttpWire::responseAtEverySplit_data()
{
    QTest::addColumn<QByteArray>("wire");
    QTest::addColumn<bool>("closeAtEnd");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("complete");
    QTest::addColumn<int>("framing");
    QTest::addColumn<QByteArray>("remainder");
    const int length = int(Reader::Framing::Length);
    const int chunked = int(Reader::Framing::Chunked);
    const int untilClose = int(Reader::Framing::UntilClose);
    const int none = int(Reader::Framing::None);

    QTest::newRow("content-length JSON") << QByteArray(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 28\r\n\r\n"
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"r\"}")
                                         << false << 200 << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"r\"}") << true
                                         << length << QByteArray();
    QTest::newRow("chunked SSE with chunk extension and trailer")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "6;ext=1\r\nid: 1\n\r\n10\r\ndata: {\"id\":1}\n\n\r\n0\r\nX-Trailer: y\r\n\r\n")
        << false << 200 << QByteArray("id: 1\ndata: {\"id\":1}\n\n") << true << chunked << QByteArray();
    QTest::newRow("chunked stream still open")
        << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n") << false << 200
        << QByteArray("hello") << false << chunked << QByteArray();
    QTest::newRow("202 accepted, no body") << QByteArray("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n") << false
                                           << 202 << QByteArray() << true << none << QByteArray();
    QTest::newRow("204 ignores a Content-Length") << QByteArray("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n")
                                                  << false << 204 << QByteArray() << true << none << QByteArray();
    QTest::newRow("until-close body completes on close")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: x\n\n") << true << 200
        << QByteArray("data: x\n\n") << true << untilClose << QByteArray();
    QTest::newRow("until-close body without the close is not complete")
        << QByteArray("HTTP/1.1 200 OK\r\n\r\npartial") << false << 200 << QByteArray("partial") << false << untilClose
        << QByteArray();
    QTest::newRow("content-length body cut short is not complete")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345") << true << 200 << QByteArray("12345")
        << false << length << QByteArray();
    QTest::newRow("100 Continue before the real response")
        << QByteArray("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno") << false
        << 404 << QByteArray("no") << true << length << QByteArray();
    QTest::newRow("bare LF line endings")
        << QByteArray("HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer\nContent-Length: 1\n\nx") << false << 401
        << QByteArray("x") << true << length << QByteArray();
    QTest::newRow("bytes after a complete response stay for the caller")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1") << false << 200 << QByteArray("ok")
        << true << length << QByteArray("HTTP/1.1");
}

void TestHttpWire::responseAtEverySplit()
{
    QFETCH(QByteArray, wire);
    QFETCH(bool, closeAtEnd);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(bool, complete);
    QFETCH(int, framing);
    QFETCH(QByteArray, remainder);

    const Outcome whole = feed({ wire }, closeAtEnd);
    QVERIFY2(!whole.failed, describe(whole).constData());
    QCOMPARE(whole.status, status);
    QCOMPARE(whole.body, body);
    QCOMPARE(whole.complete, complete);
    QCOMPARE(whole.framing, framing);
    QCOMPARE(whole.remainder, remainder);

    QByteArrayList bytes;
    for (const char c : std::as_const(wire))
        bytes.append(QByteArray(1, c));
    const Outcome byteByByte = feed(bytes, closeAtEnd);
    QVERIFY2(byteByByte == whole,
        QByteArray("byte by byte: " + describe(byteByByte) + "\nwhole: " + describe(whole)).constData());

    for (qsizetype split = 1; split < wire.size(); ++split) {
        const Outcome two = feed({ wire.left(split), wire.mid(split) }, closeAtEnd);
        QVERIFY2(two == whole,
            QByteArray("split at " + QByteArray::number(split) + ": " + describe(two) + "\nwhole: " + describe(whole))
                .constData());
    }
}

void TestHttpWire::malformed_data()
{
    QTest::addColumn<QByteArray>("wire");
    QTest::newRow("not HTTP") << QByteArray("SSH-2.0-OpenSSH\r\n\r\n");
    QTest::newRow("status not three digits") << QByteArray("HTTP/1.1 20 OK\r\n\r\n");
    QTest::newRow("header without colon") << QByteArray("HTTP/1.1 200 OK\r\nBroken header\r\n\r\n");
    QTest::newRow("negative Content-Length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n");
    QTest::newRow("chunk size not hex") << QByteArray(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n");
    QTest::newRow("chunk longer than its size")
        << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n");
}

void TestHttpWire::malformed()
{
    QFETCH(QByteArray, wire);
    QVERIFY(feed({ wire }, false).failed);
    QByteArrayList bytes;
    for (const char c : std::as_const(wire))
        bytes.append(QByteArray(1, c));
    QVERIFY(feed(bytes, false).failed);
}

void TestHttpWire::requestLine()
{
    Reader reader(Reader::Kind::Request);
    QVERIFY(reader.feed("POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}"));
    QVERIFY(reader.complete());
    QCOMPARE(reader.method, QByteArray("POST"));
    QCOMPARE(reader.target, QByteArray("/mcp?x=1"));
    QCOMPARE(HttpWire::header(reader.headers, "host"), QByteArray("127.0.0.1"));
    QCOMPARE(reader.takeBody(), QByteArray("{}"));
}

QTEST_GUILESS_MAIN(TestHttpWire)
#include "tst_httpwire.moc"
