#include "rootseditor.h"

#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace mcpscope {

RootsEditor::RootsEditor(QWidget* parent)
    : QGroupBox(tr("Roots (folders the server may work in)"), parent)
{
    setObjectName(QStringLiteral("rootsEditor"));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("roots"));
    m_list->setToolTip(tr("McpScope answers the server's roots/list with these folders, in this order, and "
                          "tells a connected server when the list changes (notifications/roots/list_changed)."));
    // Room for three folders before it scrolls: the dialog stays short.
    m_list->setMaximumHeight(m_list->fontMetrics().height() * 4 + 8);
    m_add = new QPushButton(tr("Add &Folder…"), this);
    m_add->setObjectName(QStringLiteral("addRoot"));
    m_remove = new QPushButton(tr("Remo&ve"), this);
    m_remove->setObjectName(QStringLiteral("removeRoot"));
    auto* buttons = new QVBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);

    m_chooser = [this] { return QFileDialog::getExistingDirectory(this, tr("Add a root folder"), QDir::homePath()); };
    connect(m_add, &QPushButton::clicked, this, [this] {
        const QString folder = m_chooser();
        if (!folder.isEmpty())
            addRoot(QDir::toNativeSeparators(folder));
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        delete m_list->takeItem(m_list->currentRow());
        updateButtons();
        Q_EMIT changed();
    });
    connect(m_list, &QListWidget::currentRowChanged, this, &RootsEditor::updateButtons);
    updateButtons();
}

void RootsEditor::setRoots(const QStringList& roots)
{
    m_list->clear();
    m_list->addItems(roots);
    updateButtons();
}

QStringList RootsEditor::roots() const
{
    QStringList roots;
    for (int row = 0; row < m_list->count(); ++row)
        roots.append(m_list->item(row)->text());
    return roots;
}

bool RootsEditor::addRoot(const QString& root)
{
    if (root.trimmed().isEmpty() || roots().contains(root))
        return false;
    m_list->addItem(root);
    m_list->setCurrentRow(m_list->count() - 1);
    updateButtons();
    Q_EMIT changed();
    return true;
}

void RootsEditor::updateButtons()
{
    m_remove->setEnabled(m_list->currentRow() >= 0);
    m_remove->setToolTip(m_list->currentRow() >= 0 ? QString() : tr("Select a folder to remove it"));
}

} // namespace mcpscope
