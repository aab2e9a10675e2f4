#include "authview.h"

#include "mainwindow/authstepmodel.h"
#include "presentation/presentation.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace mcpscope {

namespace {
const QString SplitterKey = QStringLiteral("authView/splitter");
const QString ColumnsKey = QStringLiteral("authView/columns");

QString escaped(const QString& text)
{
    return text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
}
} // namespace

AuthView::AuthView(QWidget* parent)
    : QWidget(parent)
    , m_model(new AuthStepModel(this))
{
    setObjectName(QStringLiteral("authView"));
    auto* layout = new QVBoxLayout(this);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_state = new QLabel(this);
    m_state->setObjectName(QStringLiteral("authState"));
    m_state->setWordWrap(true);
    m_state->setTextFormat(Qt::RichText);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_store = new QLabel(this);
    m_store->setObjectName(QStringLiteral("authStore"));
    m_store->setWordWrap(true);
    m_store->setTextFormat(Qt::RichText);
    m_store->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("<b>State:</b>"), m_state);
    form->addRow(tr("<b>Tokens:</b>"), m_store);
    layout->addLayout(form);
    m_pending = new QLabel(this);
    m_pending->setObjectName(QStringLiteral("authPending"));
    m_pending->setWordWrap(true);
    m_pending->setText(tr("Waiting for you in the browser: sign in and allow access there. "
                          "<a href=\"open\">Open the authorization page again</a>"));
    m_pending->setVisible(false);
    connect(m_pending, &QLabel::linkActivated, this,
        [this] { Q_EMIT openAuthorizationRequested(m_summary.pendingAuthorization); });
    layout->addWidget(m_pending);

    auto* buttons = new QHBoxLayout;
    m_authorize = new QPushButton(tr("&Authorize"), this);
    m_authorize->setObjectName(QStringLiteral("authorize"));
    m_authorize->setToolTip(tr("Start a new authorization (Alt+A): discovery, registration, then the browser or the "
                               "client credentials grant"));
    m_refresh = new QPushButton(tr("&Refresh Now"), this);
    m_refresh->setObjectName(QStringLiteral("refreshToken"));
    m_refresh->setToolTip(tr("Get a new access token with the refresh token now (Alt+R)"));
    m_forget = new QPushButton(tr("Forget &Tokens…"), this);
    m_forget->setObjectName(QStringLiteral("forgetTokens"));
    m_forget->setToolTip(tr("Revoke the tokens where the authorization server allows it, and remove them from the "
                            "token store (Alt+T)"));
    m_edit = new QPushButton(tr("&Edit Client Credentials…"), this);
    m_edit->setObjectName(QStringLiteral("editCredentials"));
    m_edit->setToolTip(tr("The client id, secret or private key this server's authorization uses (Alt+E)"));
    for (QPushButton* button : { m_authorize, m_refresh, m_forget, m_edit }) {
        button->setAutoDefault(false);
        buttons->addWidget(button);
    }
    buttons->addStretch(1);
    layout->addLayout(buttons);
    connect(m_authorize, &QPushButton::clicked, this, &AuthView::authorizeRequested);
    connect(m_refresh, &QPushButton::clicked, this, &AuthView::refreshRequested);
    connect(m_forget, &QPushButton::clicked, this, &AuthView::confirmForget);
    connect(m_edit, &QPushButton::clicked, this, &AuthView::editCredentialsRequested);

    m_split = new QSplitter(Qt::Vertical, this);
    m_split->setObjectName(QStringLiteral("authSplitter"));
    m_steps = new QTreeView(m_split);
    m_steps->setObjectName(QStringLiteral("authSteps"));
    m_steps->setRootIsDecorated(false);
    m_steps->setUniformRowHeights(true);
    m_steps->setAlternatingRowColors(true);
    m_steps->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_steps->setSelectionMode(QAbstractItemView::SingleSelection);
    m_steps->setModel(m_model);
    m_steps->header()->setStretchLastSection(true);
    m_steps->header()->setSectionResizeMode(AuthStepModel::Step, QHeaderView::ResizeToContents);
    m_steps->header()->setSectionResizeMode(AuthStepModel::Result, QHeaderView::ResizeToContents);
    m_steps->header()->setSectionResizeMode(AuthStepModel::Took, QHeaderView::ResizeToContents);

    auto* detail = new QWidget(m_split);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 4, 0, 0);
    m_heading = new QLabel(detail);
    m_heading->setObjectName(QStringLiteral("authStepHeading"));
    m_heading->setWordWrap(true);
    m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_heading->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_detail = new QPlainTextEdit(detail);
    m_detail->setObjectName(QStringLiteral("authStepDetail"));
    m_detail->setReadOnly(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_detail->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_detail->setPlaceholderText(tr("The selected step's URLs, request and response."));
    detailLayout->addWidget(m_heading);
    detailLayout->addWidget(m_detail, 1);
    // Height gained or lost goes to the request and response; the list keeps what it was given.
    m_split->setStretchFactor(0, 0);
    m_split->setStretchFactor(1, 1);
    // The eight steps of a full flow fit without scrolling; the rest goes to the request and response.
    m_split->setSizes({ 250, 400 });
    layout->addWidget(m_split, 1);

    QSettings settings;
    m_sizesRestored = m_split->restoreState(settings.value(SplitterKey).toByteArray());
    m_steps->header()->restoreState(settings.value(ColumnsKey).toByteArray());
    connect(
        m_split, &QSplitter::splitterMoved, this, [this] { QSettings().setValue(SplitterKey, m_split->saveState()); });

    connect(m_steps->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (!m_selecting)
            m_userPicked = true;
        showCurrentStep();
    });

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &AuthView::updateSummary);
    clear();
}

AuthView::~AuthView()
{
    QSettings settings;
    settings.setValue(SplitterKey, m_split->saveState());
    settings.setValue(ColumnsKey, m_steps->header()->saveState());
}

void AuthView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_sizesRestored)
        return;
    m_sizesRestored = true;
    // Until the user moves the splitter: room for the nine rows of a full flow, the rest for the detail.
    const int rowHeight = std::max(m_steps->fontMetrics().height() + 4, 18);
    const int list = m_steps->header()->sizeHint().height() + 9 * rowHeight + 2 * m_steps->frameWidth();
    const int total = m_split->height();
    if (total > list + 120)
        m_split->setSizes({ list, total - list });
}

void AuthView::clear()
{
    setSummary({});
    setSteps({});
}

void AuthView::setSummary(const AuthSummary& summary)
{
    m_summary = summary;
    updateSummary();
}

QString AuthView::relativeTime(qint64 deltaMs)
{
    const bool past = deltaMs < 0;
    const qint64 s = (past ? -deltaMs : deltaMs) / 1000;
    QString amount;
    if (s < 90)
        amount = tr("%n s", nullptr, int(s));
    else if (s < 90 * 60)
        amount = tr("%n min", nullptr, int((s + 30) / 60));
    else if (s < 48 * 3600)
        amount = tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    else
        amount = tr("%n day(s)", nullptr, int(s / 86400));
    return past ? tr("%1 ago").arg(amount) : tr("in %1").arg(amount);
}

QString AuthView::stateText(const AuthSummary& summary, qint64 nowMs)
{
    const QString why = summary.lastError;
    switch (summary.state) {
    case ServerAuth::State::None:
        return tr("none: no token yet (the server's first 401, or Authorize, starts an authorization)");
    case ServerAuth::State::Authorizing:
        return tr("authorizing…");
    case ServerAuth::State::Authorized:
        if (summary.expiresAt <= 0)
            return tr("authorized");
        if (summary.expiresAt <= nowMs)
            return tr("authorized, the access token expired %1").arg(relativeTime(summary.expiresAt - nowMs));
        return tr("authorized, expires %1").arg(relativeTime(summary.expiresAt - nowMs));
    case ServerAuth::State::Expiring:
        return summary.expiresAt > nowMs
            ? tr("expiring %1: a refresh is due").arg(relativeTime(summary.expiresAt - nowMs))
            : tr("expired: a refresh is due");
    case ServerAuth::State::NeedsUser:
        if (!summary.pendingAuthorization.isEmpty())
            return tr("needs authorization: waiting for you in the browser");
        return why.isEmpty() ? tr("needs re-authorization: press Authorize")
                             : tr("needs re-authorization: %1").arg(why);
    case ServerAuth::State::Failed:
        return why.isEmpty() ? tr("failed") : tr("failed: %1").arg(why);
    }
    return {};
}

QColor AuthView::stateColour(ServerAuth::State state)
{
    switch (state) {
    case ServerAuth::State::Authorized:
        return QColor(0x19, 0x87, 0x54);
    case ServerAuth::State::Authorizing:
        return QColor(0x0d, 0x6e, 0xfd);
    case ServerAuth::State::Expiring:
    case ServerAuth::State::NeedsUser:
        return QColor(0xe0, 0xa8, 0x00);
    case ServerAuth::State::Failed:
        return QColor(0xb0, 0x2a, 0x37);
    case ServerAuth::State::None:
        break;
    }
    return QColor(0x6c, 0x75, 0x7d);
}

void AuthView::updateSummary()
{
    const AuthSummary& s = m_summary;
    const QString state = stateText(s, QDateTime::currentMSecsSinceEpoch());
    m_state->setText(
        QStringLiteral("<span style='color:%1'>&#9679;</span> %2").arg(stateColour(s.state).name(), escaped(state)));
    m_state->setProperty("plainText", state);
    QString store;
    if (s.storeDescription.isEmpty())
        store = s.storePersistent ? tr("kept in the keychain") : QString();
    else if (s.storePersistent)
        store = tr("kept in %1").arg(s.storeDescription);
    if (s.storePersistent) {
        m_store->setStyleSheet(QString());
        m_store->setText(escaped(store));
    } else {
        store = tr("Warning: tokens and client secrets are lost when McpScope quits (%1).")
                    .arg(s.storeDescription.isEmpty() ? tr("no keychain") : s.storeDescription);
        m_store->setStyleSheet(QStringLiteral(
            "QLabel{background:#fff3cd;color:#664d03;border:1px solid #e0a800;border-radius:3px;padding:3px}"));
        m_store->setText(QStringLiteral("&#9888; ") + escaped(store));
    }
    m_store->setProperty("plainText", store);
    m_pending->setVisible(s.state == ServerAuth::State::NeedsUser && !s.pendingAuthorization.isEmpty());
    const bool busy = s.state == ServerAuth::State::Authorizing;
    m_authorize->setEnabled(!busy);
    m_refresh->setEnabled(!busy && s.hasToken);
    m_forget->setEnabled(s.hasToken);
    const bool counting
        = s.expiresAt > 0 && (s.state == ServerAuth::State::Authorized || s.state == ServerAuth::State::Expiring);
    if (counting && !m_tick.isActive())
        m_tick.start();
    else if (!counting)
        m_tick.stop();
}

QString AuthView::stateLine() const
{
    return m_state->property("plainText").toString();
}

QString AuthView::storeLine() const
{
    return m_store->property("plainText").toString();
}

void AuthView::setSteps(const QList<AuthStep>& steps)
{
    const qint64 flowStart = steps.isEmpty() ? 0 : steps.first().startedAt;
    if (flowStart != m_flowStart || steps.size() < m_model->rowCount()) {
        // Another flow: its failed (or newest) step is what the user wants to see first.
        m_userPicked = false;
        m_flowStart = flowStart;
    }
    // Rows removed or replaced move the current index: that is not the user picking a step.
    m_selecting = true;
    m_model->setSteps(steps);
    m_selecting = false;
    if (!m_userPicked || !m_steps->currentIndex().isValid())
        selectAutomatically();
    showCurrentStep();
}

void AuthView::selectAutomatically()
{
    const int failed = m_model->failedRow();
    const int row = failed >= 0 ? failed : m_model->rowCount() - 1;
    m_selecting = true;
    if (row >= 0)
        m_steps->setCurrentIndex(m_model->index(row, 0));
    else
        m_steps->setCurrentIndex({});
    m_selecting = false;
    m_userPicked = false;
}

QString AuthView::detailText(const AuthStep& step)
{
    QStringList sections;
    if (!step.urlsTried.isEmpty()) {
        QStringList lines { tr("URLs tried") };
        for (const QString& url : step.urlsTried)
            lines.append(QStringLiteral("  ") + url);
        sections.append(lines.join(QLatin1Char('\n')));
    }
    if (!step.request.isEmpty())
        sections.append(tr("Request") + QLatin1Char('\n') + step.request);
    if (!step.response.isEmpty())
        sections.append(tr("Response") + QLatin1Char('\n') + step.response);
    if (sections.isEmpty())
        return tr("Nothing was sent over the network in this step.");
    return sections.join(QStringLiteral("\n\n"));
}

void AuthView::showCurrentStep()
{
    const QModelIndex current = m_steps->currentIndex();
    if (!current.isValid()) {
        m_heading->setText(m_model->rowCount() == 0
                ? tr("No authorization has run for this server yet. The server's first 401 starts one, or press "
                     "Authorize.")
                : tr("Select a step to see its request and response."));
        m_heading->setProperty("plainText", m_heading->text());
        m_detail->clear();
        return;
    }
    const AuthStep step = current.data(AuthStepModel::StepRole).value<AuthStep>();
    const QString title = current.siblingAtColumn(AuthStepModel::Step).data().toString();
    QStringList facts { AuthStepModel::statusText(step.status) };
    if (step.startedAt > 0)
        facts.append(Presentation::timeText(step.startedAt));
    if (step.startedAt > 0 && step.endedAt > 0)
        facts.append(Presentation::durationText(step.endedAt - step.startedAt));
    const bool failed = step.status == AuthStep::Status::Failed;
    QString plain = title + QStringLiteral(" — ") + facts.join(QStringLiteral(" · "));
    QString html = QStringLiteral("<b>%1</b> — <span style='color:%2'>%3</span>")
                       .arg(title.toHtmlEscaped(), AuthStepModel::statusColour(step.status).name(),
                           facts.join(QStringLiteral(" · ")).toHtmlEscaped());
    if (!step.detail.isEmpty()) {
        if (failed) {
            plain += QLatin1Char('\n') + tr("Why: %1").arg(step.detail);
            html += QStringLiteral("<p style='color:%1;margin-top:4px'><b>%2</b> %3</p>")
                        .arg(AuthStepModel::statusColour(step.status).name(), tr("Why:"), escaped(step.detail));
        } else {
            plain += QLatin1Char('\n') + step.detail;
            html += QStringLiteral("<p style='margin-top:4px'>%1</p>").arg(escaped(step.detail));
        }
    }
    m_heading->setText(html);
    m_heading->setProperty("plainText", plain);
    const QString body = detailText(step);
    if (m_detail->toPlainText() != body)
        m_detail->setPlainText(body);
}

QString AuthView::detailHeading() const
{
    return m_heading->property("plainText").toString();
}

QString AuthView::detailBody() const
{
    return m_detail->toPlainText();
}

void AuthView::confirmForget()
{
    if (QMessageBox::question(this, tr("Forget tokens"),
            tr("Revoke this server's tokens and remove them from the token store? The next request needs a new "
               "authorization."))
        != QMessageBox::Yes)
        return;
    Q_EMIT forgetRequested();
}

} // namespace mcpscope
