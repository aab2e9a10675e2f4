#pragma once

#include <QObject>
#include <QStringList>
#include <QTextStream>

namespace mcpscope {

class FaultControlServer;
class FaultProxy;

/// `mcpscope-cli proxy --upstream URL [--listen PORT] [--control PORT]`: runs a FaultProxy (and, with
/// --control, its FaultControlServer) in front of one Streamable HTTP server until SIGINT or SIGTERM,
/// so any MCP client can be tested against injected wire faults.
///
/// Prints one line to stdout once listening:
///   proxy listening on http://127.0.0.1:PORT/mcp -> UPSTREAM (control on http://127.0.0.1:CPORT)
/// and one line per fault fired to stderr.
///
/// Signals: finished once, with exit code 0, after SIGINT or SIGTERM.
class ProxyCommand : public QObject
{
    Q_OBJECT
public:
    explicit ProxyCommand(QObject* parent = nullptr);
    ~ProxyCommand() override;

    /// args: the words after "proxy". Returns -1 when the proxy runs (finished() follows), or an exit code.
    int start(const QStringList& args);

Q_SIGNALS:
    void finished(int exitCode);

private:
    bool watchSignals(QString* error);
    void onSignal();

    QTextStream m_out;
    QTextStream m_err;
    FaultProxy* m_proxy = nullptr;
    FaultControlServer* m_control = nullptr;
    bool m_finished = false;
};

} // namespace mcpscope
