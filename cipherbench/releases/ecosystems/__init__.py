"""The package registries releases come from: one module each, its Client registered here.

Adding an ecosystem is one module (install, argv, versions; releases/client.py's Client),
its Ecosystem member and its packages' entries in releases/release.py's PACKAGES.
"""
from __future__ import annotations

from cipherbench.releases.client import Client
from cipherbench.releases.ecosystems import crates, go, maven, npm, pypi
from cipherbench.releases.release import Ecosystem

CLIENTS: dict[Ecosystem, Client] = {m.CLIENT.ecosystem: m.CLIENT for m in (pypi, maven, go, crates, npm)}


def client_of(ecosystem: Ecosystem) -> Client:
    return CLIENTS[ecosystem]
