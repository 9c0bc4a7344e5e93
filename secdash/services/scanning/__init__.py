"""Code scans of the sites' source: runs, batches and the code roots they read."""
