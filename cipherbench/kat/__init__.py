"""Known answers and the verification gate: the corpora (project vector files, NIST CAVP,
Crypto++'s TestVectors, PyCryptodome's, Project Wycheproof, /work-shared files, derived
and model-computed answers), the pure-Python models of modes and ciphers written from
their specifications, and `verify`, which decides whether a pair may be timed."""
