#include "serverscolumns.h"

#include "models/serverlistmodeldefs.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QMenu>
#include <QPainter>
#include <QSettings>
#include <QStyledItemDelegate>
#include <QTreeView>

namespace mcpscope {

namespace {

const QString HiddenKey = QStringLiteral("serversView/hiddenColumns");
constexpr int Padding = 3;

/// The Server column: the name, and below it the transport, the protocol era and the call counters.
class ServerNameDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    static QString details(const QModelIndex& index)
    {
        using namespace ServerListModelColumn;
        const auto count = [&index](int column) { return index.siblingAtColumn(column).data().toLongLong(); };
        QStringList parts { index.siblingAtColumn(Transport).data().toString(),
            index.siblingAtColumn(Era).data().toString() };
        // Spelled out: without a translator loaded, "%n call(s)" stays "call(s)".
        const qint64 calls = count(Calls);
        parts.append(calls == 0 ? QApplication::translate("mcpscope::MainWindow", "no calls")
                : calls == 1    ? QApplication::translate("mcpscope::MainWindow", "1 call")
                                : QApplication::translate("mcpscope::MainWindow", "%1 calls").arg(calls));
        if (const qint64 failed = count(Failures))
            parts.append(QApplication::translate("mcpscope::MainWindow", "%n failed", nullptr, int(failed)));
        if (const qint64 retried = count(Retries))
            parts.append(QApplication::translate("mcpscope::MainWindow", "%n retried", nullptr, int(retried)));
        if (const qint64 uncertain = count(Uncertain))
            parts.append(QApplication::translate("mcpscope::MainWindow", "%n uncertain", nullptr, int(uncertain)));
        return parts.join(QStringLiteral(" · "));
    }

    static QFont smallFont(const QFont& font)
    {
        QFont small = font;
        small.setPointSizeF(font.pointSizeF() * 0.85);
        return small;
    }

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        const QString name = opt.text;
        opt.text.clear();
        const QWidget* widget = opt.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        // Background, selection and focus as any item; the two lines on top.
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
        const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget)
                               .adjusted(Padding, Padding - 1, -Padding, -Padding + 1);
        const QPalette::ColorGroup group = opt.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled;
        const bool selected = opt.state & QStyle::State_Selected;
        const QFontMetrics nameMetrics(opt.font);
        const QFont small = smallFont(opt.font);
        const QFontMetrics smallMetrics(small);

        painter->save();
        painter->setFont(opt.font);
        painter->setPen(opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
        const QRect first(text.left(), text.top(), text.width(), nameMetrics.height());
        painter->drawText(
            first, Qt::AlignLeft | Qt::AlignVCenter, nameMetrics.elidedText(name, Qt::ElideRight, first.width()));
        painter->setFont(small);
        painter->setPen(opt.palette.color(group, selected ? QPalette::HighlightedText : QPalette::PlaceholderText));
        const QRect second(text.left(), first.bottom() + 1, text.width(), smallMetrics.height());
        painter->drawText(second, Qt::AlignLeft | Qt::AlignVCenter,
            smallMetrics.elidedText(details(index), Qt::ElideRight, second.width()));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        const QFontMetrics nameMetrics(opt.font);
        const QFontMetrics smallMetrics(smallFont(opt.font));
        const int width
            = std::max(nameMetrics.horizontalAdvance(opt.text), smallMetrics.horizontalAdvance(details(index)));
        return { width + 4 * Padding + 4, nameMetrics.height() + smallMetrics.height() + 2 * Padding + 1 };
    }
};

} // namespace

void setUpServerColumns(QTreeView* view)
{
    using namespace ServerListModelColumn;
    view->setItemDelegateForColumn(Name, new ServerNameDelegate(view));
    // The second line shows other columns' values: a change of any of them repaints the name cell too.
    QObject::connect(view->model(), &QAbstractItemModel::dataChanged, view,
        [view](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
            if (topLeft.column() == Name)
                return;
            for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                view->update(topLeft.siblingAtRow(row).siblingAtColumn(Name));
        });
    const QList<QVariant> defaults { int(Transport), int(SessionId), int(ProtocolVersion), int(ConsecutiveFailures),
        int(BreakerCooldownEnd), int(Calls), int(Failures), int(Retries), int(Uncertain), int(InFlight), int(Era) };
    QList<int> hidden;
    for (const QVariant& column : QSettings().value(HiddenKey, defaults).toList())
        hidden.append(column.toInt()); // read back from the settings file as text
    for (int column = 0; column < Count; ++column)
        view->setColumnHidden(column, hidden.contains(column));

    QHeaderView* header = view->header();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(header, &QWidget::customContextMenuRequested, view, [view, header](const QPoint& at) {
        QMenu menu(header);
        QAbstractItemModel* model = view->model();
        for (int column = 1; column < model->columnCount(); ++column) {
            QAction* action = menu.addAction(model->headerData(column, Qt::Horizontal).toString());
            action->setCheckable(true);
            action->setChecked(!view->isColumnHidden(column));
            QObject::connect(action, &QAction::toggled, view, [view, column](bool shown) {
                view->setColumnHidden(column, !shown);
                if (shown)
                    view->resizeColumnToContents(column);
                QList<QVariant> hiddenNow;
                for (int c = 0; c < view->model()->columnCount(); ++c) {
                    if (view->isColumnHidden(c))
                        hiddenNow.append(c);
                }
                QSettings().setValue(HiddenKey, hiddenNow);
            });
        }
        menu.exec(header->mapToGlobal(at));
    });
}

} // namespace mcpscope
