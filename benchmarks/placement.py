"""Where a library's machine code sits within 64-byte lines, and an engine relinked so that
it sits where the library's own benchmark program has it.

Why: Crypto++'s AES-NI block loop runs AES/CTR a tenth slower or faster depending only on
where it starts within a 64-byte line (benchmarks/HISTORY.md, run set 6). cryptest, the
tool `benchmarks/fidelity` compares against, has one placement by the luck of its link,
the engine another (its archive members start on lines: engine/adapters/cryptopp). To ask
whether cipherbench's harness reproduces the tool, the fidelity run also measures an engine
in which the same archive code sits at the tool's placement, and shows both.

Binutils (nm, objdump, objcopy, ar, as) and the engine's Ninja build directory do the work;
nothing here edits the build or the archive.
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

LINE = 64  # bytes in a cache line, and the period placement effects were seen with


def _run(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=kw.pop("text", True), **kw)


def symbol_address(binary: Path, symbol: str) -> int | None:
    """The address of the function named `symbol` (demangled, without its parameter list) in
    a binary with a symbol table, or None."""
    nm = _run(["nm", "-C", "--defined-only", str(binary)]) if shutil.which("nm") else None
    for line in (nm.stdout.splitlines() if nm and nm.returncode == 0 else []):
        addr, _, rest = line.partition(" ")
        name = rest[2:]
        if name == symbol or name.startswith(symbol + "("):
            return int(addr, 16)
    return None


def compiled_code(archive: Path, symbol: str) -> tuple[int, bytes] | None:
    """(offset in its section, bytes) of `symbol`'s function as its archive member holds
    it (relocations not applied), or None when no member defines it."""
    nm = _run(["nm", "-A", "-C", "--defined-only", str(archive)])
    member = next((m.group(1) for line in nm.stdout.splitlines()
                   if (m := re.match(r".*?:([^:]+\.o):[0-9a-f]+ [Tt] (.*)$", line))
                   and (m.group(2) == symbol or m.group(2).startswith(symbol + "("))), None)
    if member is None:
        return None
    with tempfile.TemporaryDirectory(prefix="cb-placement-") as d:
        obj = Path(d) / member
        obj.write_bytes(_run(["ar", "p", str(archive), member], text=False).stdout)
        # objdump -t: "<value> <flags> <section>\t<size> <name>"
        for line in _run(["objdump", "-t", "-C", str(obj)]).stdout.splitlines():
            m = re.match(r"([0-9a-f]+) .{7} (\S+)\t([0-9a-f]+) (.*)$", line)
            if m and (m.group(4) == symbol or m.group(4).startswith(symbol + "(")):
                value, section, size = int(m.group(1), 16), m.group(2), int(m.group(3), 16)
                raw = Path(d) / "section.bin"
                _run(["objcopy", "-O", "binary", f"--only-section={section}", str(obj), str(raw)])
                code = raw.read_bytes()[value:value + size] if raw.exists() else b""
                return (value, code) if len(code) == size and size else None
    return None


def placement(binary: Path, code: bytes, chunk: int = 24, step: int = 8) -> int | None:
    """Where `code` starts within a 64-byte line of `binary`, found by its bytes, so that a
    stripped program (cryptest) can be read: each `chunk`-byte piece of the function that
    occurs exactly once in the file votes for the offset it implies; pieces a relocation
    changed do not occur. None unless a majority of the votes agree. File offsets and
    addresses agree modulo 64 in an ELF file, whose loadable segments keep them equal
    modulo the page size."""
    data = Path(binary).read_bytes()
    votes: Counter = Counter()
    for k in range(0, max(1, len(code) - chunk + 1), step):
        piece = code[k:k + chunk]
        i = data.find(piece)
        if i >= 0 and data.find(piece, i + 1) < 0:
            votes[(i - k) % LINE] += 1
    if not votes:
        return None
    offset, n = votes.most_common(1)[0]
    return offset if n * 2 > sum(votes.values()) else None


def _pad_object(workdir: Path, size: int) -> Path:
    """An object whose .text is `size` bytes of int3, 16-byte aligned like the archive's code."""
    src, obj = workdir / f"pad{size}.s", workdir / f"pad{size}.o"
    src.write_text(f".section .text\n.p2align 4\n.fill {size},1,0xcc\n"
                   '.section .note.GNU-stack,"",@progbits\n')
    out = _run(["as", str(src), "-o", str(obj)])
    if out.returncode:
        raise RuntimeError(f"as: {out.stderr.strip()}")
    return obj


def relinked(engine: Path, archive: Path, symbol: str, want: int, workdir: Path) -> tuple[Path, int]:
    """The engine linked again by its Ninja build's own command, with `archive` (the plain
    one, not the line-aligned copy) in place of whichever Crypto++ archive the build links,
    and a pad before it so that `symbol` starts `want` bytes into a line. Returns (engine
    path, pad bytes). Raises RuntimeError when that cannot be done here."""
    build = Path(engine).resolve().parent
    if not (build / "build.ninja").exists() or not shutil.which("ninja"):
        raise RuntimeError(f"no Ninja build directory at {build}")
    cmds = _run(["ninja", "-C", str(build), "-t", "commands", engine.name]).stdout.strip().splitlines()
    if not cmds:
        raise RuntimeError(f"ninja has no command for {engine.name}")
    words = shlex.split(cmds[-1])
    while words and words[0] in (":", "&&"):  # CMake wraps the link in ": && ... && :"
        words.pop(0)
    while words and words[-1] in (":", "&&"):
        words.pop()
    # CMake may name the archive more than once (link order between static libraries): the
    # first place gets the pad and `archive`, the later ones `archive` again
    at = [i for i, w in enumerate(words) if Path(w).name in ("cryptopp-line-aligned.a", archive.name)]
    if "-o" not in words or not at or len({words[i] for i in at}) != 1:
        raise RuntimeError("the engine's link command does not name one Crypto++ archive")

    def link(pad: int) -> Path:
        out = workdir / f"{engine.name}-pad{pad}"
        w = list(words)
        w[w.index("-o") + 1] = str(out)
        for i in at[1:]:
            w[i] = str(archive)
        w[at[0]:at[0] + 1] = ([str(_pad_object(workdir, pad))] if pad else []) + [str(archive)]
        res = _run(["sh", "-c", shlex.join(w)], cwd=build)
        if res.returncode:
            raise RuntimeError(f"relinking the engine failed: {res.stderr.strip()[-300:]}")
        return out

    plain = link(0)
    at0 = symbol_address(plain, symbol)
    if at0 is None:
        raise RuntimeError(f"{symbol} is not in the relinked engine")
    pad = (want - at0) % LINE
    if pad == 0:
        return plain, 0
    placed = link(pad)
    got = symbol_address(placed, symbol)
    if got is None or got % LINE != want:
        raise RuntimeError(f"a {pad}-byte pad put {symbol} at {got and got % LINE}, not {want}")
    return placed, pad
