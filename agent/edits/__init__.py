"""Safe edits: scope, proposals, strict approval, the chat gate and its replies, diffs, change log, apply, undo."""
