"""Safe edits: write scope, proposals, strict approval, diffs, the change log, apply and undo."""
