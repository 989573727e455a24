"""What an axis built or fetched: the one record type every axis reports (AxisRecord), and the
one store of the records each axis keeps beside what it made (RecordFile).

Each axis keeps a JSON record in the folder of what it made (an environment's env.json, an
architecture's arch.json, a release's release.json, a compiler variant's manifest.json),
holding its own details (packages, options, sizes). They are read and written here alone:
written whole to a temporary file and renamed over the record, so a record is complete or
absent; read back into their dataclasses with the keys a newer layout dropped passed over.
What every axis says of each thing it made, the same way, is an AxisRecord: where it lives,
what it was made from, its version, when, and its status (cipherbench/axes: Axis.records).

Base layer: the standard library and the base modules only; the axes import it.
"""
from __future__ import annotations

import dataclasses
import json
import types
import typing
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any, Generic, TypeVar

from cipherbench.variant import VariantAxis, VariantName

T = TypeVar("T")

#: A dataclass field with `metadata=NOT_STORED` is the process's own, never written.
NOT_STORED = {"stored": False}


class RecordStatus(StrEnum):
    """Where a variant stands on this machine."""

    DECLARED = "declared"  # known (declared or offered), not made here
    MADE = "made"  # built or fetched, usable
    FAILED = "failed"  # made and not usable: the note says why


@dataclass(frozen=True)
class AxisRecord:
    """One variant of one axis: what it is, where it lives, from what, which version, when, how it stands."""

    axis: VariantAxis
    name: VariantName  # the runner's name with its axis: native%s390x, bullseye:native, ...
    where: str  # its folder ("" when not made)
    source: str  # what it was made from: a Debian suite and mirror, a compiler and flags, a registry's package
    version: str  # the compiler's, the package's: what tells two makings apart
    made_at: str  # UTC ISO 8601 ("" when not made)
    status: RecordStatus
    note: str = ""  # why it failed, or how to make it

    def as_json(self) -> dict[str, str]:
        """The record as `list --json` writes it: every field, the enums by value."""
        return {"axis": self.axis.value, "name": str(self.name), "status": self.status.value, "where": self.where,
                "source": self.source, "version": self.version, "made_at": self.made_at, "note": self.note}

    @property
    def line(self) -> str:
        """The one line `list` and the reports show of it."""
        text = f"{self.name}  {self.status.value}"
        for part in (self.source, self.version, self.made_at and f"made {made_when(self.made_at)}", self.note):
            text += f", {part}" if part else ""
        return text


def made_when(iso: str) -> str:
    """A record's UTC ISO 8601 time as the tables write times ("2026-11-27 10:00 UTC"); a
    text that is no such time, as it stands."""
    try:
        t = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return (t.astimezone(UTC) if t.tzinfo else t).strftime("%Y-%m-%d %H:%M UTC")


class UnreadableRecord(Exception):
    """A record that is not the JSON of its dataclass; str(): why."""


class StoredRecord:
    """What every axis's own record shares: its JSON, written and read the one way."""

    def to_json(self) -> str:
        return json.dumps(encode(self), indent=1)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Any:
        return decode(cls, d)


class RecordFile(Generic[T]):
    """The one store: a record of type `cls` at `path`, written whole or not at all."""

    def __init__(self, path: Path, cls: type[T]) -> None:
        self.path, self.cls = path, cls

    def exists(self) -> bool:
        return self.path.is_file()

    def load(self) -> T:
        """The record; UnreadableRecord (why) when it is missing, not JSON, or not the type's."""
        try:
            return decode(self.cls, json.loads(self.path.read_text()))
        except (OSError, ValueError, TypeError, KeyError) as e:
            raise UnreadableRecord(str(e)) from None

    def save(self, rec: T) -> None:
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        tmp.write_text(json.dumps(encode(rec), indent=1) + "\n")
        tmp.replace(self.path)


def encode(obj: Any) -> Any:
    """A record as JSON's values: dataclasses as objects (fields NOT_STORED left out), enums by value."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if f.metadata.get("stored", True)}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, dict):
        return {k: encode(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [encode(v) for v in obj]
    return obj


def decode(cls: Any, data: Any) -> Any:
    """JSON's values as `cls`, by its type hints: dataclasses (keys it lacks passed over),
    enums, lists, dicts and optional values of them; anything else as it is."""
    origin = typing.get_origin(cls)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        kinds = [a for a in typing.get_args(cls) if a is not type(None)]
        return decode(kinds[0], data) if len(kinds) == 1 else data
    if origin is list:
        return [decode(typing.get_args(cls)[0], v) for v in data]
    if origin is dict:
        return {k: decode(typing.get_args(cls)[1], v) for k, v in data.items()}
    if isinstance(cls, type) and issubclass(cls, Enum):
        return cls(data)
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__}: an object expected, not {type(data).__name__}")
        hints = typing.get_type_hints(cls)
        known = {f.name for f in dataclasses.fields(cls) if f.metadata.get("stored", True)}
        return cls(**{k: decode(hints[k], v) for k, v in data.items() if k in known})
    return data
