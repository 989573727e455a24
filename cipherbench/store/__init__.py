"""The result store (SQLite by default, PostgreSQL shared) and moving runs between stores."""
