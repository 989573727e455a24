"""The host's engine names the Debian package of each library it was built against, with
the version dpkg has installed (envs/describe.py): asked of dpkg once for every adapter."""
import shutil
import subprocess

import pytest

from cipherbench import manifest
from cipherbench.envs.describe import host_package


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="dpkg-query is Debian's; the host is Debian (README)")
def test_each_adapter_s_package_has_the_version_dpkg_gives_for_it_alone():
    for m in manifest.adapters():
        pkg, version = host_package(m.name)
        assert pkg == m.packages.dev_package(), m.name
        if pkg:
            alone = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
            assert version == (alone.stdout.strip() if alone.returncode == 0 else ""), (m.name, pkg)
    pkg, version = host_package("openssl")  # the engine is built against it (packages.txt)
    assert pkg == "libssl-dev" and version[:1].isdigit()
    assert host_package("no-such-adapter") == ("", "")
