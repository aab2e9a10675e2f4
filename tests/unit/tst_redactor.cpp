// Value scrubbing: secret values are found in nested JSON, error texts, wire bytes and URLs, and
// shown URLs never carry their userinfo.

#include "calllog/namesearch.h"
#include "calllog/redactor.h"
#include "config/serverconfig.h"
#include "transport/httpcommon.h"
#include "transport/wireexchange.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace mcpscope;

class TestRedactor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void redactsValues_data()
    {
        QTest::addColumn<QString>("secret");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("error text") << QStringLiteral("tok-123456") << QStringLiteral("403 for tok-123456 here")
                                    << QStringLiteral("403 for [redacted] here");
        QTest::newRow("twice") << QStringLiteral("tok-123456") << QStringLiteral("tok-123456/tok-123456")
                               << QStringLiteral("[redacted]/[redacted]");
        QTest::newRow("too short to redact")
            << QStringLiteral("abc") << QStringLiteral("abc abc") << QStringLiteral("abc abc");
        QTest::newRow("nothing to find") << QStringLiteral("tok-123456") << QStringLiteral("a plain line")
                                         << QStringLiteral("a plain line");
    }

    void redactsValues()
    {
        QFETCH(QString, secret);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        Redactor redactor;
        redactor.addSecretValue(secret);
        QCOMPARE(redactor.redactText(text), expected);
    }

    void credentialAlsoAsBareToken()
    {
        Redactor redactor;
        redactor.addCredential(QStringLiteral("Bearer abc-secret-1"));
        QCOMPARE(redactor.redactText(QStringLiteral("token abc-secret-1 rejected")),
            QStringLiteral("token [redacted] rejected"));
    }

    /// A header the user marks secret is redacted by value, anywhere, and by name in header lines.
    void markedSecretHeader()
    {
        ServerConfig config;
        config.name = QStringLiteral("api");
        config.url = QUrl(QStringLiteral("http://127.0.0.1:9/mcp"));
        config.headers = { { QStringLiteral("X-Api-Key"), QStringLiteral("key-778899") },
            { QStringLiteral("X-Trace"), QStringLiteral("trace-112233") } };
        config.secretHeaders = { QStringLiteral("X-Api-Key") };
        Redactor redactor;
        redactor.addServer(config);
        QCOMPARE(redactor.redactText(QStringLiteral("echo key-778899 trace-112233")),
            QStringLiteral("echo [redacted] trace-112233"));
        QCOMPARE(
            redactor.redactText(QStringLiteral("x-api-key: other-445566")), QStringLiteral("x-api-key: [redacted]"));
        QVERIFY(redactor.sensitiveHeaders().contains(QStringLiteral("X-Api-Key")));
    }

    void nestedJson()
    {
        Redactor redactor;
        redactor.addSecretValue(QStringLiteral("s3cr\"et-value"));
        const QJsonObject value { { QStringLiteral("a"),
            QJsonObject { { QStringLiteral("b"), QJsonArray { QStringLiteral("x s3cr\"et-value y"), 7 } } } } };
        const QJsonObject redacted = redactor.redactJson(value).toObject();
        QCOMPARE(redacted.value(QLatin1String("a")).toObject().value(QLatin1String("b")).toArray().at(0).toString(),
            QStringLiteral("x [redacted] y"));
        QCOMPARE(redacted.value(QLatin1String("a")).toObject().value(QLatin1String("b")).toArray().at(1).toInt(), 7);
        // The same value inside raw JSON bytes is found in its escaped form.
        const QByteArray wire = QJsonDocument(value).toJson(QJsonDocument::Compact);
        const QByteArray redactedWire = redactor.redactWire(wire);
        QVERIFY(!redactedWire.contains("et-value"));
        QVERIFY(QJsonDocument::fromJson(redactedWire).isObject());
    }

    void scrubRecord()
    {
        Redactor redactor;
        CallRecord clean;
        clean.callId = QStringLiteral("c1");
        clean.result = QJsonObject { { QStringLiteral("text"), QStringLiteral("s3cret-value") } };
        CallRecord untouched = clean;
        redactor.scrubRecord(untouched);
        QCOMPARE(untouched.toCompactJson(), clean.toCompactJson());

        redactor.addSecretValue(QStringLiteral("s3cret-value"));
        CallRecord leaky = clean;
        leaky.error = QJsonObject { { QStringLiteral("message"), QStringLiteral("bad s3cret-value") } };
        redactor.scrubRecord(leaky);
        QVERIFY(!leaky.toCompactJson().contains("s3cret-value"));
        QCOMPARE(leaky.result.toObject().value(QLatin1String("text")).toString(), Redactor::placeholder());
        QCOMPARE(leaky.error.value(QLatin1String("message")).toString(), QStringLiteral("bad [redacted]"));
        QCOMPARE(leaky.callId, QStringLiteral("c1"));
    }

    void urlUserinfo_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("password") << QStringLiteral("http://user:pa55word@127.0.0.1:9/mcp")
                                  << QStringLiteral("echo pa55word") << QStringLiteral("echo [redacted]");
        QTest::newRow("userinfo in a URL") << QStringLiteral("http://user:pa55word@127.0.0.1:9/mcp")
                                           << QStringLiteral("at http://user:pa55word@127.0.0.1:9/mcp")
                                           << QStringLiteral("at http://[redacted]@127.0.0.1:9/mcp");
        QTest::newRow("percent-encoded") << QStringLiteral("http://user:p%40ss%3Aword@127.0.0.1:9/mcp")
                                         << QStringLiteral("p@ss:word and p%40ss%3Aword")
                                         << QStringLiteral("[redacted] and [redacted]");
    }

    void urlUserinfo()
    {
        QFETCH(QString, url);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        Redactor redactor;
        redactor.addUrl(QUrl(url));
        QCOMPARE(redactor.redactText(text), expected);
    }

    void displayUrlDropsUserinfo()
    {
        QCOMPARE(HttpCommon::displayUrl(QUrl(QStringLiteral("http://user:pa55word@127.0.0.1:9/mcp?x=1"))),
            QStringLiteral("http://127.0.0.1:9/mcp?x=1"));
        QCOMPARE(HttpCommon::displayUrl(QUrl(QStringLiteral("http://user@127.0.0.1:9/mcp"))),
            QStringLiteral("http://127.0.0.1:9/mcp"));
    }

    // Header names in text are found as QString::contains(…, Qt::CaseInsensitive) finds them: in any
    // case, and through Qt's folding of U+212A (Kelvin) to k and U+017F (long s) to s.
    void headerNamesInText_data()
    {
        QTest::addColumn<QString>("extraHeader");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("lower case") << QString() << QStringLiteral("authorization: Bearer abc")
                                    << QStringLiteral("authorization: [redacted]");
        QTest::newRow("upper case, mid-text") << QString() << QStringLiteral("sent PROXY-AUTHORIZATION: Basic xyz")
                                              << QStringLiteral("sent PROXY-AUTHORIZATION: [redacted]");
        QTest::newRow("JSON member") << QString() << QStringLiteral(R"({"Cookie": "id=42", "a": 1})")
                                     << QStringLiteral(R"({"Cookie": "[redacted]", "a": 1})");
        QTest::newRow("one-letter name at the end")
            << QStringLiteral("Q") << QStringLiteral("q: 7") << QStringLiteral("q: [redacted]");
        QTest::newRow("Kelvin sign for k")
            << QString() << QStringLiteral("Coo\u212Aie: id=42") << QStringLiteral("Coo\u212Aie: [redacted]");
        QTest::newRow("long s for s") << QStringLiteral("X-Sig") << QStringLiteral("x-\u017Fig: abc")
                                      << QStringLiteral("x-\u017Fig: [redacted]");
        QTest::newRow("a name outside ASCII") << QStringLiteral("X-Cl\u00e9") << QStringLiteral("x-cl\u00c9: v1")
                                              << QStringLiteral("x-cl\u00c9: [redacted]");
        QTest::newRow("no name, other scripts") << QString() << QStringLiteral("\u0410\u0443\u0442 \U0001F600: x")
                                                << QStringLiteral("\u0410\u0443\u0442 \U0001F600: x");
        QTest::newRow("a name's start only")
            << QString() << QStringLiteral("Authoriz: x; Cooki: y") << QStringLiteral("Authoriz: x; Cooki: y");
    }

    void headerNamesInText()
    {
        QFETCH(QString, extraHeader);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        Redactor redactor;
        if (!extraHeader.isEmpty())
            redactor.addSensitiveHeader(extraHeader);
        QCOMPARE(redactor.redactText(text), expected);
    }

    // A wire exchange's headers: a sensitive name in any case loses its value, other headers keep theirs.
    void exchangeHeaders()
    {
        Redactor redactor;
        redactor.addSensitiveHeader(QStringLiteral("X-Api-Key"));
        WireExchange exchange;
        HttpExchange http;
        http.url = QStringLiteral("http://127.0.0.1:9/mcp");
        http.requestHeaders = { { "AUTHORIZATION", "Bearer abc" }, { "x-api-key", "k-1" }, { "X-Api-Ke", "k-2" },
            { "Content-Type", "application/json" } };
        http.responseHeaders = { { "set-cookie", "id=1" } };
        exchange.http.append(http);
        redactor.redactExchange(exchange);
        const WireHeaders expected { { "AUTHORIZATION", "[redacted]" }, { "x-api-key", "[redacted]" },
            { "X-Api-Ke", "k-2" }, { "Content-Type", "application/json" } };
        QCOMPARE(exchange.http.first().requestHeaders, expected);
        QCOMPARE(exchange.http.first().responseHeaders, (WireHeaders { { "set-cookie", "[redacted]" } }));
        QCOMPARE(exchange.http.first().url, QStringLiteral("http://127.0.0.1:9/mcp"));
    }

    // Only what holds a secret changes: a secret value in the second exchange's response body and in the
    // stdio line is replaced, and everything else, the first exchange included, still shares its data with
    // the original (nothing was copied on the way).
    void exchangeChangesOnlyWhatHoldsASecret()
    {
        Redactor redactor;
        redactor.addSecretValue(QStringLiteral("s3cret-value"));
        HttpExchange clean;
        // Built at run time: a literal's data has no reference count, and isSharedWith() is false for it.
        clean.url = QString::fromLatin1("http://127.0.0.1:9/mcp");
        clean.requestHeaders = { { "Content-Type", "application/json" } };
        clean.requestBody = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
        clean.responseBody = R"({"jsonrpc":"2.0","id":1,"result":{}})";
        HttpExchange leaky = clean;
        leaky.responseBody = R"({"jsonrpc":"2.0","id":2,"result":{"token":"s3cret-value"}})";
        WireExchange original;
        original.http = { clean, leaky };
        StdioLine line;
        line.line = R"({"echo":"s3cret-value"})";
        original.stdio.append(line);
        WireExchange exchange = original;
        redactor.redactExchange(exchange);
        QCOMPARE(exchange.http.at(1).responseBody,
            QByteArray(R"({"jsonrpc":"2.0","id":2,"result":{"token":"[redacted]"}})"));
        QCOMPARE(exchange.stdio.first().line, QByteArray(R"({"echo":"[redacted]"})"));
        QVERIFY(exchange.http.at(0).responseBody.isSharedWith(original.http.at(0).responseBody));
        QVERIFY(exchange.http.at(0).requestHeaders.first().second.isSharedWith(
            original.http.at(0).requestHeaders.first().second));
        QVERIFY(exchange.http.at(1).requestBody.isSharedWith(original.http.at(1).requestBody));
        QVERIFY(exchange.http.at(1).url.isSharedWith(original.http.at(1).url));
        QCOMPARE(original.http.at(1).responseBody, leaky.responseBody);

        WireExchange untouched = original;
        untouched.stdio.clear();
        const WireExchange before = untouched;
        Redactor none;
        none.redactExchange(untouched);
        QVERIFY(untouched.http.isSharedWith(before.http));
    }

    // NameSearch (the quick test before a record or wire message is redacted) finds a name exactly where
    // a case-insensitive search for each name does: at either end of the text, in any case, when its
    // rarest byte turns up often before it, and not when only part of it is there.
    void nameSearchFindsWhatAPlainSearchFinds_data()
    {
        QTest::addColumn<QByteArrayList>("names");
        QTest::addColumn<QByteArray>("text");
        const QByteArrayList defaults { "authorization", "cookie", "set-cookie", "proxy-authorization" };
        QTest::newRow("none") << defaults << QByteArray(R"({"jsonrpc":"2.0","id":7,"result":{"zzz":"kkk"}})");
        QTest::newRow("at the start") << defaults << QByteArray("Authorization: Bearer x");
        QTest::newRow("at the end") << defaults << QByteArray("sent a coOKIE");
        QTest::newRow("the whole text") << defaults << QByteArray("cookie");
        QTest::newRow("shorter than a name") << defaults << QByteArray("cook");
        QTest::newRow("only parts") << defaults << QByteArray("authori-zation, cookiE-less? cooki e, ZZZ kkk");
        QTest::newRow("anchor byte before and after") << defaults << QByteArray("kkkkkkcookiekkkk");
        QTest::newRow("anchor right at the start") << defaults << QByteArray("kie: x");
        QTest::newRow("upper-case anchor") << defaults << QByteArray("PROXY-AUTHORIZATION: x");
        QTest::newRow("a name of one byte") << QByteArrayList { "q" } << QByteArray("a: 1, Q: 2");
        QTest::newRow("a name of one byte, absent") << QByteArrayList { "q" } << QByteArray("a: 1, b: 2");
        QTest::newRow("digits and dashes only") << QByteArrayList { "x-9-1" } << QByteArray("x-9-0, X-9-1");
        QTest::newRow("no names") << QByteArrayList {} << QByteArray("authorization");
        QTest::newRow("non-ASCII bytes around") << defaults
                                                << QByteArray("\xc3\x89\xe2\x84\xaa"
                                                              "COOKIE\xff");
    }

    void nameSearchFindsWhatAPlainSearchFinds()
    {
        QFETCH(QByteArrayList, names);
        QFETCH(QByteArray, text);
        bool expected = false;
        for (const QByteArray& name : std::as_const(names))
            expected = expected || text.toLower().contains(name);
        QCOMPARE(NameSearch(names).foundIn(text), expected);
        // The same in the middle of a longer text, where the anchors of other names turn up too.
        const QByteArray padded = QByteArray("zZkK ").repeated(40) + text + QByteArray(" zZkK").repeated(40);
        QCOMPARE(NameSearch(names).foundIn(padded), expected);
    }
};

QTEST_GUILESS_MAIN(TestRedactor)
#include "tst_redactor.moc"
