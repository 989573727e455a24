"""The cipherbench command line: `app` holds the group and the entry point; each command
lives in its own module and is registered here, explicitly."""
from __future__ import annotations

from cipherbench.builds.cli import builds_group  # compilers x flags (cipherbench/builds)
from cipherbench.cli import (
    analysis,
    arch,
    conformance,
    crypt,
    inspect,
    recommend,
    report,
    run,
    runs,
    show,
    verify,
)
from cipherbench.cli.app import cli, main
from cipherbench.ct.cli import ct_command
from cipherbench.envs.cli import env_group
from cipherbench.fleet.cli import fleet_group

for _command in (inspect.list_cmd, crypt.encrypt, crypt.decrypt, crypt.hash_cmd, verify.verify, run.run,
                 show.show, runs.runs_cmd, recommend.recommend_cmd, report.report, report.compare_cmd,
                 report.export_cmd, report.import_cmd, analysis.diffusion_cmd, analysis.avalanche_cmd,
                 conformance.conformance, env_group, ct_command, fleet_group, builds_group, arch.arch_group):
    cli.add_command(_command)

__all__ = ["cli", "main"]
