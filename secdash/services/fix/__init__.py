"""Fix Mode: turning scanner findings into reviewed, verifiable changes.

`patches` decides whether a unified diff may touch a code root at all and what it would change (pure: it reads
files, never writes them); `recipes` holds the offline engine's deterministic fixes, one per scanner rule, so the
propose -> apply -> re-scan loop works without a model.
"""
