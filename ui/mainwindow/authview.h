#pragma once

#include "auth/authstep.h"
#include "engine/serverauth.h"

#include <QColor>
#include <QList>
#include <QTimer>
#include <QUrl>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QTreeView;

namespace mcpscope {

class AuthStepModel;

/// What the Auth view shows about one server's authorization, as plain values (ServerAuth's state and
/// store, read by AuthPage), so the view is built and tested without an engine.
struct AuthSummary
{
    ServerAuth::State state = ServerAuth::State::None;
    QString lastError; ///< why it failed or needs the user; already redacted
    qint64 expiresAt = 0; ///< ms since the epoch; 0 without a token
    bool hasToken = false;
    bool storePersistent = true;
    QString storeDescription; ///< TokenStore::description(): where tokens are kept, or why only in memory
    QUrl pendingAuthorization; ///< the authorization URL opened in the browser while the flow waits for it
};

/// The Auth tab of an HTTP server (issue 13): the authorization state, where the tokens are kept (a
/// warning when only in memory), the steps of the last flow, refresh or revocation with the one that
/// failed marked and saying why, and for the selected step the URLs tried, the request and the response
/// (as the engine gave them: it has masked the secrets). The buttons only ask; AuthPage acts.
///
/// Signals: authorizeRequested, refreshRequested, editCredentialsRequested when their buttons are
/// pressed; forgetRequested once the user confirmed Forget tokens; openAuthorizationRequested when the
/// user asks to open the pending authorization page again.
class AuthView : public QWidget
{
    Q_OBJECT
public:
    explicit AuthView(QWidget* parent = nullptr);
    ~AuthView() override;

    void setSummary(const AuthSummary& summary);
    void setSteps(const QList<AuthStep>& steps);
    /// An empty view, for when no HTTP server is selected.
    void clear();

    /// The state line: "authorized, expires in 58 min", "failed: …". nowMs: the clock to count from.
    static QString stateText(const AuthSummary& summary, qint64 nowMs);
    static QColor stateColour(ServerAuth::State state);
    /// "in 58 min", "in 40 s", "2 min ago".
    static QString relativeTime(qint64 deltaMs);
    /// What the detail pane shows for a step below its heading: URLs tried, request, response.
    static QString detailText(const AuthStep& step);

    // For tests and screenshots.
    QTreeView* stepsView() const { return m_steps; }
    AuthStepModel* stepModel() const { return m_model; }
    QString stateLine() const;
    QString storeLine() const;
    QString detailHeading() const;
    QString detailBody() const;

Q_SIGNALS:
    void authorizeRequested();
    void refreshRequested();
    void forgetRequested();
    void editCredentialsRequested();
    void openAuthorizationRequested(const QUrl& url);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updateSummary();
    void showCurrentStep();
    void selectAutomatically();
    void confirmForget();

    AuthSummary m_summary;
    AuthStepModel* m_model = nullptr;
    QLabel* m_state = nullptr;
    QLabel* m_store = nullptr;
    QLabel* m_pending = nullptr;
    QPushButton* m_authorize = nullptr;
    QPushButton* m_refresh = nullptr;
    QPushButton* m_forget = nullptr;
    QPushButton* m_edit = nullptr;
    QSplitter* m_split = nullptr;
    QTreeView* m_steps = nullptr;
    QLabel* m_heading = nullptr;
    QPlainTextEdit* m_detail = nullptr;
    QTimer m_tick; ///< the "expires in" countdown
    bool m_userPicked = false; ///< the user chose a step: automatic selection leaves it alone
    bool m_selecting = false;
    bool m_sizesRestored = false; ///< the settings had the splitter, or the first show sized it
    qint64 m_flowStart = 0; ///< startedAt of the first step: a new flow starts automatic selection again
};

} // namespace mcpscope
