"""Option types several commands share: one reader of sizes (results/rules.py, parse_size)
for every option that takes bytes, so `--size 1k`, `--sizes 1k,16KiB` and `--up-to 1M` take
the same units."""
from __future__ import annotations

from typing import Any

import click

from cipherbench.results.rules import parse_size, size_text


class Size(click.ParamType):
    """One size in bytes, from `low` to `high`."""

    name = "size"

    def __init__(self, low: int = 1, high: int = 1 << 30) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            n = value
        else:
            try:
                n = parse_size(str(value))
            except ValueError as e:
                self.fail(str(e), param, ctx)
        if not self.low <= n <= self.high:
            self.fail(f"{value!r} is {n:,} bytes: it must be from {size_text(self.low)} to {size_text(self.high)}",
                      param, ctx)
        return n


class Sizes(click.ParamType):
    """Sizes separated by commas, each as Size reads it; a list of bytes."""

    name = "sizes"

    def __init__(self, low: int = 1, high: int = 1 << 30) -> None:
        self.one = Size(low, high)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        if isinstance(value, list):
            return value
        parts = [x for x in str(value).split(",") if x.strip()]
        if not parts:
            self.fail("needs at least one size, e.g. 16,1k,16KiB", param, ctx)
        return [self.one.convert(x, param, ctx) for x in parts]
