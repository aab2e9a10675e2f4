#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace mcpscope {

class MainWindow;
class ServerConnection;

/// `make screenshot`: drives the real app through the demo sequence (connect both demo servers,
/// call echo, arm expire-after, call a write tool, call a read-only tool, open the breaker) and
/// saves PNGs of the main window, the tools table, two call timelines and the calls exported as
/// JSONL and opened read-only. finished(EXIT_SUCCESS) when all were written; EXIT_FAILURE after
/// naming the step that failed on stderr.
class ScreenshotDriver : public QObject
{
    Q_OBJECT
public:
    ScreenshotDriver(MainWindow* window, QString directory, QObject* parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(int code);

private:
    void waitUntil(std::function<bool()> condition, int timeoutMs, std::function<void()> then, const QString& what);
    void step1Connected();
    void step2Echo();
    void step3Uncertain();
    void step4Retried();
    void step5Breaker();
    void step6OpenedLog();
    void save(QWidget* widget, const QString& name);
    void fail(const QString& why);
    ServerConnection* connection(const QString& name) const;

    QPointer<MainWindow> m_window;
    QString m_directory;
    QString m_uncertainCall;
    QString m_retriedCall;
};

} // namespace mcpscope
