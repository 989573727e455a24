"""`python -m cipherbench.kat.corpora wycheproof install`: the step of `make vectors` that fetches
the one corpus a command installs (corpora/wycheproof.py). A package's module run by `-m` would
be imported twice, once by the package's list of corpora, hence this entry point."""
import sys

from cipherbench.kat.corpora import wycheproof

if sys.argv[1:2] != ["wycheproof"]:
    print("usage: python -m cipherbench.kat.corpora wycheproof install", file=sys.stderr)
    sys.exit(2)
sys.exit(wycheproof.main(sys.argv[2:]))
