#include "elicitationeditor.h"

#include "composer/schemaform.h"

#include <QHBoxLayout>
#include <QHostAddress>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace mcpscope {

namespace {

QLabel* wrappedLabel(const QString& text, const QString& name, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QPushButton* button(const QString& text, const QString& name, QWidget* parent)
{
    auto* button = new QPushButton(text, parent);
    button->setObjectName(name);
    return button;
}

QJsonObject action(const char* name)
{
    return { { QStringLiteral("action"), QString::fromLatin1(name) } };
}

} // namespace

ElicitationEditor::ElicitationEditor(const QJsonObject& params, bool fromError, UrlOpener opener, QWidget* parent)
    : QWidget(parent)
    , m_fromError(fromError)
    , m_opener(std::move(opener))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    const QString message = params.value(QLatin1String("message")).toString();
    auto* said = wrappedLabel(
        message.isEmpty() ? tr("(The server gave no message.)") : message, QStringLiteral("elicitationMessage"), this);
    QFont font = said->font();
    font.setBold(true);
    said->setFont(font);
    layout->addWidget(said);
    const bool url = params.value(QLatin1String("mode")).toString() == QLatin1String("url");
    layout->addWidget(url ? buildUrl(params) : buildForm(params), 1);
    layout->addWidget(m_answerButtons = buildButtons(!url));
}

QWidget* ElicitationEditor::buildForm(const QJsonObject& params)
{
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    m_form = new SchemaForm(page);
    m_form->setObjectName(QStringLiteral("elicitationForm"));
    m_form->setSchema(params.value(QLatin1String("requestedSchema")).toObject());
    layout->addWidget(m_form);
    m_problems = wrappedLabel(QString(), QStringLiteral("elicitationProblems"), page);
    m_problems->setStyleSheet(QStringLiteral("color: #b02a37"));
    m_problems->hide();
    layout->addWidget(m_problems);
    connect(m_form, &SchemaForm::valueChanged, this, [this] { m_problems->hide(); });
    return page;
}

QString ElicitationEditor::highlightedUrl(const QUrl& url)
{
    const QString full = url.toString(QUrl::FullyEncoded);
    const QString host = url.host(QUrl::FullyEncoded);
    const qsizetype at = host.isEmpty() ? -1 : full.indexOf(host, url.scheme().size());
    if (at < 0)
        return full.toHtmlEscaped();
    return full.left(at).toHtmlEscaped()
        + QStringLiteral("<span style=\"background-color: #ffe08a; color: #000; font-weight: bold\">%1</span>")
              .arg(host.toHtmlEscaped())
        + full.mid(at + host.size()).toHtmlEscaped();
}

QStringList ElicitationEditor::urlWarnings(const QUrl& url)
{
    QStringList warnings;
    if (!url.isValid() || url.host().isEmpty())
        warnings.append(tr("This is not a valid web address."));
    else if (url.scheme() != QLatin1String("https"))
        warnings.append(tr("The address is not https: what you enter there travels unencrypted."));
    if (!QHostAddress(url.host()).isNull())
        warnings.append(tr("The host is a bare IP address, not a name."));
    if (url.host(QUrl::FullyEncoded).contains(QLatin1String("xn--")))
        warnings.append(tr("The host has international characters (%1): check it is the site you expect.")
                            .arg(url.host(QUrl::FullyEncoded)));
    if (!url.userInfo().isEmpty())
        warnings.append(tr("The address carries a user name before the host."));
    return warnings;
}

QWidget* ElicitationEditor::buildUrl(const QJsonObject& params)
{
    m_url = QUrl(params.value(QLatin1String("url")).toString(), QUrl::StrictMode);
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* address = wrappedLabel(highlightedUrl(m_url), QStringLiteral("elicitationUrl"), page);
    address->setTextFormat(Qt::RichText);
    address->setStyleSheet(QStringLiteral("font-family: monospace; padding: 4px; border: 1px solid palette(mid)"));
    layout->addWidget(address);
    auto* host = wrappedLabel(
        tr("Host: <b>%1</b>").arg(m_url.host().toHtmlEscaped()), QStringLiteral("elicitationHost"), page);
    host->setTextFormat(Qt::RichText);
    layout->addWidget(host);
    const QStringList warnings = urlWarnings(m_url);
    if (!warnings.isEmpty()) {
        auto* warn = wrappedLabel(warnings.join(QLatin1Char('\n')), QStringLiteral("elicitationUrlWarnings"), page);
        warn->setStyleSheet(QStringLiteral("color: #b35c00"));
        layout->addWidget(warn);
    }
    QString about = m_fromError ? tr("A tool call ended with error -32042: the server needs this page visited first. "
                                     "Call the tool again when you are done there.")
                                : tr("The server asks you to open this page. McpScope has not contacted it.");
    const QString id = params.value(QLatin1String("elicitationId")).toString();
    if (!id.isEmpty())
        about += QLatin1Char(' ') + tr("(elicitation %1)").arg(id);
    layout->addWidget(wrappedLabel(about, QStringLiteral("elicitationUrlAbout"), page));

    m_urlSteps = new QStackedWidget(page);
    m_urlSteps->setObjectName(QStringLiteral("elicitationUrlSteps"));
    auto* first = new QWidget(m_urlSteps);
    auto* firstRow = new QHBoxLayout(first);
    firstRow->setContentsMargins(0, 0, 0, 0);
    QPushButton* open = button(tr("&Open in Browser…"), QStringLiteral("elicitationOpen"), first);
    open->setEnabled(m_url.isValid() && !m_url.host().isEmpty());
    firstRow->addWidget(open);
    firstRow->addStretch(1);
    m_urlSteps->addWidget(first);

    auto* consent = new QWidget(m_urlSteps);
    consent->setObjectName(QStringLiteral("elicitationConsent"));
    auto* consentLayout = new QVBoxLayout(consent);
    consentLayout->setContentsMargins(0, 0, 0, 0);
    auto* question = wrappedLabel(
        tr("Open <b>%1</b> in your system browser?").arg(m_url.host().toHtmlEscaped()), QString(), consent);
    question->setTextFormat(Qt::RichText);
    consentLayout->addWidget(question);
    auto* consentRow = new QHBoxLayout();
    QPushButton* yes = button(tr("Yes, Open It"), QStringLiteral("elicitationConsentOpen"), consent);
    QPushButton* back = button(tr("Back"), QStringLiteral("elicitationConsentBack"), consent);
    consentRow->addWidget(yes);
    consentRow->addWidget(back);
    consentRow->addStretch(1);
    consentLayout->addLayout(consentRow);
    m_urlSteps->addWidget(consent);

    auto* waiting = new QWidget(m_urlSteps);
    auto* waitingRow = new QHBoxLayout(waiting);
    waitingRow->setContentsMargins(0, 0, 0, 0);
    waitingRow->addWidget(
        wrappedLabel(m_fromError
                ? tr("Opened in your browser. Call the tool again once the page says you are done.")
                : tr("Accepted and opened in your browser. Waiting for the server to say the flow is complete…"),
            QStringLiteral("elicitationWaiting"), waiting),
        1);
    QPushButton* dismiss = button(tr("D&ismiss"), QStringLiteral("elicitationDismiss"), waiting);
    waitingRow->addWidget(dismiss);
    m_urlSteps->addWidget(waiting);
    layout->addWidget(m_urlSteps);
    layout->addStretch(1);

    connect(open, &QPushButton::clicked, this, [this] { m_urlSteps->setCurrentIndex(1); });
    connect(back, &QPushButton::clicked, this, [this] { m_urlSteps->setCurrentIndex(0); });
    connect(yes, &QPushButton::clicked, this, &ElicitationEditor::openUrl);
    connect(dismiss, &QPushButton::clicked, this, &ElicitationEditor::dismissed);
    return page;
}

QWidget* ElicitationEditor::buildButtons(bool accept)
{
    auto* row = new QWidget(this);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addStretch(1);
    QPushButton* cancel = button(tr("&Cancel"), QStringLiteral("elicitationCancel"), row);
    cancel->setToolTip(tr("Answer \"cancel\": the user dismissed the request without choosing"));
    QPushButton* decline = button(tr("&Decline"), QStringLiteral("elicitationDecline"), row);
    decline->setToolTip(tr("Answer \"decline\": the user refused to give what was asked"));
    layout->addWidget(cancel);
    layout->addWidget(decline);
    if (accept) {
        QPushButton* ok = button(tr("&Accept"), QStringLiteral("elicitationAccept"), row);
        ok->setDefault(true);
        ok->setToolTip(tr("Check the form, then answer \"accept\" with its content"));
        layout->addWidget(ok);
        connect(ok, &QPushButton::clicked, this, &ElicitationEditor::acceptForm);
    }
    auto answer = [this](const char* name) {
        if (m_fromError)
            Q_EMIT dismissed(); // nobody waits for an answer to a -32042
        else
            Q_EMIT answered(action(name));
    };
    connect(cancel, &QPushButton::clicked, this, [answer] { answer("cancel"); });
    connect(decline, &QPushButton::clicked, this, [answer] { answer("decline"); });
    return row;
}

void ElicitationEditor::acceptForm()
{
    QStringList problems;
    if (!m_form->isValid(&problems)) {
        m_problems->setText(tr("Fix these before accepting:\n%1").arg(problems.join(QLatin1Char('\n'))));
        m_problems->show();
        return;
    }
    QJsonObject result = action("accept");
    result.insert(QStringLiteral("content"), m_form->value());
    Q_EMIT answered(result);
}

void ElicitationEditor::openUrl()
{
    if (!m_opener || !m_opener(m_url)) {
        m_urlSteps->setCurrentIndex(0);
        m_problems = m_problems ? m_problems : wrappedLabel(QString(), QStringLiteral("elicitationProblems"), this);
        m_problems->setText(tr("The system browser could not be started for %1.").arg(m_url.toDisplayString()));
        m_problems->setStyleSheet(QStringLiteral("color: #b02a37"));
        layout()->addWidget(m_problems);
        m_problems->show();
        return;
    }
    if (m_fromError)
        showAwaitingCompletion();
    else
        Q_EMIT answered(action("accept"));
}

void ElicitationEditor::showAwaitingCompletion()
{
    if (!m_urlSteps)
        return;
    m_urlSteps->setCurrentIndex(2);
    m_answerButtons->hide();
}

} // namespace mcpscope
