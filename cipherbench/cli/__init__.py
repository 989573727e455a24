"""The cipherbench command line: `app` holds the group and the entry point; each command
lives in its own module and is registered here, explicitly, by name. A command's module is
imported when that command runs (or help lists it): every command imported at start cost
each invocation 1.5 s, before it did anything. A command's module imports no other command's:
what commands share lives in modules of cli/ that COMMANDS does not name (tests/test_cli_leaves.py)."""
from __future__ import annotations

from cipherbench.cli.app import cli, main

#: command name -> (its module under cipherbench.cli, the click command in it)
COMMANDS = {
    "list": ("inspect", "list_cmd"), "encrypt": ("crypt", "encrypt"), "decrypt": ("crypt", "decrypt"),
    "hash": ("crypt", "hash_cmd"), "verify": ("verify", "verify"), "run": ("run", "run"), "bench": ("bench", "bench"),
    "show": ("show", "show"), "runs": ("runs", "runs_cmd"), "recommend": ("recommend", "recommend_cmd"),
    "report": ("report", "report"), "compare": ("report", "compare_cmd"), "export": ("report", "export_cmd"),
    "import": ("report", "import_cmd"), "diffusion": ("analysis", "diffusion_cmd"),
    "avalanche": ("analysis", "avalanche_cmd"), "conformance": ("conformance", "conformance"),
    "env": ("env", "env_group"), "ct": ("ct", "ct_command"), "fleet": ("fleet", "fleet_group"),
    "builds": ("builds", "builds_group"), "arch": ("arch", "arch_group"),
    "reproduce": ("reproduce", "reproduce_cmd"), "mutate": ("mutate", "mutate"),
    "versions": ("versions", "versions_group"),
}
cli.lazy.update(COMMANDS)

__all__ = ["COMMANDS", "cli", "main"]
