#include "proxycommand.h"

#include "clinumbers.h"
#include "common/terminationwatcher.h"
#include "exitcodes.h"
#include "fault/faultcontrolserver.h"
#include "fault/faultproxy.h"
#include "redactingoutput.h"
#include "transport/httpcommon.h"

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
std::optional<quint16> parsePort(const QString& text)
{
    const auto port = CliNumbers::parse(text, 0, 65535, true);
    return port ? std::optional<quint16>(quint16(*port)) : std::nullopt;
}
} // namespace

ProxyCommand::ProxyCommand(QObject* parent)
    : QObject(parent)
    , m_out(RedactingOutput::standardOutput())
    , m_err(RedactingOutput::standardError())
{ }

ProxyCommand::~ProxyCommand() = default;

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
    Redactor secrets;
    secrets.addUrl(upstream);
    RedactingOutput::setRedactor(secrets);
    if (!parser.isSet(upstreamOpt) || !upstream.isValid() || upstream.host().isEmpty()
        || (upstream.scheme() != QLatin1String("http") && upstream.scheme() != QLatin1String("https")))
        return usage(tr("--upstream needs the http:// or https:// URL of a Streamable HTTP server"));
    const auto listenPort = parser.isSet(listenOpt) ? parsePort(parser.value(listenOpt)) : quint16(0);
    if (!listenPort)
        return usage(
            CliNumbers::rangeError(QStringLiteral("--listen"), tr("a port number"), 0, 65535, parser.value(listenOpt)));
    const auto controlPort = parser.isSet(controlOpt) ? parsePort(parser.value(controlOpt)) : quint16(0);
    if (!controlPort)
        return usage(CliNumbers::rangeError(
            QStringLiteral("--control"), tr("a port number"), 0, 65535, parser.value(controlOpt)));

    QString error;
    m_proxy = new FaultProxy(upstream, this);
    if (!m_proxy->listen(*listenPort, &error)) {
        m_err << "mcpscope-cli proxy: " << error << '\n';
        m_err.flush();
        return ExitUsage;
    }
    if (parser.isSet(controlOpt)) {
        m_control = new FaultControlServer(m_proxy, this);
        if (!m_control->listen(*controlPort, &error)) {
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
    connect(
        m_proxy, &FaultProxy::duplicateRefused, this, [this](const QString& callId, int attempt, const QJsonValue& id) {
            m_err
                << "duplicate refused (409): attempt " << attempt << " of call " << callId << " id "
                << QString::fromUtf8(QJsonDocument(QJsonArray { id }).toJson(QJsonDocument::Compact)).mid(1).chopped(1)
                << " was already forwarded\n";
            m_err.flush();
        });

    m_out << "proxy listening on " << m_proxy->url().toString() << " -> " << HttpCommon::displayUrl(upstream);
    if (m_control)
        m_out << " (control on " << m_control->url().toString() << ')';
    m_out << '\n';
    m_out.flush();
    return ExitStillRunning;
}

bool ProxyCommand::watchSignals(QString* error)
{
    auto* watcher = new TerminationWatcher(this);
    connect(watcher, &TerminationWatcher::terminationRequested, this, &ProxyCommand::onSignal);
    return watcher->watch(error);
}

void ProxyCommand::onSignal()
{
    if (m_finished)
        return;
    m_finished = true;
    m_proxy->close();
    Q_EMIT finished(ExitSuccess);
}

} // namespace mcpscope
