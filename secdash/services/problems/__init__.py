"""The problem database: security events and their triage."""
