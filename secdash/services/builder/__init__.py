"""The Live Code Builder: a generated project's files on disk, its limits and its testing stage."""
