"""`list`: what implementations there are, and why anything is unavailable."""
from __future__ import annotations

import json

import click

from cipherbench import axes, manifest, registry
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.cli.app import Ctx
from cipherbench.console import Cell, Col, Grid, Paragraph, clip, lit, out
from cipherbench.errors import CipherbenchError
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
        t = Grid([Col("primitive", Cell.NAME), Col("kind", Cell.NAME, key=False), Col("key", Cell.FIGURE),
                  Col("block", Cell.FIGURE), Col("iv", Cell.FIGURE), Col("tag/digest", Cell.FIGURE, short="tag"),
                  Col("input", fold=1)])
        for p in reg:
            t.add_row(p.name, p.kind, str(p.key_bytes or ""), str(p.block_bytes or ""),
                      str(p.iv_bytes or ""), str(p.tag_bytes or p.digest_bytes or ""), p.input_rule())
        out.print(t)
        return
    with c.session(pin=False) as s:
        s.start_all()
        where = describe(c.db or default_url())
        on = axes.architectures().verified_on()
        made, unreadable = _variants()
        if as_json:
            click.echo(json.dumps({
                "store": where,
                "runners": [{"name": r.spec.name, "command": r.spec.argv, "problem": r.problem,
                             **{k: r.hello.get(k) for k in ("language", "runtime", "clocks")}}
                            for r in s.runners],
                "implementations": [dict(i.as_dict(), library=_library(i), verified_on=axes.architectures().passed_on(i.name, on))
                                    for i in s.impls.values()],
                "variants": [r.as_json() for r in made], "variants_unreadable": unreadable}, indent=1))
            return
        _implementations_table(s, on, long_)
        _variants_lines(made, unreadable)
        out.print(f"result store: {where}")



def _variants() -> tuple[list[AxisRecord], list[str]]:
    """The variants the axes made here, usable or failed (what they declare and have not made is
    each axis's own `list`); and one line per axis whose records cannot be read, saying why."""
    made: list[AxisRecord] = []
    unreadable: list[str] = []
    for a in axes.axes():
        try:
            made += [r for r in a.records() if r.status is not RecordStatus.DECLARED]
        except CipherbenchError as e:
            unreadable.append(f"cipherbench {a.command}: {e}")
    return made, unreadable


def _variants_lines(made: list[AxisRecord], unreadable: list[str]) -> None:
    if made or unreadable:
        out.print("variants made here (cipherbench env, arch, versions, builds):", markup=False)
    for r in made:
        out.print(Paragraph(f"  {r.line}", 2))
    for line in unreadable:
        out.print(Paragraph(f"[yellow]{lit(line)}[/]", 2, markup=True))


#: A 'verified on' (CPUs) cell longer than this is shown as a count and a mark, and spelled
#: out once below the table (most implementations share one list).
VERIFIED_ON_CELL = 6


def _implementations_table(s, on, long_: bool) -> None:
    """One row per implementation, every cell whole at 80 columns: names never wrap, the
    library and its version share a cell, and the long texts (reasons, architecture lists)
    are footnotes below the table."""
    t = Grid([Col("implementation", Cell.NAME), Col("runner", Cell.NAME, key=False), Col("library", fold=1),
              Col("prims", Cell.FIGURE), Col("CPUs", Cell.NAME, key=False), Col("status", Cell.NAME, key=False)])
    archs: dict[str, str] = {}  # a long 'verified on' list -> its mark
    cpus = axes.architectures()
    notes: list[str] = []
    def verified(impl: str) -> str:
        full = cpus.verified_cell(impl, on)
        if len(full) <= VERIFIED_ON_CELL:
            return lit(full)
        mark = archs.setdefault(full, chr(ord("a") + len(archs)))
        return lit(f"{full.count(', ') + 1} ({mark})")
    def unavailable(name: str, text: str) -> str:
        notes.append(f"{len(notes) + 1}. {name}: {text if long_ else clip(text, REASON_AT_MOST, 'list --long')}")
        return f"[yellow]n/a ({len(notes)})[/]"
    for i in s.impls.values():
        lib, version = _library(i), i.version or ""
        library = version if lib and version.startswith(lib) else f"{lib} {version}".strip()
        t.add_row(lit(i.name), lit(i.runner), lit(library), str(len(i.primitives)), verified(i.name),
                  "ok" if i.available else unavailable(i.name, i.reason))
    for r in s.runners:
        if r.problem:
            t.add_row("-", lit(r.spec.name), "", "", "", unavailable(f"runner {r.spec.name}", r.problem))
    out.print(t)
    for full, mark in archs.items():
        out.print(f"({mark}) verified on {full} (cipherbench arch list)", markup=False)
    if notes:
        out.print("n/a: unavailable here, because:", markup=False)
    for note in notes:
        out.print(note, markup=False)
