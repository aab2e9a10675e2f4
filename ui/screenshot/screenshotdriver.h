#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

namespace mcpscope {

class HttpClient;
class MainWindow;
class ServerConnection;

/// `make screenshot`: drives the real app through the demo sequence (connect both demo servers,
/// call echo, arm expire-after, call a write tool, call a read-only tool, open the breaker) and
/// saves PNGs of the main window, the tools table, two call timelines and the calls exported as
/// JSONL and opened read-only, then the Auth tab after a completed and after a failed authorization
/// (auth-steps.png, auth-failed.png), and a window without a workspace (empty-state.png). finished(EXIT_SUCCESS) when
/// all were written; EXIT_FAILURE after naming the step that failed on stderr.
///
/// The Auth screenshots come from a real flow when the workspace has an HTTP server named
/// "protected-http" (tests/peers/protected-peer.mjs; the driver answers the app's browser request itself,
/// following the redirects to the loopback listener) and, for the failed one, "protected-http-failing" (a
/// server whose flow fails, e.g. a client id the authorization server does not know). Without them the
/// Auth view is fed with sample steps of both flows.
class ScreenshotDriver : public QObject
{
    Q_OBJECT
public:
    ScreenshotDriver(MainWindow* window, QString directory, QObject* parent = nullptr);
    void start();

public Q_SLOTS:
    /// The system browser while the driver runs (QDesktopServices::setUrlHandler): GETs the URL and
    /// follows its redirects, as a browser does after the user consented.
    void browse(const QUrl& url);

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
    void step7AuthSteps();
    void step8AuthFailed();
    /// resources-text.png and resources-image.png (ResourcesShots).
    void stepResources();
    /// tasks.png (TasksShots), then the friction shots.
    void stepTasks();
    /// stderr.png: the Server Output view of the HTTP demo server (its launch command's output), then traffic.png.
    void stepServerOutput();
    void finish();
    /// empty-state.png: a window without a workspace, as on a first start.
    void emptyStateScreenshot(std::function<void()> then);
    void serverDialogScreenshot(std::function<void()> then);
    /// Shows widget (a top-level window of its own), saves it as name once it has settled, deletes it, then.
    void saveShown(QWidget* widget, int settleMs, const QString& name, std::function<void()> then);
    /// Shows name's Auth tab after its flow ended (state ok), or fed with steps when it is not configured.
    void authScreenshot(const QString& server, bool expectOk, const QString& file, std::function<void()> then);
    void feedAuthView(bool completed);
    void showTokenStep(bool completed);
    void fetchPage(const QUrl& url, int hopsLeft);
    void save(QWidget* widget, const QString& name);
    void fail(const QString& why);
    ServerConnection* connection(const QString& name) const;
    /// The demo workspace's Streamable HTTP server, whose flow feedAuthView() (authfeed.cpp) shows.
    static QString httpServerName();

    QPointer<MainWindow> m_window;
    QString m_directory;
    QString m_uncertainCall;
    QString m_retriedCall;
    HttpClient* m_browser = nullptr;
    /// What make screenshot says about the Auth images: "real" or "fed" for each.
    QStringList m_authSources;
    bool m_emptyStateSaved = false;
    bool m_serverDialogSaved = false;
};

} // namespace mcpscope
