#pragma once

// The ledger peer (tests/peers/ledger-peer.mjs) over Streamable HTTP, for tests that drive mcpscope-cli
// against it: on a port of its own choosing, which it prints; killed when the test is done.

#include <QDeadlineTimer>
#include <QProcess>
#include <QString>

namespace mcpscope::test {

inline QString ledgerPeerScript()
{
    return QStringLiteral(MCPSCOPE_PEERS_DIR) + QStringLiteral("/ledger-peer.mjs");
}

/// The ledger peer over Streamable HTTP, on a port of its own choosing, which it prints.
class LedgerHttpPeer
{
public:
    ~LedgerHttpPeer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    bool start(const QString& ledger, QString* error)
    {
        m_process.setProgram(QStringLiteral(MCPSCOPE_NODE));
        m_process.setArguments({ ledgerPeerScript(), QStringLiteral("http"), QStringLiteral("0"), ledger });
        m_process.setWorkingDirectory(QStringLiteral(MCPSCOPE_PEERS_DIR));
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start();
        QByteArray output;
        const auto listening = [&] {
            output += m_process.readAll();
            return output.contains("listening ") && output.indexOf('\n', output.indexOf("listening ")) > 0;
        };
        for (QDeadlineTimer deadline(30000); !listening() && !deadline.hasExpired();) {
            if (!m_process.waitForReadyRead(100) && m_process.state() == QProcess::NotRunning)
                break;
        }
        if (!listening()) {
            *error = QStringLiteral("the HTTP ledger peer did not start: ") + QString::fromUtf8(output);
            return false;
        }
        const QByteArray rest = output.mid(output.indexOf("listening ") + 10);
        m_port = rest.left(rest.indexOf('\n')).trimmed().toUShort();
        return m_port != 0;
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/mcp").arg(m_port); }

private:
    QProcess m_process;
    quint16 m_port = 0;
};

} // namespace mcpscope::test
