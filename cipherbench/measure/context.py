"""The machine context recorded with every run."""
from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from cipherbench import __version__
from cipherbench.paths import REPO

# CPU flags that change which code path a library takes.
RELEVANT_FLAGS = ("aes", "vaes", "pclmulqdq", "vpclmulqdq", "sha_ni", "avx", "avx2", "avx512f",
                  "avx512vl", "bmi2", "adx", "sse4_1", "ssse3", "constant_tsc", "nonstop_tsc",
                  "hypervisor")


def usable_cpus() -> int:
    """How many CPUs this process may run on (its affinity where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def cpu_info() -> dict:
    model, flags, mhz = platform.processor() or "unknown", set[str](), None
    ident: dict[str, str] = {}
    text = _read("/proc/cpuinfo") or ""
    for line in text.splitlines():
        k, _, v = line.partition(":")
        k, v = k.strip(), v.strip()
        if k == "model name":
            model = v
        elif k == "flags" and not flags:
            flags = set(v.split())
        elif k == "cpu MHz" and mhz is None:
            mhz = float(v)
        elif k in ("vendor_id", "cpu family", "model", "stepping") and k not in ident:
            ident[k] = v  # which microarchitecture (report/machines.py names it)
    return {"model": model, "flags": sorted(f for f in flags if f in RELEVANT_FLAGS),
            "logical_cpus": os.cpu_count(), "nominal_mhz": mhz, "vendor": ident.get("vendor_id"),
            "family": ident.get("cpu family"), "model_number": ident.get("model"), "stepping": ident.get("stepping")}


def power_state() -> dict:
    gov = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    boost = _read("/sys/devices/system/cpu/cpufreq/boost")
    no_turbo = _read("/sys/devices/system/cpu/intel_pstate/no_turbo")
    smt = _read("/sys/devices/system/cpu/smt/active")
    return {"governor": gov, "boost": boost, "intel_no_turbo": no_turbo, "smt_active": smt}


def cpu_times() -> dict[str, tuple[int, int, int]]:
    """Per-CPU (busy, steal, total) jiffies from /proc/stat; {} where it cannot be read."""
    out = {}
    text = _read("/proc/stat") or ""
    for line in text.splitlines():
        if line.startswith("cpu") and line[3:4].isdigit():
            f = line.split()
            v = [int(x) for x in f[1:]]
            idle = v[3] + (v[4] if len(v) > 4 else 0)
            steal = v[7] if len(v) > 7 else 0
            out[f[0]] = (sum(v[:8]) - idle - steal, steal, sum(v[:8]))
    return out


def busy_shares(before: dict, after: dict) -> dict[str, float]:
    """Each CPU's busy share of the time between two cpu_times() readings."""
    shares = {}
    for cpu, (busy1, _s1, total1) in after.items():
        if cpu in before and total1 > before[cpu][2]:
            shares[cpu] = (busy1 - before[cpu][0]) / (total1 - before[cpu][2])
    return shares


def git_revision() -> str | None:
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=5)
        if rev.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return rev.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def layout_as_asked(session) -> tuple[bool, str]:
    """Whether every runner got the address layout asked for (runner.RunnerProcess,
    fixed_layout), and one line on where the runners' memory sat."""
    got = {r.spec.name: r.process.layout for r in session.runners if r.process}
    asked = "fixed" if session.fixed_layout else "random"
    if not got:
        return True, f"{asked} (no runner started)"
    wrong = sorted(n for n, lay in got.items() if lay != asked)
    if asked == "fixed" and not wrong:
        return True, "fixed: runners started with address-space randomisation off, the same addresses every run"
    if asked == "random":
        return True, (f"random: runners started with address-space randomisation; batches spread over "
                      f"{session.replicas} processes (one layout each) of every runner without a JIT")
    return False, (f"fixed asked, but {', '.join(wrong)} ran with randomised addresses (personality(2) refused "
                   "or unreadable): their figures can differ from run to run by where buffers landed")


def machine_context(session=None) -> dict:
    ctx = {
        "host": platform.node(),
        "machine": platform.machine(),  # uname -m: the CPU's architecture (arch/architecture.py, debian_arch)
        "kernel": platform.release(),
        "os": _read("/etc/debian_version") and f"Debian {_read('/etc/debian_version')}" or platform.platform(),
        "python": platform.python_version(),
        "cipherbench": __version__,
        "git_revision": git_revision(),
        "cpu": cpu_info(),
        "power": power_state(),
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    if session is not None:
        ctx["measuring_cpu"] = session.cpu
        if session.parallel_cpus:
            ctx["parallel_cpus"] = session.parallel_cpus
        ctx["runners"] = {r.spec.name: {k: r.hello.get(k) for k in ("language", "runtime", "clocks", "vector_state")}
                          | {"address_layout": r.process.layout if r.process else None,
                             "processes": 1 + len(r.replicas)}
                          for r in session.runners if r.hello}
        ctx["address_layout"] = layout_as_asked(session)[1]
    return ctx
