#include "emptystate.h"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace mcpscope {

namespace {

QPushButton* actionButton(const QString& objectName, const QString& text, const QString& tip, QWidget* parent)
{
    auto* button = new QPushButton(text, parent);
    button->setObjectName(objectName);
    button->setToolTip(tip);
    button->setMinimumWidth(260);
    button->setMinimumHeight(36);
    return button;
}

} // namespace

EmptyState::EmptyState(QAbstractItemModel* servers, QWidget* content, QWidget* parent)
    : QStackedWidget(parent)
    , m_servers(servers)
    , m_content(content)
{
    setObjectName(QStringLiteral("centreStack"));
    m_page = new QWidget(this);
    m_page->setObjectName(QStringLiteral("emptyState"));
    auto* outer = new QVBoxLayout(m_page);
    auto* column = new QWidget(m_page);
    auto* layout = new QVBoxLayout(column);
    outer->addStretch(2);
    outer->addWidget(column, 0, Qt::AlignHCenter);
    outer->addStretch(3);

    auto* title = new QLabel(tr("No servers yet"), column);
    title->setObjectName(QStringLiteral("emptyStateTitle"));
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.6);
    titleFont.setBold(true);
    title->setFont(titleFont);
    title->setAlignment(Qt::AlignCenter);
    layout->addWidget(title);

    // Broken by hand: a word-wrapped label in a centred column gets too little height.
    auto* hint = new QLabel(tr("McpScope connects to MCP servers, lists their tools, resources and prompts,\n"
                               "calls them and records every exchange. Start with one of these:"),
        column);
    hint->setAlignment(Qt::AlignCenter);
    layout->addWidget(hint);
    layout->addSpacing(16);

    m_add = actionButton(QStringLiteral("emptyAddServer"), tr("Add server…"),
        tr("A server started as a local command (stdio) or reached at a URL (Streamable HTTP or SSE)."), column);
    m_import = actionButton(QStringLiteral("emptyImport"), tr("Import mcp.json…"),
        tr("The servers of Claude Desktop, Claude Code, Cursor, VS Code or Cline, or a server.json from the MCP "
           "registry."),
        column);
    m_demo = actionButton(QStringLiteral("emptyDemo"), tr("Open demo workspace"),
        tr("Two servers of the MCP reference server \"everything\": one over stdio, one over HTTP."), column);
    for (QPushButton* button : { m_add, m_import, m_demo })
        layout->addWidget(button, 0, Qt::AlignHCenter);

    const QString demo = demoWorkspacePath();
    if (demo.isEmpty()) {
        m_demo->setEnabled(false);
        m_demo->setToolTip(tr("The demo workspace (resources/demo-workspace.json) was not found beside McpScope."));
    }
    auto* formats = new QLabel(tr("You can also drop an mcp.json or a workspace file on this window."), column);
    formats->setObjectName(QStringLiteral("emptyStateFootnote"));
    formats->setAlignment(Qt::AlignCenter);
    formats->setEnabled(false); // drawn in the palette's dimmed text colour
    layout->addSpacing(8);
    layout->addWidget(formats);

    m_chooseFile = [](QWidget* dialogParent) {
        return QFileDialog::getOpenFileName(dialogParent,
            tr("Import an mcp.json (Claude Desktop, Cursor, VS Code, Cline) or a registry server.json"), QString(),
            tr("JSON files (*.json);;All files (*)"));
    };
    connect(m_add, &QPushButton::clicked, this, &EmptyState::addServerRequested);
    connect(m_import, &QPushButton::clicked, this, [this] {
        const QString path = m_chooseFile(this);
        if (!path.isEmpty())
            Q_EMIT importRequested(path);
    });
    connect(m_demo, &QPushButton::clicked, this, [this] {
        const QString path = demoWorkspacePath();
        if (!path.isEmpty())
            Q_EMIT openWorkspaceRequested(path);
    });

    addWidget(m_page);
    addWidget(m_content);
    connect(m_servers, &QAbstractItemModel::rowsInserted, this, &EmptyState::follow);
    connect(m_servers, &QAbstractItemModel::rowsRemoved, this, &EmptyState::follow);
    connect(m_servers, &QAbstractItemModel::modelReset, this, &EmptyState::follow);
    follow();
}

void EmptyState::follow()
{
    setCurrentWidget(m_servers->rowCount() > 0 ? m_content : m_page);
}

QString EmptyState::demoWorkspacePath()
{
    const QString name = QStringLiteral("demo-workspace.json");
    QStringList candidates;
    if (const QString fromEnv = qEnvironmentVariable("MCPSCOPE_DEMO_WORKSPACE"); !fromEnv.isEmpty())
        candidates.append(fromEnv);
    const QDir appDir(QCoreApplication::applicationDirPath());
    candidates.append(appDir.filePath(QStringLiteral("../share/mcpscope/") + name));
#ifdef MCPSCOPE_RESOURCES_DIR
    // The source tree this build came from: a build directory may live anywhere.
    candidates.append(QStringLiteral(MCPSCOPE_RESOURCES_DIR "/") + name);
#endif
    candidates.append(appDir.filePath(QStringLiteral("../resources/") + name));
    candidates.append(appDir.filePath(QStringLiteral("../../resources/") + name));
    for (const QString& candidate : std::as_const(candidates)) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isReadable())
            return info.canonicalFilePath();
    }
    return {};
}

} // namespace mcpscope
