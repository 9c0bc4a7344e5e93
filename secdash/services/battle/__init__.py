"""Battle Station's foundation: the demo sites' defense configurations, their enforcement and request logs.

- `defense`: the configuration schema (validated data, never code), its checks, storage and reset;
- `demo_app`: the demo sites' deliberately vulnerable endpoints (fake data, throwaway SQLite file) and the
  enforcement of a configuration on one request;
- `request_log`: what each demo site answered, marked as attack or benign traffic by a drill.
"""
