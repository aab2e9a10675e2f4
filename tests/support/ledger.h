#pragma once

// The ledger peer's file (tests/peers/ledger-peer.mjs): one JSON line per tool run the SERVER did,
// plus event lines ("event": initialize, cancelled) that are no runs. Tests count from it, never
// from what the client believes.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace mcpscope::test {

struct Ledger
{
    QString path;

    /// Every line, runs and events.
    QList<QJsonObject> lines() const
    {
        QList<QJsonObject> out;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return out;
        for (const QByteArray& line : file.readAll().split('\n')) {
            if (!line.trimmed().isEmpty())
                out.append(QJsonDocument::fromJson(line).object());
        }
        return out;
    }
    /// The tool runs.
    QList<QJsonObject> entries() const
    {
        QList<QJsonObject> out;
        for (const QJsonObject& line : lines()) {
            if (!line.contains(QLatin1String("event")))
                out.append(line);
        }
        return out;
    }
    /// How many times the server ran any tool for this call id (all attempts).
    int runsOfCall(const QString& callId) const
    {
        int n = 0;
        for (const QJsonObject& e : entries())
            n += e.value(QLatin1String("attempt")).toObject().value(QLatin1String("callId")).toString() == callId;
        return n;
    }
    /// Runs of this tool; with a pid, only those of that child ("pid:N", as sessions of stdio servers are named).
    int runsOf(const QString& tool, const QString& pid = {}) const
    {
        int n = 0;
        for (const QJsonObject& e : entries())
            n += e.value(QLatin1String("tool")).toString() == tool && (pid.isEmpty() || pidOf(e) == pid);
        return n;
    }
    QList<QJsonObject> events(const QString& event) const
    {
        QList<QJsonObject> out;
        for (const QJsonObject& e : lines()) {
            if (e.value(QLatin1String("event")).toString() == event)
                out.append(e);
        }
        return out;
    }
    static QString pidOf(const QJsonObject& entry)
    {
        return QStringLiteral("pid:") + QString::number(entry.value(QLatin1String("pid")).toInteger());
    }
};

} // namespace mcpscope::test
