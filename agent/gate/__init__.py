"""The chat edit gate: whether the user asked for a change, strict approval, and the replies that show proposals."""
