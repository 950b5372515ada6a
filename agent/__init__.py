"""The agent: OpenAI-compatible LLM endpoints, the LangGraph graph, its tools and prompts."""
