"""The terminal UI: browse and search every conversation from the keyboard."""
