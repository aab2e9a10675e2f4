#pragma once

class QMenu;

namespace mcpscope {

enum class Theme { System, Light, Dark };

/// Sets the application's palette (and, for Light and Dark, the Fusion style) for theme. System
/// brings back the palette the application started with.
void applyTheme(Theme theme);
/// Applies the theme chosen in the settings ("ui/theme"; the system's when none was chosen).
void restoreTheme();
/// Adds the Theme submenu to menu: one checkable action per theme, which applies it and keeps it in
/// the settings.
void addThemeMenu(QMenu* menu);

} // namespace mcpscope
