"""The stored run as one object: loading it from a store (run.py), the versioned results
document built from it and checked on the way in (document.py, schema.py), and moving it
between stores (transfer.py). Analysis, the store-level commands and every report read
runs through here; nothing here imports analysis or presentation."""
