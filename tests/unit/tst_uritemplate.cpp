// UriTemplate against the examples of RFC 6570 §3.2 (levels 1 to 4), with the RFC's variables.

#include "session/uritemplate.h"

#include <QTest>

using namespace mcpscope;

namespace {

QVariantMap rfcVariables()
{
    QVariantMap v;
    v[QStringLiteral("count")] = QStringList { QStringLiteral("one"), QStringLiteral("two"), QStringLiteral("three") };
    v[QStringLiteral("dom")] = QStringList { QStringLiteral("example"), QStringLiteral("com") };
    v[QStringLiteral("dub")] = QStringLiteral("me/too");
    v[QStringLiteral("hello")] = QStringLiteral("Hello World!");
    v[QStringLiteral("half")] = QStringLiteral("50%");
    v[QStringLiteral("var")] = QStringLiteral("value");
    v[QStringLiteral("who")] = QStringLiteral("fred");
    v[QStringLiteral("base")] = QStringLiteral("http://example.com/home/");
    v[QStringLiteral("path")] = QStringLiteral("/foo/bar");
    v[QStringLiteral("list")] = QStringList { QStringLiteral("red"), QStringLiteral("green"), QStringLiteral("blue") };
    v[QStringLiteral("keys")] = QVariantList { QStringList { QStringLiteral("semi"), QStringLiteral(";") },
        QStringList { QStringLiteral("dot"), QStringLiteral(".") },
        QStringList { QStringLiteral("comma"), QStringLiteral(",") } };
    v[QStringLiteral("v")] = QStringLiteral("6");
    v[QStringLiteral("x")] = QStringLiteral("1024");
    v[QStringLiteral("y")] = QStringLiteral("768");
    v[QStringLiteral("empty")] = QString(QLatin1String(""));
    v[QStringLiteral("empty_keys")] = QVariantList {};
    // "undef" is absent.
    return v;
}

} // namespace

class TestUriTemplate : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void expand_data()
    {
        QTest::addColumn<QString>("uriTemplate");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* tmpl, const char* expected) {
            QTest::newRow(tmpl) << QString::fromUtf8(tmpl) << QString::fromUtf8(expected);
        };
        // §3.2.2 simple string expansion
        row("{var}", "value");
        row("{hello}", "Hello%20World%21");
        row("{half}", "50%25");
        row("O{empty}X", "OX");
        row("O{undef}X", "OX");
        row("{x,y}", "1024,768");
        row("{x,hello,y}", "1024,Hello%20World%21,768");
        row("?{x,empty}", "?1024,");
        row("?{x,undef}", "?1024");
        row("?{undef,y}", "?768");
        row("{var:3}", "val");
        row("{var:30}", "value");
        row("{list}", "red,green,blue");
        row("{list*}", "red,green,blue");
        row("{keys}", "semi,%3B,dot,.,comma,%2C");
        row("{keys*}", "semi=%3B,dot=.,comma=%2C");
        // §3.2.3 reserved expansion
        row("{+var}", "value");
        row("{+hello}", "Hello%20World!");
        row("{+half}", "50%25");
        row("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex");
        row("{+base}index", "http://example.com/home/index");
        row("O{+empty}X", "OX");
        row("{+path}/here", "/foo/bar/here");
        row("here?ref={+path}", "here?ref=/foo/bar");
        row("up{+path}{var}/here", "up/foo/barvalue/here");
        row("{+x,hello,y}", "1024,Hello%20World!,768");
        row("{+path,x}/here", "/foo/bar,1024/here");
        row("{+path:6}/here", "/foo/b/here");
        row("{+list}", "red,green,blue");
        row("{+keys*}", "semi=;,dot=.,comma=,");
        // §3.2.4 fragment expansion
        row("{#var}", "#value");
        row("{#hello}", "#Hello%20World!");
        row("{#half}", "#50%25");
        row("foo{#empty}", "foo#");
        row("foo{#undef}", "foo");
        row("{#x,hello,y}", "#1024,Hello%20World!,768");
        row("{#path,x}/here", "#/foo/bar,1024/here");
        row("{#path:6}/here", "#/foo/b/here");
        row("{#list*}", "#red,green,blue");
        row("{#keys}", "#semi,;,dot,.,comma,,");
        // §3.2.5 label expansion with dot-prefix
        row("{.who}", ".fred");
        row("{.who,who}", ".fred.fred");
        row("{.half,who}", ".50%25.fred");
        row("www{.dom*}", "www.example.com");
        row("X{.var}", "X.value");
        row("X{.empty}", "X.");
        row("X{.undef}", "X");
        row("X{.var:3}", "X.val");
        row("X{.list}", "X.red,green,blue");
        row("X{.list*}", "X.red.green.blue");
        row("X{.keys*}", "X.semi=%3B.dot=..comma=%2C");
        row("X{.empty_keys}", "X");
        // §3.2.6 path segment expansion
        row("{/who}", "/fred");
        row("{/who,who}", "/fred/fred");
        row("{/half,who}", "/50%25/fred");
        row("{/who,dub}", "/fred/me%2Ftoo");
        row("{/var}", "/value");
        row("{/var,empty}", "/value/");
        row("{/var,undef}", "/value");
        row("{/var,x}/here", "/value/1024/here");
        row("{/var:1,var}", "/v/value");
        row("{/list}", "/red,green,blue");
        row("{/list*}", "/red/green/blue");
        row("{/list*,path:4}", "/red/green/blue/%2Ffoo");
        row("{/keys*}", "/semi=%3B/dot=./comma=%2C");
        // §3.2.7 path-style parameter expansion
        row("{;who}", ";who=fred");
        row("{;half}", ";half=50%25");
        row("{;empty}", ";empty");
        row("{;v,empty,who}", ";v=6;empty;who=fred");
        row("{;v,bar,who}", ";v=6;who=fred");
        row("{;x,y}", ";x=1024;y=768");
        row("{;x,y,empty}", ";x=1024;y=768;empty");
        row("{;x,y,undef}", ";x=1024;y=768");
        row("{;hello:5}", ";hello=Hello");
        row("{;list}", ";list=red,green,blue");
        row("{;list*}", ";list=red;list=green;list=blue");
        row("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C");
        row("{;keys*}", ";semi=%3B;dot=.;comma=%2C");
        // §3.2.8 form-style query expansion
        row("{?who}", "?who=fred");
        row("{?half}", "?half=50%25");
        row("{?x,y}", "?x=1024&y=768");
        row("{?x,y,empty}", "?x=1024&y=768&empty=");
        row("{?x,y,undef}", "?x=1024&y=768");
        row("{?var:3}", "?var=val");
        row("{?list}", "?list=red,green,blue");
        row("{?list*}", "?list=red&list=green&list=blue");
        row("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C");
        row("{?keys*}", "?semi=%3B&dot=.&comma=%2C");
        // §3.2.9 form-style query continuation
        row("{&who}", "&who=fred");
        row("{&half}", "&half=50%25");
        row("?fixed=yes{&x}", "?fixed=yes&x=1024");
        row("{&x,y,empty}", "&x=1024&y=768&empty=");
        row("{&var:3}", "&var=val");
        row("{&list}", "&list=red,green,blue");
        row("{&list*}", "&list=red&list=green&list=blue");
        row("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C");
        row("{&keys*}", "&semi=%3B&dot=.&comma=%2C");
        // The server-everything template the Resources tab fills.
        row("demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/text/");
    }

    void expand()
    {
        QFETCH(QString, uriTemplate);
        QFETCH(QString, expected);
        QCOMPARE(UriTemplate::expand(uriTemplate, rfcVariables()), expected);
    }

    void variables_data()
    {
        QTest::addColumn<QString>("uriTemplate");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("one simple") << QStringLiteral("demo://resource/dynamic/text/{resourceId}")
                                    << QStringList { QStringLiteral("resourceId") };
        QTest::newRow("operators, prefixes and explosion, each name once")
            << QStringLiteral("{/list*,path:4}{?x,y}{&x}{#frag}")
            << QStringList { QStringLiteral("list"), QStringLiteral("path"), QStringLiteral("x"), QStringLiteral("y"),
                   QStringLiteral("frag") };
        QTest::newRow("no expression") << QStringLiteral("file:///etc/hosts") << QStringList {};
    }

    void variables()
    {
        QFETCH(QString, uriTemplate);
        QFETCH(QStringList, expected);
        QCOMPARE(UriTemplate::variables(uriTemplate), expected);
    }
};

QTEST_GUILESS_MAIN(TestUriTemplate)
#include "tst_uritemplate.moc"
