"""Read models for pages and the API: each read in one short session, shared by every viewer."""
