"""DOT building, theme and layout backends (never imports the engine or numpy)."""
