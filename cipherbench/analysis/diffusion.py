"""Diffusion and avalanche of block ciphers, measured through the runner protocol.

Every figure comes from ECB encryptions asked of a runner: one request per
(key, round count) whose input is, for each of several random base blocks,
the base block followed by its one-bit-flipped variants, so one request
measures whole flip sets. Bit i of a block is bit 7 - (i mod 8) of byte
i // 8 (most significant bit first, numpy.unpackbits order). Keys and blocks
come from numpy's PCG64 generator seeded with `Sampling.seed`, so a figure is
reproducible, and every round count of one cipher sees the same keys and
blocks.

**Diffusion** follows Gladman's 1999 comparison of the AES candidates (shared
seed 002): "After setting up random key and data input blocks I run the
encryption round function for the algorithm in question once or twice. I then
change just one bit in the data input block and count how many bits in the
output block change. I do this for each bit in the input block and I repeat
this for a large number of random inputs to obtain average values. I then
calculate for each input bit how many output bits change on average; I also
calculate for each output bit how many input bits change its value [...]
Since some algorithms operate using 'half-rounds' I use the best of the 1 and
2 round diffusion values to calculate an overall diffusion count." Here:

- `mean_bits`: output bits changed per flipped input bit, averaged over input
  bits and samples (Gladman's "diffusion, r rounds"; a random permutation
  gives half the block).
- `input_min`/`input_max`: over input bits, the mean number of output bits
  its flip changes; `output_min`/`output_max`: over output bits, the mean
  number of input bits whose flip changes it.
- `complete`: every output bit changed by every input bit in at least one
  sample, i.e. every output bit was seen to depend on every input bit. A
  dependence that shows with probability p per sample is missed with
  probability (1 - p)^samples, so this is "observed", not proven; for a
  128-bit block the 16384 pairs of a well-mixed cipher (p = 1/2) need well over
  14 samples (the experiments use 256).
- rounds to full diffusion (`summary`): the smallest round count whose row is
  `complete`.
- overall count (`summary`): full rounds x max(d1, d2 / 2), d1 and d2 being
  `mean_bits` after one and two rounds. Gladman does not print his formula;
  this one reproduces his published row within the rounding of its printed 1-
  and 2-round figures (RC6 20 x 42/2 = 420, E2 12 x 39 = 468, DEAL 6 x 49/2 =
  147, HPC 8 x 64 = 512, CAST-256 12 quad-rounds x 41 = 492 against 495).

Gladman ran the bare round function; here r rounds are the implementation's
reduced-round cipher (protocol field `rounds`, in the unit it announces):
what the cipher always applies (Twofish's whitening, E2's IT and FT) is
included, and Rijndael and Serpent, whose last round omits the linear layer
as their full ciphers do, have r - 1 full round functions in r rounds.

**Avalanche** (full cipher, any implementation) tests the two criteria of
A. F. Webster and S. E. Tavares, "On the Design of S-Boxes", CRYPTO '85
(LNCS 218): the strict avalanche criterion (SAC: each output bit changes with
probability 1/2 when one input bit is flipped) and the bit independence
criterion (BIC: for each flipped input bit, any two output bits change
independently). For an ideal cipher every count of "output bit j changed when
input bit i was flipped" is Binomial(samples, 1/2), independently over (i, j),
and the change indicators of two output bits are uncorrelated:

- `sac_max_dev`: max over (i, j) of |P(j changes | i flipped) - 1/2|.
- `sac_p`: chi-square test of all n_in x n_out counts against samples / 2
  (df = n_in x n_out); `sac_worst_p`: two-sided binomial p of the most extreme
  count, times the number of counts (Bonferroni, capped at 1).
- `bic_max_corr`: max over i and pairs j < k of |correlation| of the change
  indicators of j and k; `bic_p`: the two-sided normal p of that correlation
  times sqrt(samples), times the number of pairs (Bonferroni, capped at 1).
  Pairs with a constant indicator (no variance) have no correlation and are
  left out; a constant indicator already fails the SAC. Only full-cipher rows
  carry the BIC (it costs n_in x n_out^2 x samples operations).
A row passes a criterion when its p-values are at least `ALPHA`.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.kinds import PrimitiveKind, Verdict
from cipherbench.measure import ops
from cipherbench.registry import Primitive
from cipherbench.results.run import Diffusion

if TYPE_CHECKING:
    from cipherbench.measure.point import Point
    from cipherbench.measure.session import Session

#: An array of the numbers numpy holds (bytes, bits as bools, counts).
Array = np.ndarray[Any, np.dtype[Any]]
#: Said after each item of a long measurement.
Progress = Callable[[str], None] | None

ALPHA = 0.001  # significance level of the avalanche verdicts


@dataclass(frozen=True)
class Sampling:
    keys: int = 16  # random keys, one request each
    blocks: int = 16  # random base blocks per key: samples = keys x blocks
    seed: int = 1999

    @property
    def samples(self) -> int:
        return self.keys * self.blocks

    def check(self) -> None:
        if self.keys < 1 or self.blocks < 1:
            raise UsageError("diffusion needs at least one key and one block per key")


def ecb_primitive(session: Session, name: str) -> Primitive:
    """The registry primitive, which must be a block cipher in ECB (single blocks)."""
    p = session.primitive(name)
    if p.kind != PrimitiveKind.CIPHER or p.mode != "ecb":
        hint = f"{p.family}-{p.key_bits}-ecb" if p.kind == PrimitiveKind.CIPHER else "a block cipher such as aes-128-ecb"
        raise UsageError(f"diffusion and avalanche are measured on single blocks: give an ECB primitive "
                         f"({hint}), not {name}")
    return p


def flip_set(bases: Array) -> Array:
    """(m, B) base blocks -> (m, 1 + 8B, B): each base block, then its 8B one-bit-flipped variants."""
    m, nbytes = bases.shape
    n = 8 * nbytes
    out = np.repeat(bases[:, None, :], n + 1, axis=1)
    bit = np.arange(n)
    out[:, 1 + bit, bit // 8] ^= (0x80 >> (bit % 8)).astype(np.uint8)
    return out


def changes(session: Session, impl: str, p: Primitive, rounds: int | None, sampling: Sampling) -> Array:
    """Bool array (samples, n_in, n_out): output bit j changed when input bit i was flipped.
    `rounds` None asks for the full cipher without the protocol field."""
    sampling.check()
    rng = np.random.default_rng(sampling.seed)
    nbytes = p.block_bytes
    n = 8 * nbytes
    out = []
    for _ in range(sampling.keys):
        key = rng.bytes(p.key_bytes)
        bases = rng.integers(0, 256, size=(sampling.blocks, nbytes), dtype=np.uint8)
        ct = ops.crypt(session, impl, p, key, None, None, flip_set(bases).tobytes(), decrypt=False, rounds=rounds)
        if ct is None or len(ct) != sampling.blocks * (n + 1) * nbytes:
            raise CipherbenchError(f"{impl} answered {p.name} with {len(ct or b'')} bytes for "
                                   f"{sampling.blocks * (n + 1) * nbytes}")
        c = np.frombuffer(ct, dtype=np.uint8).reshape(sampling.blocks, n + 1, nbytes)
        out.append(np.unpackbits(c[:, 1:, :] ^ c[:, :1, :], axis=2).astype(bool))
    return np.concatenate(out)


def figures(ch: Array, bic: bool = True) -> dict[str, Any]:
    """The diffusion and avalanche figures of one change array (see the module docstring).
    `bic` False leaves the bit independence figures out (None): they cost the most and
    matter for the full cipher."""
    n_samples, n_in, n_out = ch.shape
    counts = ch.sum(axis=0, dtype=np.int64).astype(np.float64)  # (n_in, n_out)
    p = counts / n_samples  # P(j changes | i flipped)
    per_input = p.sum(axis=1)
    per_output = p.sum(axis=0)
    half = n_samples / 2
    chi2 = float(((counts - half) ** 2).sum() / (n_samples / 4))
    worst = float(np.abs(counts - half).max())
    # two-sided binomial p of a count at least `worst` away from samples/2
    from scipy import stats  # imported where used: it costs most of a command's start
    tail = stats.binom.cdf(np.floor(half - worst), n_samples, 0.5) if worst > 0 else 0.5
    worst_p = min(1.0, float(2 * tail) * n_in * n_out) if worst > 0 else 1.0
    bic_r, bic_p = _bic(ch) if bic else (None, None)
    return {
        "samples": n_samples, "block_bits": n_in,
        "mean_bits": float(per_input.mean()),
        "input_min": float(per_input.min()), "input_max": float(per_input.max()),
        "output_min": float(per_output.min()), "output_max": float(per_output.max()),
        "complete": bool((counts > 0).all()),
        "dependent_pairs": int((counts > 0).sum()),
        "sac_max_dev": float(np.abs(p - 0.5).max()),
        "sac_p": float(stats.chi2.sf(chi2, n_in * n_out)),
        "sac_worst_p": worst_p,
        "bic_max_corr": bic_r, "bic_p": bic_p,
    }


def _bic(ch: Array) -> tuple[float | None, float | None]:
    n_samples, n_in, n_out = ch.shape
    x = ch.astype(np.float32)
    x -= x.mean(axis=0)
    sd = np.sqrt((x * x).mean(axis=0))  # (n_in, n_out)
    xt = np.transpose(x, (1, 2, 0))  # (n_in, n_out, samples)
    cov = xt @ np.transpose(x, (1, 0, 2)) / n_samples  # (n_in, n_out, n_out)
    denom = sd[:, :, None] * sd[:, None, :]
    iu = np.triu_indices(n_out, 1)
    c, d = cov[:, iu[0], iu[1]], denom[:, iu[0], iu[1]]
    ok = d > 1e-12
    if not ok.any():
        return None, None
    r = min(1.0, float(np.abs(c[ok] / d[ok]).max()))  # float32 (memory): clip rounding above 1
    from scipy import stats  # imported where used: it costs most of a command's start
    p = min(1.0, float(2 * stats.norm.sf(r * np.sqrt(n_samples))) * int(ok.sum()))
    return r, p


def measure(session: Session, impl: str, p: Primitive, rounds: int | None, sampling: Sampling) -> Diffusion:
    """One stored row: the figures of `impl`'s `p` at `rounds` (None = the full cipher)."""
    info = session.impls[impl].rounds.get(p.name, {}) if impl in session.impls else {}
    row = {"impl": impl, "primitive": p.name, "rounds": rounds, "full_rounds": info.get("full"),
           "rounds_unit": info.get("unit"), "keys": sampling.keys, "blocks": sampling.blocks,
           "seed": sampling.seed, "error": None}
    row.update(figures(changes(session, impl, p, rounds, sampling), bic=rounds is None))
    return Diffusion.of(row)


def profile(session: Session, impl: str, p: Primitive, sampling: Sampling, rounds: Sequence[int] = (),
            progress: Progress = None) -> list[Diffusion]:
    """Rows for the round counts asked (default: 1, 2, ... until every output bit depends on every
    input bit, below the full count) and one for the full cipher. Only the full cipher for
    implementations that do not announce reduced rounds for `p`."""
    info = session.implementation(impl).rounds.get(p.name)
    if rounds:
        if info is None:
            raise UsageError(f"{impl} does not announce reduced-round variants of {p.name}; "
                             "the reference implementation does (--impl reference)")
        bad = [r for r in rounds if not 1 <= r <= info["max"]]
        if bad:
            raise UsageError(f"{impl} runs {p.name} with 1 to {info['max']} rounds "
                             f"({info['unit']}); asked for {', '.join(map(str, bad))}")
        plan = sorted(set(rounds))
    elif info:
        plan = None  # adaptive
    else:
        plan = []
    rows: list[Diffusion] = []
    if plan is None:
        assert info is not None
        r = 1
        while r < info["full"]:
            rows.append(measure(session, impl, p, r, sampling))
            if progress:
                progress(f"{impl} {p.name} {r} rounds")
            if rows[-1].complete and r >= 2:
                break
            r += 1
    else:
        for r in plan:
            rows.append(measure(session, impl, p, r, sampling))
            if progress:
                progress(f"{impl} {p.name} {r} rounds")
    rows.append(measure(session, impl, p, None, sampling))
    if progress:
        progress(f"{impl} {p.name} full cipher")
    return rows


def passes(row: Diffusion, criterion: str) -> bool | None:
    """Whether a row is consistent with the SAC or BIC at level ALPHA (None: not measurable)."""
    if criterion == "sac":
        return row.sac_p is not None and row.sac_worst_p is not None and row.sac_p >= ALPHA \
            and row.sac_worst_p >= ALPHA
    return None if row.bic_p is None else row.bic_p >= ALPHA


@dataclass(frozen=True)
class Summary:
    """One (implementation, primitive)'s diffusion across its rows (see the module docstring)."""

    d1: float | None  # output bits changed per flipped input bit after one round
    d2: float | None  # after two
    overall: float | None  # full rounds x max(d1, d2 / 2): Gladman's overall count
    full_diffusion_rounds: int | None  # rounds until every output bit depends on every input bit
    full_rounds: int | None
    unit: str | None  # of the round counts, where the implementation's differ from the cipher's
    reduced_measured: list[int]  # the reduced round counts measured
    sac: bool | None  # the full cipher's avalanche verdicts (None: not measurable)
    bic: bool | None
    full: Diffusion | None  # the full cipher's row


def summary(rows: Sequence[Diffusion]) -> Summary:
    """Per (impl, primitive): d1, d2, the overall count, rounds to full diffusion, and the
    full cipher's avalanche verdicts (see the module docstring)."""
    by_r = {r.rounds: r for r in rows if not r.error}
    full_row = by_r.get(None)
    full = next((r.full_rounds for r in rows if r.full_rounds), None)
    d1 = by_r[1].mean_bits if 1 in by_r else None
    d2 = by_r[2].mean_bits if 2 in by_r else None
    per_round = [x for x in (d1, None if d2 is None else d2 / 2) if x is not None]
    # Rounds to full diffusion: known only when every smaller count was measured.
    reached, r = None, 1
    while r in by_r:
        if by_r[r].complete:
            reached = r
            break
        r += 1
    else:
        if full and r == full and full_row and full_row.complete:
            reached = full
    return Summary(d1=d1, d2=d2, overall=full * max(per_round) if full and per_round else None,
                   full_diffusion_rounds=reached, full_rounds=full,
                   unit=next((r.rounds_unit for r in rows if r.rounds_unit), None),
                   reduced_measured=sorted(r for r in by_r if r is not None),
                   sac=passes(full_row, "sac") if full_row else None,
                   bic=passes(full_row, "bic") if full_row else None,
                   full=full_row)


def sampling_from(preset: dict[str, Any] | None) -> Sampling:
    d = dict(preset or {})
    unknown = set(d) - set(asdict(Sampling()))
    if unknown:
        raise UsageError(f"experiments.toml: unknown diffusion setting(s) {', '.join(sorted(unknown))}; "
                         "accepted: keys, blocks, seed")
    return Sampling(**d)


def experiment_pairs(points: Iterable[Point]) -> list[tuple[str, Primitive]]:
    """What an experiment's diffusion covers: per implementation and cipher family among the
    planned points, the ECB primitive with the smallest key (diffusion does not depend on the
    key length beyond the round count), unless it failed verification."""
    best: dict[tuple[str, str], Primitive] = {}
    for pt in points:
        p = pt.primitive
        if p.kind != PrimitiveKind.CIPHER or p.mode != "ecb" or pt.verified == Verdict.FAILED:
            continue
        k = (pt.impl, p.family)
        if k not in best or p.key_bits < best[k].key_bits:
            best[k] = p
    return sorted(((impl, p) for (impl, _), p in best.items()), key=lambda x: (x[1].family, x[0]))


def experiment_rows(session: Session, pairs: Iterable[tuple[str, Primitive]], sampling: Sampling,
                    progress: Progress = None) -> list[Diffusion]:
    """Rows for every pair; a pair that fails gets one row carrying its error instead of figures."""
    rows: list[Diffusion] = []
    for impl, p in pairs:
        try:
            rows += profile(session, impl, p, sampling)
        except CipherbenchError as e:
            rows.append(Diffusion(impl, p.name, rounds=None, keys=sampling.keys, blocks=sampling.blocks,
                                  seed=sampling.seed, error=str(e)))
        if progress:
            progress(f"{impl} {p.name}")
    return rows
