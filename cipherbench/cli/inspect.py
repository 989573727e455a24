"""`list`: what implementations there are, and why anything is unavailable."""
from __future__ import annotations

import json

import click
from rich.table import Table

from cipherbench import manifest, registry
from cipherbench.arch.verified import line as verified_line
from cipherbench.arch.verified import passed_on, verified_on
from cipherbench.cli.app import Ctx
from cipherbench.console import clip, lit, out
from cipherbench.store.db import default_url, describe


# ---------------------------------------------------------------------------- list
def _library(impl) -> str:
    """The library the runner announced; for an adapter an engine was built without (it
    announces only the adapter's folder and why), the library the adapter's manifest names."""
    folder = impl.native_name or impl.name
    if impl.library or impl.available or not (manifest.ADAPTERS / folder).is_dir():
        return impl.library
    try:
        return manifest.adapter(folder).title
    except manifest.ManifestError:
        return ""


#: A reason in `list`'s table, in characters; --long shows it whole.
REASON_AT_MOST = 90


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--primitives", is_flag=True, help="List the registry's canonical primitives instead.")
@click.option("--long", "long_", is_flag=True, help="Every reason whole (else cut at a word boundary).")
@click.pass_obj
def list_cmd(c: Ctx, as_json, primitives, long_):
    """Implementations, their versions and primitives, and why anything is unavailable."""
    if primitives:
        reg = registry.load()
        if as_json:
            click.echo(json.dumps([p.as_dict() for p in reg], indent=1))
            return
        t = Table("primitive", "kind", "key", "block", "iv", "tag/digest", "input")
        for p in reg:
            t.add_row(p.name, p.kind, str(p.key_bytes or ""), str(p.block_bytes or ""),
                      str(p.iv_bytes or ""), str(p.tag_bytes or p.digest_bytes or ""), p.input_rule())
        out.print(t)
        return
    with c.session(pin=False) as s:
        s.start_all()
        where = describe(c.db or default_url())
        on = verified_on()
        if as_json:
            click.echo(json.dumps({
                "store": where,
                "runners": [{"name": r.spec.name, "command": r.spec.argv, "problem": r.problem,
                             **{k: r.hello.get(k) for k in ("language", "runtime", "clocks")}}
                            for r in s.runners],
                "implementations": [dict(i.as_dict(), library=_library(i), verified_on=passed_on(i.name, on))
                                    for i in s.impls.values()]}, indent=1))
            return
        # verified on: the architectures whose gate passed it (cipherbench arch verify; the host's cache)
        t = Table("implementation", "runner", "library", "version", "primitives", "verified on", "status")
        t.columns[0].no_wrap = True  # names a user types stay whole
        def why(text: str) -> str:
            return lit(text if long_ else clip(text, REASON_AT_MOST, "list --long"))
        for i in s.impls.values():
            t.add_row(lit(i.name), lit(i.runner), lit(_library(i)), lit(i.version), str(len(i.primitives)),
                      lit(verified_line(i.name, on)),
                      "ok" if i.available else f"[yellow]unavailable: {why(i.reason)}[/]")
        for r in s.runners:
            if r.problem:
                t.add_row("-", lit(r.spec.name), "", "", "", f"[yellow]runner: {why(r.problem)}[/]")
        out.print(t)
        out.print(f"result store: {where}")

