"""Small pure-Python models of modes, ciphers and hashes, written from their specifications,
that compute the known answers no document prints (the `model` corpus).

Two kinds: variants of an algorithm with the parameter they change exposed (salsa20.py rounds,
chacha.py counter, rc2.py effective key bits, gosthash94.py S-boxes; answers from
cipherbench/kat/corpora/modelled.py), and modes over a block cipher (aead.py, siv.py, gcm_siv.py,
sp800_38a.py, desx.py) run on an ECB implementation that has just passed published known answers
(cipherbench/kat/model_oracle.py). They are slow on purpose, clear enough to read against the
specification; each module's docstring names the sections it follows, and
tests/test_model_static.py, tests/test_model_aead.py and tests/test_model_siv.py hold every model to the published
vectors of the algorithm it generalises, which is what makes its answers trustworthy.
"""
