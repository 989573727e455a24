"""Models: modes and ciphers written from their specifications in Python, each checked
against published vectors, that compute known answers no document prints."""
