"""A code path as data: the features an implementation announces for a primitive
(kinds.CodeFeature, docs/protocol.md `features`), read once here, and the one label every
view prints for them (code_label). The words an implementation gives beside the list
(`provider`) are for people and are never read for a feature: an implementation that
announces no list has an unknown path, whatever its words say."""
from __future__ import annotations

from collections.abc import Iterable

from cipherbench.kinds import CodeFeature

#: The label of a path whose features were not announced (a runner written before the
#: field, a stored run from before it was kept, a list the protocol does not allow).
UNKNOWN = "unknown"

#: How a label writes each feature.
NAMES: dict[CodeFeature, str] = {
    CodeFeature.VAES: "VAES", CodeFeature.AES_NI: "AES-NI", CodeFeature.VPCLMUL: "VPCLMUL",
    CodeFeature.PCLMUL: "PCLMUL", CodeFeature.SHA_NI: "SHA-NI", CodeFeature.GFNI: "GFNI",
    CodeFeature.ARMV8_CE: "ARMv8-CE", CodeFeature.AVX512: "AVX-512", CodeFeature.AVX2: "AVX2",
    CodeFeature.AVX: "AVX", CodeFeature.SSE41: "SSE4.1", CodeFeature.SSSE3: "SSSE3", CodeFeature.SSE2: "SSE2",
    CodeFeature.BMI2: "BMI2", CodeFeature.NEON: "NEON", CodeFeature.ASM: "asm", CodeFeature.PORTABLE: "portable",
}

Features = tuple[CodeFeature, ...]


def read_features(value: object) -> tuple[Features | None, str | None]:
    """An announced `features` value -> (the features in label order, None) or (None, what
    is wrong with it). Absent (None) is unknown without a fault. The protocol's rules: a
    non-empty list of its words, each once, `portable` alone."""
    if value is None:
        return None, None
    if not isinstance(value, list) or not value:
        return None, "features must be a non-empty list of the protocol's words"
    known = {f.value: f for f in CodeFeature}
    odd = [repr(v) for v in value if not isinstance(v, str) or v not in known]
    if odd:
        return None, f"features holds {', '.join(odd)}, not among the protocol's words"
    found = [known[v] for v in value]
    if len(set(found)) != len(found):
        return None, "features names a feature twice"
    if CodeFeature.PORTABLE in found and len(found) > 1:
        return None, "features has 'portable' (nothing CPU-specific) beside other features"
    return in_order(found), None


def in_order(features: Iterable[CodeFeature]) -> Features:
    """The features in the order labels write them (CodeFeature's declaration order)."""
    order = list(CodeFeature)
    return tuple(sorted(set(features), key=order.index))


def code_label(features: Iterable[CodeFeature] | None) -> str:
    """The code path in a label: every announced feature, in one order, joined by '+'
    ("AES-NI+PCLMUL", "portable"); "unknown" when none were announced."""
    if features is None:
        return UNKNOWN
    return "+".join(NAMES[f] for f in in_order(features)) or UNKNOWN


def stored(value: object) -> Features | None:
    """Features as a store or a results document holds them (a list of words, or null):
    a value that breaks the protocol's rules reads as unknown."""
    return read_features(value)[0]
