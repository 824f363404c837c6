"""The notes area of the TUI: the list with its folders and tags, the note view with its
links, backlinks and flashbacks, the editor, the rules waiting for approval."""
