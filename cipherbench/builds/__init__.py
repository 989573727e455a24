"""Variant builds of the engine, compilers x optimisation flags (registry/builds.toml):
build them (make.py, pgo.py), run them as runners (runners.py), `cipherbench builds` (cli.py)."""
