"""AI tasks: each module holds one persona or job (its prompt, its output, how the offline engine
answers it). Providers take a task; they hold no persona. Today: chat (the defense agents) and
threat (the threat level of a chat message); later: defense plan, remediation, build, artifact."""
