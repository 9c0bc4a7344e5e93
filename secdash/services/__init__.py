"""The domain: every rule lives here, called by both the Reflex states and the API routes."""
