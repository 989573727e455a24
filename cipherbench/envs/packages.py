"""Which Debian packages an environment needs: the toolchain and each adapter's, for its
release, from the adapter's manifest.toml (cipherbench/manifest.py)."""
from __future__ import annotations

from cipherbench import manifest
from cipherbench.envs.environment import EnvError

#: What building the engine takes in any release: its compiler (g++ pulls the
#: release's default gcc), cmake and ninja, pkg-config (the adapters' probes) and
#: nlohmann-json (the protocol).
TOOLCHAIN = ["g++", "cmake", "ninja-build", "pkg-config", "nlohmann-json3-dev"]


def adapters_known() -> list[str]:
    return [p.name for p in manifest.adapter_folders()]


def adapter_packages(adapters: list[str] | None, release: str) -> list[tuple[str, str]]:
    """(adapter, package) for the adapters asked for (None: every adapter) in `release`, in order."""
    known = adapters_known()
    chosen = known if not adapters else adapters
    unknown = [a for a in chosen if a not in known]
    if unknown:
        raise EnvError(f"unknown adapter {unknown[0]!r}; known: {', '.join(known)}")
    try:
        return [(a, pkg) for a in chosen for pkg in manifest.adapter(a).packages.for_release(release)]
    except manifest.ManifestError as e:
        raise EnvError(str(e)) from None


#: Shell run inside the fresh root filesystem: of the packages given as arguments,
#: install those the release has and print "skip PACKAGE" for the others. apt-cache
#: show fails for names the release does not carry (a -dev package renamed or dropped).
#: mmdebstrap empties apt's lists when it is done: update them first.
INSTALL_AVAILABLE = r"""
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
have=""
for p in "$@"; do
  if apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then have="$have $p"; else echo "skip $p"; fi
done
[ -z "$have" ] || apt-get install -y -q --no-install-recommends $have >&2
"""

