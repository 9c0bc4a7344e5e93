"""The AI defense agents: the roster, their calls to a model, chat, context and activity."""
