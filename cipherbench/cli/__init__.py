"""The cipherbench command line: `app` holds the group and the entry point; each command
lives in its own module and is registered here, explicitly."""
from __future__ import annotations

from cipherbench.cli import (
    analysis,
    arch,
    builds,
    conformance,
    crypt,
    ct,
    env,
    fleet,
    inspect,
    mutate,
    recommend,
    report,
    reproduce,
    run,
    runs,
    show,
    verify,
    versions,
)
from cipherbench.cli.app import cli, main

for _command in (inspect.list_cmd, crypt.encrypt, crypt.decrypt, crypt.hash_cmd, verify.verify, run.run,
                 show.show, runs.runs_cmd, recommend.recommend_cmd, report.report, report.compare_cmd,
                 report.export_cmd, report.import_cmd, analysis.diffusion_cmd, analysis.avalanche_cmd,
                 conformance.conformance, env.env_group, ct.ct_command, fleet.fleet_group, builds.builds_group,
                 arch.arch_group, reproduce.reproduce_cmd, mutate.mutate, versions.versions_group):
    cli.add_command(_command)

__all__ = ["cli", "main"]
