"""A run's warnings as values: what kind, the threshold that raised it, and a sentence
for people. Code decides on `kind`, never on the sentence."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from cipherbench.measure.clock import SHARED_RUN_WARNING, CoreClock, shared_core_warning, shared_share

#: A CPU busier than this share while cipherbench's own processes wait (the settling second)
#: means another process is running.
BUSY_AT_START = 0.10
#: The core clock measured between batches spanning more than this, relative, is worth saying.
CLOCK_SPAN = 0.02
#: The clock before and after the run differing by more than this, where no batch clock was read.
CLOCK_DRIFT = 0.02


class WarningKind(StrEnum):
    CORPUS_MISSING = "corpus-missing"  # a known-answer corpus was not on this machine
    CLOCK_MOVED = "clock-moved"  # the batch clock spanned more than CLOCK_SPAN
    CLOCK_DRIFT = "clock-drift"  # before/after clock differ by more than CLOCK_DRIFT
    SHARED_CORE = "shared-core"  # measure.clock.SHARED_RUN_WARNING of readings found the core shared
    BUSY_CPU = "busy-cpu"  # a CPU over BUSY_AT_START busy before timing
    LAYOUT = "layout"  # a fixed layout was asked and a runner ran randomised
    GOVERNOR = "governor"  # the CPU governor is not `performance`
    INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM during the run
    RUNNER_LOST = "runner-lost"  # a runner crashed, hung or answered garbage; its points stopped
    RUNNER_RESTARTED = "runner-restarted"  # a runner's process died and was started again
    POINTS_FAILED = "points-failed"  # points that could not be timed
    PARALLEL_SMT = "parallel-smt"  # run --parallel on CPUs that are hardware threads of one core
    TIME_BUDGET = "time-budget"  # the profile's time for timing ran out before every round it wanted


@dataclass(frozen=True)
class RunWarning:
    kind: WarningKind
    message: str
    threshold: float | None = None  # the named threshold that raised it, where one did
    value: float | None = None  # what was compared with it, where one number says it

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def clock_warnings(clock: CoreClock, readings: list[float] | None) -> list[RunWarning]:
    out = []
    if clock.batch_low and clock.batch_high and clock.batch_high / clock.batch_low - 1 > CLOCK_SPAN:
        out.append(RunWarning(
            WarningKind.CLOCK_MOVED,
            f"the core clock moved between {clock.batch_low:.3f} and {clock.batch_high:.3f} GHz during the "
            "run (measured between batches): MB/s and ns/call are for the clock of their moment; "
            "cycles/byte, taken batch by batch, are not affected", CLOCK_SPAN))
    elif not clock.batch_low and clock.drift and clock.drift > CLOCK_DRIFT:
        out.append(RunWarning(
            WarningKind.CLOCK_DRIFT,
            f"core clock drifted {100 * clock.drift:.1f}% between before and after ({clock.before:.3f} -> "
            f"{clock.after:.3f} GHz): frequency scaling or load; cycles/byte are less certain", CLOCK_DRIFT))
    if readings is not None and (note := shared_core_warning(readings, clock.usual_adds)):
        out.append(RunWarning(WarningKind.SHARED_CORE, note, SHARED_RUN_WARNING,
                              shared_share(readings, clock.usual_adds)))
    return out


def machine_warnings(busy: dict[str, float], layout_ok: bool, layout_text: str,
                     governor: str | None) -> list[RunWarning]:
    # Busy CPUs while ours were idle, not the load average: on these virtual machines a kernel
    # thread in uninterruptible sleep holds it near 1 on an idle machine.
    out = [RunWarning(WarningKind.BUSY_CPU,
                      f"{cpu} was {share:.0%} busy in the second before timing, while cipherbench's "
                      "processes were idle: another process was running", BUSY_AT_START, share)
           for cpu, share in sorted(busy.items()) if share > BUSY_AT_START]
    if not layout_ok:
        out.append(RunWarning(WarningKind.LAYOUT, layout_text))
    if governor and governor != "performance":
        out.append(RunWarning(WarningKind.GOVERNOR,
                              f"CPU governor is '{governor}', not 'performance': clock speed may vary"))
    return out


def budget_warning(budget_s: float, cut: int, timed: int) -> RunWarning | None:
    """The profile's time budget left `cut` of the `timed` points without a round their
    interval still wanted (measure/stopping.py, TimeBudget); None where it left none out."""
    if not cut:
        return None
    return RunWarning(
        WarningKind.TIME_BUDGET,
        f"the profile's {f'{budget_s:.0f} s' if budget_s < 120 else f'{budget_s / 60:.1f} minutes'} of timing ran "
        f"out: {cut:,} of {timed:,} points did not get "
        "every round beyond their floor that their interval asked for (each still has its floor; its interval "
        "is stored: show --long)", budget_s, float(cut))
