"""cipherbench: which cipher and which library, how fast on this machine, and is it correct."""

__version__ = "0.1.0"
