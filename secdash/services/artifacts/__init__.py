"""HTML artifacts (/code-artifacts): create, update, versions, diff, review, preview and downloads."""
