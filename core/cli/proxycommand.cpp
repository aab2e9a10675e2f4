#include "proxycommand.h"

#include "exitcodes.h"
#include "fault/faultcontrolserver.h"
#include "fault/faultproxy.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSocketNotifier>
#include <QUrl>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace mcpscope {

namespace {
// The self-pipe: the signal handler may only write a byte; the event loop reads it.
int signalPipe[2] = { -1, -1 };

void onPosixSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(signalPipe[1], &byte, 1);
}

bool parsePort(const QString& text, quint16* port)
{
    bool ok = false;
    const uint value = text.toUInt(&ok);
    if (!ok || value > 65535)
        return false;
    *port = quint16(value);
    return true;
}
} // namespace

ProxyCommand::ProxyCommand(QObject* parent)
    : QObject(parent)
    , m_out(stdout)
    , m_err(stderr)
{ }

ProxyCommand::~ProxyCommand()
{
    if (m_notifier) {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }
}

int ProxyCommand::start(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption upstreamOpt(QStringLiteral("upstream"), {}, QStringLiteral("url"));
    const QCommandLineOption listenOpt(QStringLiteral("listen"), {}, QStringLiteral("port"));
    const QCommandLineOption controlOpt(QStringLiteral("control"), {}, QStringLiteral("port"));
    parser.addOptions({ upstreamOpt, listenOpt, controlOpt });
    const auto usage = [this](const QString& message) {
        m_err << "mcpscope-cli proxy: " << message << "\n"
              << "Usage: mcpscope-cli proxy --upstream URL [--listen PORT] [--control PORT]\n";
        m_err.flush();
        return int(ExitUsage);
    };
    if (!parser.parse(QStringList { QStringLiteral("mcpscope-cli proxy") } + args))
        return usage(parser.errorText());
    if (!parser.positionalArguments().isEmpty())
        return usage(tr("unexpected argument '%1'").arg(parser.positionalArguments().first()));
    const QUrl upstream(parser.value(upstreamOpt));
    if (!parser.isSet(upstreamOpt) || !upstream.isValid() || upstream.host().isEmpty()
        || (upstream.scheme() != QLatin1String("http") && upstream.scheme() != QLatin1String("https")))
        return usage(tr("--upstream needs the http:// or https:// URL of a Streamable HTTP server"));
    quint16 listenPort = 0;
    quint16 controlPort = 0;
    if (parser.isSet(listenOpt) && !parsePort(parser.value(listenOpt), &listenPort))
        return usage(tr("--listen needs a port number, not '%1'").arg(parser.value(listenOpt)));
    if (parser.isSet(controlOpt) && !parsePort(parser.value(controlOpt), &controlPort))
        return usage(tr("--control needs a port number, not '%1'").arg(parser.value(controlOpt)));

    QString error;
    m_proxy = new FaultProxy(upstream, this);
    if (!m_proxy->listen(listenPort, &error)) {
        m_err << "mcpscope-cli proxy: " << error << '\n';
        m_err.flush();
        return ExitUsage;
    }
    if (parser.isSet(controlOpt)) {
        m_control = new FaultControlServer(m_proxy, this);
        if (!m_control->listen(controlPort, &error)) {
            m_err << "mcpscope-cli proxy: " << error << '\n';
            m_err.flush();
            return ExitUsage;
        }
    }
    if (!watchSignals(&error)) {
        m_err << "mcpscope-cli proxy: " << error << '\n';
        m_err.flush();
        return ExitUsage;
    }
    connect(m_proxy, &FaultProxy::faultFired, this,
        [this](const FaultProxy::Fault& fault, const QString& method, const QJsonValue& id) {
            m_err
                << "fault " << FaultProxy::kindName(fault.kind) << " (#" << fault.id << ") fired on " << method
                << " id "
                << QString::fromUtf8(QJsonDocument(QJsonArray { id }).toJson(QJsonDocument::Compact)).mid(1).chopped(1)
                << ", " << fault.count << " left\n";
            m_err.flush();
        });

    m_out << "proxy listening on " << m_proxy->url().toString() << " -> " << upstream.toString();
    if (m_control)
        m_out << " (control on " << m_control->url().toString() << ')';
    m_out << '\n';
    m_out.flush();
    return -1;
}

bool ProxyCommand::watchSignals(QString* error)
{
    if (signalPipe[0] < 0 && ::pipe2(signalPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        *error = tr("cannot create the signal pipe: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    m_notifier = new QSocketNotifier(signalPipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &ProxyCommand::onSignal);
    struct sigaction action = {};
    action.sa_handler = onPosixSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    return true;
}

void ProxyCommand::onSignal()
{
    char buffer[16];
    while (::read(signalPipe[0], buffer, sizeof buffer) > 0) { }
    if (m_finished)
        return;
    m_finished = true;
    m_proxy->close();
    Q_EMIT finished(ExitSuccess);
}

} // namespace mcpscope
