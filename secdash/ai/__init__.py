"""LLM access: one interface, an OpenAI-compatible client and a built-in offline engine."""
