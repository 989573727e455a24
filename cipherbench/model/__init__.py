"""Small pure-Python models of ciphers and hashes, written from their specifications, with the
parameter a registry variant changes exposed (rounds, counter, effective key bits, S-boxes).

They are slow on purpose: clear enough to read against the specification. Each module's
docstring names the sections it follows; tests/test_model_static.py holds every model to the
published vectors of the algorithm it generalises, which is what makes the answers the
`model` corpus (cipherbench/corpus_model.py) computes from them trustworthy.
"""
