"""The chat-completions request: its OpenAI wire format, one request to one endpoint, the fields endpoints refuse."""
