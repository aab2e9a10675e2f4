#include "theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QCoreApplication>
#include <QMenu>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace mcpscope {

void applyTheme(Theme theme)
{
    // Qt 6.4 has no colour-scheme API: the system palette is the default, an override swaps it.
    static const QPalette systemPalette = QApplication::palette();
    if (theme == Theme::System) {
        QApplication::setPalette(systemPalette);
        return;
    }
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    if (theme == Theme::Light) {
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::AlternateBase, QColor(40, 40, 43));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::Button, QColor(55, 55, 58));
    dark.setColor(QPalette::ButtonText, QColor(230, 230, 230));
    dark.setColor(QPalette::Highlight, QColor(38, 110, 200));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::ToolTipBase, QColor(55, 55, 58));
    dark.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    dark.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
    dark.setColor(QPalette::Light, QColor(75, 75, 78));
    dark.setColor(QPalette::Midlight, QColor(62, 62, 65));
    dark.setColor(QPalette::Mid, QColor(40, 40, 42));
    dark.setColor(QPalette::Dark, QColor(28, 28, 30));
    dark.setColor(QPalette::Shadow, QColor(15, 15, 15));
    dark.setColor(QPalette::Link, QColor(110, 170, 255));
    // Without a Disabled group, a disabled button keeps the Active colours and looks clickable: dim
    // its text and flatten its face towards the window colour.
    const QColor dimText(120, 120, 120);
    dark.setColor(QPalette::Disabled, QPalette::WindowText, dimText);
    dark.setColor(QPalette::Disabled, QPalette::Text, dimText);
    dark.setColor(QPalette::Disabled, QPalette::ButtonText, dimText);
    dark.setColor(QPalette::Disabled, QPalette::Button, QColor(48, 48, 51));
    dark.setColor(QPalette::Disabled, QPalette::Base, QColor(38, 38, 40));
    dark.setColor(QPalette::Disabled, QPalette::Light, QColor(55, 55, 58));
    dark.setColor(QPalette::Disabled, QPalette::Highlight, QColor(70, 70, 74));
    dark.setColor(QPalette::Disabled, QPalette::HighlightedText, dimText);
    dark.setColor(QPalette::Disabled, QPalette::PlaceholderText, QColor(90, 90, 90));
    QApplication::setPalette(dark);
}

void restoreTheme()
{
    applyTheme(Theme(QSettings().value(QStringLiteral("ui/theme"), int(Theme::System)).toInt()));
}

void addThemeMenu(QMenu* menu)
{
    // The texts keep the main window's translation context: they are its View menu's.
    QMenu* theme = menu->addMenu(QCoreApplication::translate("mcpscope::MainWindow", "&Theme"));
    auto* themes = new QActionGroup(theme);
    for (const auto& [label, value] :
        { std::pair { QCoreApplication::translate("mcpscope::MainWindow", "Follow the &system"), Theme::System },
            std::pair { QCoreApplication::translate("mcpscope::MainWindow", "&Light"), Theme::Light },
            std::pair { QCoreApplication::translate("mcpscope::MainWindow", "&Dark"), Theme::Dark } }) {
        QAction* action = theme->addAction(label, theme, [value = value] {
            applyTheme(value);
            QSettings().setValue(QStringLiteral("ui/theme"), int(value));
        });
        action->setCheckable(true);
        action->setChecked(QSettings().value(QStringLiteral("ui/theme"), int(Theme::System)).toInt() == int(value));
        themes->addAction(action);
    }
}

} // namespace mcpscope
