"""The cipherbench command line. Every failure ends in one line on stderr and a status:
2 for usage errors (unknown names, bad hex, wrong lengths), 1 for everything else."""
from __future__ import annotations

import importlib
import os
import sys
import traceback
from typing import TYPE_CHECKING

import click

from cipherbench import __version__
from cipherbench.console import err
from cipherbench.errors import CipherbenchError
from cipherbench.paths import REPO
from cipherbench.redact import hidden_output, remember

if TYPE_CHECKING:
    from cipherbench.measure.session import Session
    from cipherbench.store.db import Store

EXPERIMENTS = REPO / "registry" / "experiments.toml"


class Ctx:
    def __init__(self, runners, db, builtin, envs=(), arches=(), releases=()):
        self.runner_cmds = tuple(runners)
        self.db = db
        self.builtin = builtin
        self.envs = tuple(envs)  # environments whose engines run too (cipherbench.envs)
        self.arches = tuple(arches)  # architectures whose engines run too, under qemu (cipherbench.arch)
        self.releases = tuple(releases)  # installed releases whose runners run too (cipherbench.releases)

    def session(self, **kw) -> Session:
        from cipherbench.axes import runner_specs
        from cipherbench.measure.session import Session
        from cipherbench.variant import VariantAxis
        extra = tuple(runner_specs({VariantAxis.ENVIRONMENT: self.envs, VariantAxis.ARCHITECTURE: self.arches,
                                    VariantAxis.RELEASE: self.releases}))
        return Session(self.runner_cmds, builtin=self.builtin, extra_specs=extra, **kw)

    def store(self, create=True) -> Store:
        from cipherbench.store.db import Store
        return Store(self.db, create=create)


class LazyGroup(click.Group):
    """A group whose commands are named up front (`lazy`: name -> module under cipherbench.cli
    and the command in it) and imported when one is asked for (cipherbench/cli/__init__.py)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.lazy: dict[str, tuple[str, str]] = {}

    def list_commands(self, ctx):
        return sorted(set(self.commands) | set(self.lazy))

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, attr = self.lazy[cmd_name]
            self.add_command(getattr(importlib.import_module(f"cipherbench.cli.{module}"), attr), cmd_name)
        return self.commands.get(cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--runner", "runners", multiple=True, metavar="CMD",
              help="Add a runner: any command speaking docs/protocol.md (repeatable).")
@click.option("--db", metavar="URL", default=None,
              help="Result store: sqlite:///PATH or postgresql://... (default: $CIPHERBENCH_DB or "
                   "~/.local/share/cipherbench/results.sqlite).")
@click.option("--no-builtin", is_flag=True, help="Use only the runners given with --runner.")
@click.option("--env", "envs", multiple=True, metavar="NAME",
              help="Add an environment's engine (cipherbench env create); its implementations are NAME:impl.")
@click.option("--arch", "arches", multiple=True, metavar="ARCH",
              help="Add an architecture's engine under qemu (cipherbench arch add); its implementations are "
                   "IMPL%ARCH. Verified, never timed.")
@click.option("--release", "releases", multiple=True, metavar="NAME",
              help="Add an installed release (cipherbench versions add) as IMPL==VERSION, or 'all' of them.")
@click.version_option(__version__, prog_name="cipherbench")
@click.pass_context
def cli(ctx, runners, db, no_builtin, envs, arches, releases):
    """Verify and measure symmetric ciphers across every implementation on this machine."""
    ctx.obj = Ctx(runners, db, not no_builtin, envs, arches, releases)


# ---------------------------------------------------------------------------- entry point
def main(argv=None):
    """The command line: what it prints, errors included, passes through redact.hide, which
    knows every secret the command line and $CIPHERBENCH_DB carry (cipherbench/redact.py)."""
    remember([*(sys.argv[1:] if argv is None else argv), os.environ.get("CIPHERBENCH_DB") or ""])
    with hidden_output():
        _main(argv)


def _main(argv):
    try:
        cli.main(args=argv, prog_name="cipherbench", standalone_mode=False)
    except click.exceptions.Abort:
        err.print("cipherbench: interrupted")
        sys.exit(130)
    except click.ClickException as e:  # usage errors from click itself
        msg = e.format_message().replace("\n", " ")
        err.print(f"cipherbench: error: {msg}", markup=False)
        sys.exit(2 if isinstance(e, click.UsageError) else 1)
    except CipherbenchError as e:
        err.print(f"cipherbench: error: {e}", markup=False)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        err.print("cipherbench: interrupted; what was measured so far is stored")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as e:  # a bug: still one line, with a way to see the rest
        if os.environ.get("CIPHERBENCH_DEBUG"):
            traceback.print_exc()
        err.print(f"cipherbench: internal error: {type(e).__name__}: {e} "
                  "(set CIPHERBENCH_DEBUG=1 for the traceback)", markup=False)
        sys.exit(1)
