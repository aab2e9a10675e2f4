// mcpscope-cli's resource commands beyond a plain request: subscribe URI --for SECONDS (resources/subscribe,
// each notifications/resources/updated printed with its time as it arrives, then resources/unsubscribe and
// exit 0 once the time is up) and read URI --out FILE (the content saved as the app's Save to file does).

#include "cliapp.h"

#include "clijson.h"
#include "engine/engine.h"
#include "engine/serverconnection.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>
#include <QSaveFile>
#include <QTimer>

namespace mcpscope {

using cli::compactJson;

bool CliApp::writeReadContent(const QJsonObject& result, QString* error) const
{
    const QJsonArray contents = result.value(QLatin1String("contents")).toArray();
    if (contents.isEmpty()) {
        *error = tr("the resource has no contents");
        return false;
    }
    const QJsonObject content = contents.first().toObject();
    const QByteArray bytes = content.contains(QLatin1String("blob"))
        ? QByteArray::fromBase64(content.value(QLatin1String("blob")).toString().toLatin1())
        : content.value(QLatin1String("text")).toString().toUtf8();
    QSaveFile file(m_outFile);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = file.errorString();
        return false;
    }
    return true;
}

void CliApp::subscribe()
{
    if (m_commandArgs.isEmpty())
        return fail(tr("subscribe needs a resource URI"), ExitUsage);
    const QString uri = m_commandArgs.first();
    ClientSession* session = m_connection->session();
    if (!session->details()
             .capabilities.value(QLatin1String("resources"))
             .toObject()
             .value(QLatin1String("subscribe"))
             .toBool())
        return fail(tr("server '%1' does not declare resources.subscribe: it sends no updates to subscribe to")
                        .arg(m_config.name),
            ExitUsage);
    auto updates = std::make_shared<int>(0);
    connect(session, &ClientSession::notificationReceived, this, [this, updates](const JsonRpcMessage& message) {
        if (message.method != QLatin1String("notifications/resources/updated"))
            return;
        ++*updates;
        const QString at = QDateTime::currentDateTime().toString(Qt::ISODateWithMs);
        const QString updated = message.params.value(QLatin1String("uri")).toString();
        if (m_json)
            m_out << compactJson(
                QJsonObject { { QStringLiteral("event"), QStringLiteral("updated") }, { QStringLiteral("time"), at },
                    { QStringLiteral("uri"), updated }, { QStringLiteral("params"), message.params } })
                  << '\n';
        else
            m_out << at << "  notifications/resources/updated  " << updated << '\n';
        m_out.flush();
    });
    request(QStringLiteral("resources/subscribe"), { { QStringLiteral("uri"), uri } },
        [this, uri, updates](const CallRecord& record) {
            if (record.outcome != CallOutcome::Success)
                return completeCall(record);
            if (!m_json) {
                m_out << "subscribed to " << uri << " for " << m_forMs / 1000.0 << " s\n";
                m_out.flush();
            }
            QTimer::singleShot(m_forMs, this, [this, uri, updates] {
                request(QStringLiteral("resources/unsubscribe"), { { QStringLiteral("uri"), uri } },
                    [this, uri, updates](const CallRecord& record) {
                        if (record.outcome != CallOutcome::Success)
                            return completeCall(record);
                        if (m_json) {
                            m_out << compactJson(QJsonObject { { QStringLiteral("command"), m_command },
                                { QStringLiteral("server"), m_config.name }, { QStringLiteral("ok"), true },
                                { QStringLiteral("uri"), uri }, { QStringLiteral("updates"), *updates } })
                                  << '\n';
                        } else {
                            m_out << "unsubscribed from " << uri << " after " << *updates << " update(s)\n";
                        }
                        m_out.flush();
                        quit(ExitSuccess);
                    });
            });
        });
}

} // namespace mcpscope
