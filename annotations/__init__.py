"""The annotation store: reading notes, ratings, status and personal tags in SQLite."""
