#include "serversdock.h"

#include "mainwindow/serverscolumns.h"
#include "models/serverlistmodel.h"
#include "models/serverlistmodeldefs.h"
#include "presentation/presentation.h"

#include <QHeaderView>
#include <QTimer>
#include <QTreeView>

namespace mcpscope {

ServersDock::ServersDock(ServerListModel* model, ServerListPresentation* presentation, QWidget* parent)
    : QDockWidget(tr("Servers"), parent)
    , m_model(model)
    , m_presentation(presentation)
{
    setObjectName(QStringLiteral("serversDock"));
    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("serversView"));
    m_view->setRootIsDecorated(false);
    m_view->setModel(presentation);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    // Columns fit their contents, but measured at most a few times a second: ResizeToContents measures
    // every row on every state change of any server, which with 100 servers connecting stalled the
    // window for half a minute.
    m_view->setUniformRowHeights(true);
    auto* fitColumns = new QTimer(m_view);
    fitColumns->setSingleShot(true);
    fitColumns->setInterval(250);
    // Where the dock is too narrow for them all, the server column gives way (its two lines elide), so that
    // the state and breaker badges stay in view.
    connect(fitColumns, &QTimer::timeout, m_view, [view = m_view] {
        for (int column = 0; column < view->model()->columnCount(); ++column) {
            if (!view->isColumnHidden(column))
                view->resizeColumnToContents(column);
        }
        Presentation::shrinkToFit(view->header(), view->viewport()->width(),
            { { ServerListModelColumn::Name, 20 * view->fontMetrics().averageCharWidth() } });
    });
    const auto fitSoon = [fitColumns] {
        if (!fitColumns->isActive())
            fitColumns->start();
    };
    connect(presentation, &QAbstractItemModel::dataChanged, fitColumns, fitSoon);
    connect(presentation, &QAbstractItemModel::rowsInserted, fitColumns, fitSoon);
    connect(presentation, &QAbstractItemModel::modelReset, fitColumns, fitSoon);
    Presentation::whenWidthChanges(m_view->viewport(), fitSoon);
    setUpServerColumns(m_view);
    setWidget(m_view);
    connect(
        m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ServersDock::currentServerChanged);
}

ServerConnection* ServersDock::currentConnection() const
{
    const QModelIndex index = m_view->currentIndex();
    return index.isValid() ? m_model->connectionAt(index.row()) : nullptr;
}

bool ServersDock::selectServer(const QString& name)
{
    for (int row = 0; row < m_presentation->rowCount(); ++row) {
        if (m_presentation->index(row, 0).data(ServerListModelRole::NameRole).toString() == name) {
            m_view->setCurrentIndex(m_presentation->index(row, 0));
            return true;
        }
    }
    return false;
}

void ServersDock::clearCurrent()
{
    m_view->selectionModel()->clear();
}

void ServersDock::selectFirst()
{
    if (m_presentation->rowCount() > 0)
        m_view->setCurrentIndex(m_presentation->index(0, 0));
}

} // namespace mcpscope
