"""Reading a model's raw reply text: tool calls written as text, holding them back while streaming, JSON replies."""
