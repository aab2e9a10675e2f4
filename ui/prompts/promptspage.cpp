#include "promptspage.h"

#include "engine/engine.h"
#include "engine/serverconnection.h"
#include "models/promptsmodel.h"
#include "models/promptsmodeldefs.h"
#include "prompts/promptrenderer.h"

#include <QCompleter>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QStringListModel>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace mcpscope {

PromptsPage::PromptsPage(Engine* engine, std::function<ServerConnection*()> currentConnection, QWidget* parent)
    : QSplitter(Qt::Horizontal, parent)
    , m_engine(engine)
    , m_currentConnection(std::move(currentConnection))
    , m_model(new PromptsModel(this))
{
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    m_list = new QListView(left);
    m_list->setObjectName(QStringLiteral("promptsView"));
    m_list->setModel(m_model);
    auto* refreshButton = new QPushButton(tr("Refresh"), left);
    refreshButton->setObjectName(QStringLiteral("refreshPrompts"));
    leftLayout->addWidget(m_list);
    leftLayout->addWidget(refreshButton);
    connect(refreshButton, &QPushButton::clicked, this, &PromptsPage::refresh);

    auto* right = new QSplitter(Qt::Vertical, this);
    auto* formBox = new QWidget(right);
    auto* formLayout = new QVBoxLayout(formBox);
    m_title = new QLabel(tr("Select a prompt."), formBox);
    m_title->setWordWrap(true);
    m_formArea = new QWidget(formBox);
    m_form = new QFormLayout(m_formArea);
    m_get = new QPushButton(tr("Get Prompt"), formBox);
    m_get->setObjectName(QStringLiteral("getPrompt"));
    m_get->setEnabled(false);
    m_get->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    formLayout->addWidget(m_title);
    formLayout->addWidget(m_formArea);
    formLayout->addWidget(m_get, 0, Qt::AlignLeft);
    formLayout->addStretch(1);
    m_messages = new QTextBrowser(right);
    m_messages->setObjectName(QStringLiteral("promptMessages"));
    m_messages->setOpenLinks(false);
    right->setStretchFactor(0, 1);
    right->setStretchFactor(1, 2);
    setStretchFactor(0, 1);
    setStretchFactor(1, 3);
    setSizes({ 260, 780 });

    connect(m_get, &QPushButton::clicked, this, &PromptsPage::getPrompt);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& index) {
        buildForm(index.isValid() ? index.data(PromptsModelRole::PromptRole).toJsonObject() : QJsonObject());
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { buildForm({}); });
}

void PromptsPage::showConnection(ServerConnection* connection)
{
    if (connection == m_connection)
        return;
    disconnect(m_readyConnection);
    m_connection = connection;
    ++m_generation;
    m_model->clear();
    m_messages->clear();
    if (!connection)
        return;
    // Listed when the page is on screen: a server is not sent prompts/list (a call of its own in the log)
    // for a tab nobody looks at.
    m_stale = true;
    m_readyConnection = connect(connection, &ServerConnection::ready, this, [this] {
        m_stale = true;
        if (isVisible())
            refresh();
    });
    if (isVisible() && connection->state() == ServerConnection::State::Ready)
        refresh();
}

void PromptsPage::showEvent(QShowEvent* event)
{
    QSplitter::showEvent(event);
    if (m_stale && m_connection && m_connection->state() == ServerConnection::State::Ready)
        refresh();
}

void PromptsPage::refresh()
{
    ServerConnection* c = m_currentConnection();
    if (!c) {
        Q_EMIT statusMessage(tr("Select a server first."));
        return;
    }
    m_stale = false;
    const quint64 generation = ++m_generation;
    const QString server = c->name();
    QPointer<PromptsPage> self(this);
    m_engine->list(server, QStringLiteral("prompts/list"), QStringLiteral("prompts"), {},
        [self, generation, server](const CallRecord& record) {
            if (!self || generation != self->m_generation)
                return;
            if (record.outcome != CallOutcome::Success) {
                Q_EMIT self->statusMessage(self->tr("prompts/list on %1: %2 %3")
                                               .arg(server, outcomeName(record.outcome),
                                                   record.error.value(QLatin1String("message")).toString()));
                return;
            }
            const QString selected = self->m_prompt;
            self->m_model->setPrompts(record.result.toObject().value(QLatin1String("prompts")).toArray());
            if (!selected.isEmpty())
                self->selectPrompt(selected);
            Q_EMIT self->promptsListed(self->m_model->rowCount());
        });
}

bool PromptsPage::selectPrompt(const QString& name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return false;
    m_list->setCurrentIndex(m_model->index(row));
    if (m_prompt != name)
        buildForm(m_model->prompt(row));
    return true;
}

void PromptsPage::buildForm(const QJsonObject& prompt)
{
    const QString name = prompt.value(QLatin1String("name")).toString();
    if (name == m_prompt && !name.isEmpty())
        return;
    m_prompt = name;
    ++m_generation;
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_fields.clear();
    m_suggestions.clear();
    m_get->setEnabled(!name.isEmpty());
    if (name.isEmpty()) {
        m_title->setText(tr("Select a prompt."));
        return;
    }
    const QString title = prompt.value(QLatin1String("title")).toString();
    const QString description = prompt.value(QLatin1String("description")).toString();
    m_title->setText(
        QStringLiteral("<b>%1</b>%2<br>%3")
            .arg(name.toHtmlEscaped(), title.isEmpty() ? QString() : QStringLiteral(" — ") + title.toHtmlEscaped(),
                description.toHtmlEscaped()));
    const QJsonArray arguments = prompt.value(QLatin1String("arguments")).toArray();
    for (const QJsonValue& value : arguments) {
        const QJsonObject argument = value.toObject();
        const QString argName = argument.value(QLatin1String("name")).toString();
        if (argName.isEmpty())
            continue;
        const bool required = argument.value(QLatin1String("required")).toBool();
        auto* field = new QLineEdit(m_formArea);
        field->setObjectName(QStringLiteral("promptArg_") + argName);
        field->setPlaceholderText(argument.value(QLatin1String("description")).toString());
        field->setToolTip(required ? tr("Required") : tr("Optional"));
        auto* suggestions = new QStringListModel(field);
        auto* completer = new QCompleter(suggestions, field);
        completer->setCaseSensitivity(Qt::CaseInsensitive);
        field->setCompleter(completer);
        connect(field, &QLineEdit::textEdited, this, [this, argName] { requestCompletion(argName); });
        connect(field, &QLineEdit::textChanged, this, [this] {
            bool complete = true;
            for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it) {
                if (it.value()->property("required").toBool() && it.value()->text().isEmpty())
                    complete = false;
            }
            m_get->setEnabled(complete);
        });
        field->setProperty("required", required);
        // A required argument is marked with an asterisk and bold label, as forms conventionally do.
        auto* label = new QLabel(
            required ? QStringLiteral("<b>%1 *</b>").arg(argName.toHtmlEscaped()) : argName.toHtmlEscaped(),
            m_formArea);
        m_form->addRow(label, field);
        m_fields.insert(argName, field);
        m_suggestions.insert(argName, suggestions);
        if (required)
            m_get->setEnabled(false);
    }
    if (arguments.isEmpty())
        m_form->addRow(new QLabel(tr("This prompt takes no arguments."), m_formArea));
}

QJsonObject PromptsPage::formArguments() const
{
    QJsonObject arguments;
    for (auto it = m_fields.cbegin(); it != m_fields.cend(); ++it) {
        if (!it.value()->text().isEmpty())
            arguments.insert(it.key(), it.value()->text());
    }
    return arguments;
}

void PromptsPage::requestCompletion(const QString& argument)
{
    ServerConnection* c = m_currentConnection();
    QLineEdit* field = m_fields.value(argument);
    if (!c || !field || m_prompt.isEmpty())
        return;
    // The other filled arguments go as context, so a server can narrow one by another (SEP-1152).
    QJsonObject context = formArguments();
    context.remove(argument);
    QJsonObject params { { QStringLiteral("ref"),
                             QJsonObject { { QStringLiteral("type"), QStringLiteral("ref/prompt") },
                                 { QStringLiteral("name"), m_prompt } } },
        { QStringLiteral("argument"),
            QJsonObject { { QStringLiteral("name"), argument }, { QStringLiteral("value"), field->text() } } } };
    if (!context.isEmpty())
        params.insert(QStringLiteral("context"), QJsonObject { { QStringLiteral("arguments"), context } });
    const quint64 generation = m_generation;
    const quint64 request = ++m_completionGeneration[argument];
    QPointer<PromptsPage> self(this);
    m_engine->call(c->name(), QStringLiteral("completion/complete"), params, {},
        [self, generation, request, argument](const CallRecord& record) {
            if (!self || generation != self->m_generation || request != self->m_completionGeneration.value(argument))
                return;
            QLineEdit* field = self->m_fields.value(argument);
            QStringListModel* suggestions = self->m_suggestions.value(argument);
            if (!field || !suggestions || record.outcome != CallOutcome::Success)
                return;
            QStringList values;
            const QJsonArray listed = record.result.toObject()
                                          .value(QLatin1String("completion"))
                                          .toObject()
                                          .value(QLatin1String("values"))
                                          .toArray();
            for (const QJsonValue& value : listed)
                values.append(value.toString());
            suggestions->setStringList(values);
            if (!values.isEmpty() && field->hasFocus())
                field->completer()->complete();
            Q_EMIT self->completionsShown(argument, values);
        });
}

void PromptsPage::getPrompt()
{
    ServerConnection* c = m_currentConnection();
    if (!c || m_prompt.isEmpty()) {
        Q_EMIT statusMessage(tr("Select a server and a prompt first."));
        return;
    }
    const QString name = m_prompt;
    const quint64 generation = m_generation;
    m_messages->setPlainText(tr("Getting %1 from %2…").arg(name, c->name()));
    QPointer<PromptsPage> self(this);
    m_engine->call(c->name(), QStringLiteral("prompts/get"),
        { { QStringLiteral("name"), name }, { QStringLiteral("arguments"), formArguments() } }, {},
        [self, generation, name](const CallRecord& record) {
            if (!self || generation != self->m_generation)
                return;
            if (record.outcome != CallOutcome::Success) {
                const QString message = self->tr("prompts/get %1: %2 %3")
                                            .arg(name, outcomeName(record.outcome),
                                                record.error.value(QLatin1String("message")).toString());
                self->m_messages->setPlainText(message);
                self->m_renderedText.clear();
                Q_EMIT self->statusMessage(message);
                return;
            }
            const QJsonObject result = record.result.toObject();
            PromptRenderer::render(result, self->m_messages->document());
            self->m_renderedText = PromptRenderer::plainText(result);
            Q_EMIT self->promptRendered();
        });
}

} // namespace mcpscope
