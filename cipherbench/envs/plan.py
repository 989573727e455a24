"""What an experiment's list of implementations means once environments run."""
from __future__ import annotations

import logging

from cipherbench.errors import CipherbenchError
from cipherbench.variant import try_parse

log = logging.getLogger(__name__)


def offered(session, names) -> list[str]:
    """The preset's names, less those of an environment (`bullseye:botan`) that its release
    cannot offer (a library it lacks, or an older one without what the adapter needs):
    an experiment over releases measures what each has. Host names are kept as they are,
    so a misspelt one still fails with its one line."""
    envs = {r.spec.prefix for r in session.runners if r.spec.prefix}
    out = []
    for n in names:
        if (v := try_parse(n)) and v.environment in envs:
            try:
                session.implementation(n)
            except CipherbenchError as e:
                log.warning("cipherbench: %s left out: %s", n, e)  # stderr without a handler
                continue
        out.append(n)
    return out
