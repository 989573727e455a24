"""The cipherbench command line. Every failure ends in one line on stderr and a status:
2 for usage errors (unknown names, bad hex, wrong lengths), 1 for everything else."""
from __future__ import annotations

import os
import re
import sys
import traceback

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from cipherbench import __version__
from cipherbench.arch.runners import runner_specs as arch_runner_specs
from cipherbench.envs import runner_specs
from cipherbench.errors import CipherbenchError
from cipherbench.measure.session import Session
from cipherbench.paths import REPO
from cipherbench.store.db import Store

#: C0 and C1 control characters other than newline and tab: a runner or an imported file
#: could otherwise move the cursor, recolour or retitle the terminal.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class LiteralConsole(Console):
    """A console that never passes a control character through to the terminal. Text from
    runners and files is also escaped where it is printed (`lit`), so it cannot carry markup."""

    def render_str(self, text: str, **kw):  # type: ignore[no-untyped-def]
        return super().render_str(CONTROL.sub("", text), **kw)


def lit(value: object) -> str:
    """A value from a runner or a file, printed literally inside markup."""
    return escape(CONTROL.sub("", str(value)))


# A terminal's width, or $COLUMNS (rich reads it) when output is piped; piped without it, 180.
out = LiteralConsole(highlight=False,
                     width=None if sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit() else 180)
err = LiteralConsole(stderr=True, highlight=False, soft_wrap=True)
EXPERIMENTS = REPO / "registry" / "experiments.toml"

class Ctx:
    def __init__(self, runners, db, builtin, envs=(), arches=()):
        self.runner_cmds = tuple(runners)
        self.db = db
        self.builtin = builtin
        self.envs = tuple(envs)  # environments whose engines run too (cipherbench.envs)
        self.arches = tuple(arches)  # architectures whose engines run too, under qemu (cipherbench.arch)

    def session(self, **kw) -> Session:
        extra = tuple(runner_specs(self.envs)) + tuple(arch_runner_specs(self.arches))
        return Session(self.runner_cmds, builtin=self.builtin, extra_specs=extra, **kw)

    def store(self, create=True) -> Store:
        return Store(self.db, create=create)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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
@click.version_option(__version__, prog_name="cipherbench")
@click.pass_context
def cli(ctx, runners, db, no_builtin, envs, arches):
    """Verify and measure symmetric ciphers across every implementation on this machine."""
    ctx.obj = Ctx(runners, db, not no_builtin, envs, arches)



class DoneColumn(ProgressColumn):
    """Steps done as "M/N" for stages that count items, as a percentage for stages that
    count milliseconds of expected work (a task field `percent`)."""

    def __init__(self) -> None:
        super().__init__()
        self._count = MofNCompleteColumn()

    def render(self, task: Task) -> Text:
        if task.fields.get("percent"):
            return Text(f"{task.percentage:3.0f} %", style="progress.percentage")
        return self._count.render(task)


def _progress():
    return Progress(TextColumn("{task.description}"), BarColumn(), DoneColumn(),
                    TimeRemainingColumn(), TextColumn("[dim]{task.fields[item]}"),
                    console=err, transient=True, disable=not err.is_terminal)



# ---------------------------------------------------------------------------- entry point
def main(argv=None):
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
