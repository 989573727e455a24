"""The Axis interface every variant axis implements (cipherbench/axes/__init__.py lists them)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar

from cipherbench.axis_store import AxisRecord
from cipherbench.errors import UsageError
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantAxis, VariantName

#: Told each step of a long making, one line at a time.
Say = Callable[[str], None]

#: The engine's own runner name, the base of an engine-building axis's variants (native%s390x).
ENGINE = "native"


class Axis(ABC):
    """One axis of variants: what it offers, making one, its lines, and its runners."""

    #: the part of an implementation's name the axis fills (cipherbench/variant.py)
    variant_axis: ClassVar[VariantAxis]
    #: the command that makes and lists its variants (`cipherbench env`, `arch`, `versions`, `builds`)
    command: ClassVar[str]

    @abstractmethod
    def discover(self) -> list[VariantName]:
        """Every variant this axis declares or has made here, each once, in a stable order."""

    @abstractmethod
    def records(self) -> list[AxisRecord]:
        """Each discovered variant as the one record type: made (from its record file) or declared."""

    @abstractmethod
    def make(self, name: VariantName, say: Say) -> AxisRecord:
        """Build or fetch the variant, or bring it up to date; its record then. One-line errors."""

    @abstractmethod
    def runner_spec(self, name: VariantName) -> RunnerSpec:
        """How a runner of the variant starts (unavailable, with the way to make it, when not made)."""

    @abstractmethod
    def runner_specs(self, chosen: Sequence[str]) -> list[RunnerSpec]:
        """The runners of the variants a command's option chose, as the user wrote them."""

    def describe(self) -> list[str]:
        """One line per variant, its name first (AxisRecord.line, as `list` prints the made ones)."""
        return [r.line for r in self.records()]

    def check(self, name: VariantName) -> VariantName:
        """`name` if it carries this axis, else a UsageError of one line."""
        if self.variant_axis not in name.axes:
            raise UsageError(f"{name} is not {self.variant_axis.shape}")
        return name
