"""The canonical primitive registry, expanded from registry/primitives.toml.

This module uses the standard library only: the native engine's build runs it
(``python3 -m cipherbench.registry --cpp OUT``) to generate its table, so the
registry is read from one file by everything.
"""
from __future__ import annotations

import argparse
import json
import sys
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from cipherbench.errors import UsageError
from cipherbench.kinds import PrimitiveKind

REGISTRY_FILE = Path(__file__).resolve().parent.parent / "registry" / "primitives.toml"

KINDS = ("cipher", "aead", "stream", "hash", "null")
#: The name of the harness's own baseline primitive, a call that does nothing (kind "null").
NULL_PRIMITIVE = "null"
#: The implementation that offers it: the engine's own null adapter.
NULL_IMPL = "null"
#: The implementation name of the project's own C ciphers (engine/reference/).
REFERENCE_IMPL = "reference"
#: A mode's `iv` in primitives.toml when it takes none.
NO_IV = "none"


#: the word widths whose carries a counter crosses, below its own width (registry `counter`)
CARRY_WORDS = (8, 16, 32, 64)


@dataclass(frozen=True)
class Counter:
    """How a counter-based primitive numbers its blocks: the registry's `counter` table.

    bits   the counter's width (CTR: the whole block); it counts modulo 2^bits
    start  the first message block's counter: a number the primitive fixes (ChaCha20 0,
           GCM with a 96-bit IV 2), or None when the IV sets it (`start = "iv"`: CTR) or
           the nonce does through a function (`start = "derived"`, with `derived` naming
           it: "omac", EAX's OMAC of the nonce)
    unit   output bytes per counter step: the cipher block, 64 for ChaCha and Salsa
    order  the byte order the counter is stored in ("big" or "little")
    """
    bits: int
    start: int | None
    unit: int
    order: str
    derived: str = ""

    def carries(self) -> list[int]:
        """The widths whose carry (or, for `bits` itself, wrap to zero) a message can cross:
        every word of CARRY_WORDS narrower than the counter, then the counter itself."""
        return [w for w in CARRY_WORDS if w < self.bits] + [self.bits]

    def carry_block(self, width: int) -> int | None:
        """The index (from 0) of the first message block after the carry out of the low
        `width` bits, for a fixed start; None when the IV or nonce chooses where it falls."""
        if self.start is None:
            return None
        return (1 << width) - self.start % (1 << width)


@dataclass(frozen=True)
class Primitive:
    """One canonical primitive with every length an implementation must honour."""

    name: str
    kind: str  # one of KINDS; "cipher" = a block cipher in an unauthenticated mode
    family: str  # cipher/stream/hash id: "aes", "chacha20", "sha-256"
    title: str
    mode: str | None = None
    key_bits: int = 0  # the number in the name
    key_bytes: int = 0  # bytes the implementation is given (XTS/SIV: both keys)
    block_bytes: int = 0  # cipher block; for whole_blocks modes the input unit
    iv_bytes: int = 0
    tag_bytes: int = 0
    digest_bytes: int = 0
    whole_blocks: bool = False
    rounds: int | None = None
    params: dict = field(default_factory=dict, compare=False, hash=False)
    spec: str = ""
    counter: Counter | None = None  # how a counter-based primitive counts (Counter)

    @property
    def is_aead(self) -> bool:
        return self.kind == PrimitiveKind.AEAD

    def input_rule(self) -> str:
        """A short sentence saying which input lengths are accepted."""
        if self.kind == PrimitiveKind.HASH:
            return "any length"
        if self.whole_blocks:
            return f"a multiple of {self.block_bytes} bytes (no padding)"
        return "any length"

    def as_dict(self) -> dict:
        d = {
            "name": self.name, "kind": self.kind, "family": self.family, "title": self.title,
            "mode": self.mode, "key_bytes": self.key_bytes, "block_bytes": self.block_bytes,
            "iv_bytes": self.iv_bytes, "tag_bytes": self.tag_bytes,
            "digest_bytes": self.digest_bytes, "whole_blocks": self.whole_blocks,
            "rounds": self.rounds, "params": self.params, "spec": self.spec,
        }
        return {k: v for k, v in d.items() if v not in (None, {}, "")}


class Registry:
    def __init__(self, primitives: list[Primitive]):
        self._by_name = {p.name: p for p in primitives}

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def __getitem__(self, name: str) -> Primitive:
        return self._by_name[name]

    def get(self, name: str) -> Primitive | None:
        return self._by_name.get(name)

    def __iter__(self):
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def names(self) -> list[str]:
        return list(self._by_name)


def _rounds_for(spec, key_bits: int) -> int | None:
    if spec is None:
        return None
    if isinstance(spec, dict):
        return spec.get(str(key_bits))
    return int(spec)


def _counter(table: dict | None, block_bytes: int) -> Counter | None:
    """A `counter` table of primitives.toml as a Counter; `bits = "block"` is the cipher block."""
    if table is None:
        return None
    bits = 8 * block_bytes if table["bits"] == "block" else int(table["bits"])
    start = table["start"]
    if start not in ("iv", "derived") and not isinstance(start, int):
        raise UsageError(f"primitives.toml: counter start {start!r}: a number, \"iv\" or \"derived\"")
    if table.get("order") not in ("big", "little"):
        raise UsageError(f"primitives.toml: counter order {table.get('order')!r}: \"big\" or \"little\"")
    return Counter(bits, start if isinstance(start, int) else None, int(table.get("unit", block_bytes)),
                   table["order"], table.get("derived", ""))


#: Each section's tables: (required keys, optional keys). The standard library's check of what
#: pydantic's extra="forbid" checks elsewhere (registry_models.py): this module runs in the
#: engine's build with the system's python3 alone.
SECTION_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "modes": (frozenset({"kind"}), frozenset({"block_bits", "counter", "iv", "key_factor", "note", "spec", "tag_bytes",
                                               "whole_blocks"})),
    "ciphers": (frozenset({"block_bits", "key_bits"}), frozenset({"byte_order", "key_bytes", "key_schedule", "modes",
                                                                   "note", "params", "rounds", "spec", "title"})),
    "streams": (frozenset({"key_bits"}), frozenset({"counter", "iv", "note", "params", "rounds", "spec", "title"})),
    "aeads": (frozenset({"key_bits", "iv", "tag_bytes"}), frozenset({"counter", "note", "params", "spec", "title"})),
    "hashes": (frozenset({"digest_bits"}), frozenset({"block_bits", "note", "params", "spec", "title"})),
    "special": (frozenset({"kind"}), frozenset({"title"})),
}
COUNTER_KEYS = (frozenset({"bits", "start", "order"}), frozenset({"unit", "derived"}))
TOP_KEYS = (frozenset({"schema", "modes", "default_modes"}), frozenset(SECTION_KEYS) - {"modes"})


def _keys(where: str, table: object, keys: tuple[frozenset[str], frozenset[str]]) -> None:
    required, optional = keys
    if not isinstance(table, dict):
        raise UsageError(f"primitives.toml: {where} must be a table")
    if unknown := sorted(set(table) - required - optional):
        raise UsageError(f"primitives.toml: {where}: unknown key '{unknown[0]}' (accepted: "
                         f"{', '.join(sorted(required | optional))})")
    if missing := sorted(required - set(table)):
        raise UsageError(f"primitives.toml: {where} lacks {', '.join(missing)}")


def check(data: dict) -> None:
    """Every table's keys, a mode's kind and every mode a cipher names: one line naming the entry."""
    _keys("the file", data, TOP_KEYS)
    for section, keys in SECTION_KEYS.items():
        for name, table in data.get(section, {}).items():
            where = f"[{section}.{name}]"
            _keys(where, table, keys)
            counter = table.get("counter")  # the TOML table's key (the counter's own keys below)
            if counter is not None:
                _keys(f"{where} counter", counter, COUNTER_KEYS)
            if "kind" in table and table["kind"] not in KINDS:
                raise UsageError(f"primitives.toml: {where}: kind '{table['kind']}' (accepted: {', '.join(KINDS)})")
            named = table.get("modes", []) if section == "ciphers" else []
            if stray := [m for m in named if m not in data["modes"]]:
                raise UsageError(f"primitives.toml: {where} names mode '{stray[0]}', which [modes] lacks")


def _expand(data: dict) -> list[Primitive]:
    modes = data["modes"]
    default_modes = data["default_modes"]
    out: list[Primitive] = []
    for cid, c in data.get("ciphers", {}).items():
        block_bits = c["block_bits"]
        mode_list = c.get("modes") or default_modes.get(str(block_bits), default_modes["other"])
        for kb in c["key_bits"]:
            one_key = c.get("key_bytes", {}).get(str(kb), kb // 8)
            for m in mode_list:
                md = modes[m]
                if "block_bits" in md and block_bits not in md["block_bits"]:
                    continue
                iv = md.get("iv", NO_IV)
                iv_bytes = 0 if iv == NO_IV else block_bits // 8 if iv == "block" else int(iv)
                params = dict(c.get("params", {}))
                for extra in ("byte_order", "key_schedule"):
                    if extra in c:
                        params[extra] = c[extra]
                out.append(Primitive(
                    name=f"{cid}-{kb}-{m}", kind=md["kind"], family=cid,
                    title=f"{c.get('title', cid)}, {kb}-bit key, {m.upper()}",
                    mode=m, key_bits=kb, key_bytes=one_key * md.get("key_factor", 1),
                    block_bytes=block_bits // 8, iv_bytes=iv_bytes,
                    tag_bytes=md.get("tag_bytes", 0), whole_blocks=md.get("whole_blocks", False),
                    rounds=_rounds_for(c.get("rounds"), kb), params=params,
                    spec=f"{c.get('spec', '')}; {md.get('spec', '')}".strip("; "),
                    counter=_counter(md.get("counter"), block_bits // 8),
                ))
    for sid, s in data.get("streams", {}).items():
        out.append(Primitive(
            name=sid, kind="stream", family=sid, title=s.get("title", sid),
            key_bits=s["key_bits"], key_bytes=s["key_bits"] // 8, iv_bytes=s.get("iv", 0),
            rounds=s.get("rounds"), params=s.get("params", {}), spec=s.get("spec", ""),
            counter=_counter(s.get("counter"), 0)))
    for aid, a in data.get("aeads", {}).items():
        out.append(Primitive(
            name=aid, kind="aead", family=aid, title=a.get("title", aid),
            key_bits=a["key_bits"], key_bytes=a["key_bits"] // 8, iv_bytes=a["iv"],
            tag_bytes=a["tag_bytes"], params=a.get("params", {}), spec=a.get("spec", ""),
            counter=_counter(a.get("counter"), 0)))
    for hid, h in data.get("hashes", {}).items():
        out.append(Primitive(
            name=hid, kind="hash", family=hid, title=h.get("title", hid.upper()),
            digest_bytes=h["digest_bits"] // 8, block_bytes=h.get("block_bits", 0) // 8,
            params=h.get("params", {}), spec=h.get("spec", "")))
    for nid, n in data.get("special", {}).items():
        out.append(Primitive(name=nid, kind=n["kind"], family=nid, title=n.get("title", nid)))
    names = [p.name for p in out]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise UsageError(f"primitives.toml: names defined twice: {', '.join(sorted(dupes))}")
    return out


@cache
def load(path: Path = REGISTRY_FILE) -> Registry:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"{path}: {e}") from None
    check(data)
    return Registry(_expand(data))


def cpp_table(reg: Registry) -> str:
    """The engine's view of the registry, as X-macro lines."""
    lines = ["// generated from registry/primitives.toml by cipherbench/registry.py; do not edit",
             "// CB_PRIMITIVE(name, kind, family, mode, key_bytes, block_bytes, iv_bytes,"
             " tag_bytes, digest_bytes, whole_blocks, rounds)"]
    for p in reg:
        lines.append(
            f'CB_PRIMITIVE("{p.name}", {p.kind.capitalize()}, "{p.family}", "{p.mode or ""}", '
            f"{p.key_bytes}, {p.block_bytes}, {p.iv_bytes}, {p.tag_bytes}, {p.digest_bytes}, "
            f"{'true' if p.whole_blocks else 'false'}, {p.rounds or 0})")
    return "\n".join(lines) + "\n"


def _write_if_changed(out: Path, text: str) -> None:
    """Keep the file's mtime when its text is the same: no needless rebuilds."""
    if not out.exists() or out.read_text() != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Expand the primitive registry.")
    ap.add_argument("--cpp", metavar="OUT", help="write the engine's X-macro table to OUT")
    ap.add_argument("--json", metavar="OUT", help="write every primitive with its lengths as JSON to OUT "
                    "(what each language runner's build reads)")
    args = ap.parse_args(argv)
    try:
        reg = load()
    except UsageError as e:
        print(f"cipherbench.registry: {e}", file=sys.stderr)
        return 2
    if args.cpp:
        _write_if_changed(Path(args.cpp), cpp_table(reg))
    if args.json:
        _write_if_changed(Path(args.json), json.dumps([p.as_dict() for p in reg], indent=0) + "\n")
    if not (args.cpp or args.json):
        for p in reg:
            print(p.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
