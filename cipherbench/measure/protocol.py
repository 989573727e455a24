"""Typed models of the runner protocol's responses (docs/protocol.md), one per op, and
validate(), which turns a malformed answer into one RunnerError naming the runner and the
field, instead of an internal error wherever the field is first used.

Only answers with status `ok` carry the op's fields; `unsupported` and `error` answers
are checked for their `message` alone. Unknown fields are ignored (the protocol adds
fields compatibly). Numbers are strict: `"ns": "12"` or `true` is not a count.
"""
from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cipherbench.codepath import read_features
from cipherbench.errors import RunnerError
from cipherbench.kinds import CodeFeature

#: a count from a runner: a JSON integer, not a string, float or boolean
Count = Annotated[int, Field(strict=True, ge=0)]
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _hex(v: str) -> str:
    if len(v) % 2 or not _HEX_DIGITS.issuperset(v):
        raise ValueError("a byte string must be hex digits in pairs")
    return v


#: a byte string: hex digits in pairs (docs/protocol.md: lowercase or uppercase)
Hex = Annotated[str, Field(strict=True), AfterValidator(_hex)]


class Status(StrEnum):
    ok = "ok"
    unsupported = "unsupported"
    error = "error"


class Op(StrEnum):
    hello = "hello"
    encrypt = "encrypt"
    decrypt = "decrypt"
    hash = "hash"
    bench = "bench"
    cpu_clock = "cpu-clock"


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Response(_Model):
    """What every answer has."""

    status: Status
    id: Any = None
    message: str | None = None


# ---------------------------------------------------------------------------- hello
class Rounds(_Model):
    full: Annotated[int, Field(strict=True, ge=1)]
    max: Annotated[int, Field(strict=True, ge=1)]
    unit: str = "round"

    @model_validator(mode="after")
    def _full_within_max(self):
        if self.full > self.max:
            raise ValueError(f"full ({self.full}) is above max ({self.max})")
        return self


class PrimitiveOffer(_Model):
    name: Annotated[str, Field(strict=True, min_length=1)]
    provider: str = ""  # the code path in words, for people
    features: list[CodeFeature] | None = None  # the code path as data; absent: unknown
    rounds: Rounds | None = None

    @field_validator("features", mode="before")
    @classmethod
    def _protocol_features(cls, v: Any):
        _, problem = read_features(v)
        if problem:
            raise ValueError(problem)
        return v


class ImplementationInfo(_Model):
    name: Annotated[str, Field(strict=True, min_length=1)]
    library: str = ""
    version: str = ""
    available: Annotated[bool, Field(strict=True)] = True
    reason: str | None = None
    primitives: list[PrimitiveOffer] = []
    notes: dict[str, Any] = {}


class Clocks(_Model):
    monotonic: str
    tsc: str | None = None
    core_cycles: str | None = None


class HelloResponse(Response):
    protocol: Literal[1]
    runner: Annotated[str, Field(strict=True, min_length=1)]
    language: str = ""
    runtime: str = ""
    clocks: Clocks | None = None
    vector_state: str | None = None
    implementations: list[ImplementationInfo]

    @field_validator("implementations")
    @classmethod
    def _unique_names(cls, v: list[ImplementationInfo]):
        names = [im.name for im in v]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"implementation names announced twice: {', '.join(dupes)}")
        return v


# ---------------------------------------------------------------------------- one-shot ops
class CryptResponse(Response):
    """encrypt and decrypt. An AEAD decryption that rejects a forgery answers
    `"authentic": false` and no output; every other ok answer has an output."""

    output: Hex | None = None
    authentic: Annotated[bool, Field(strict=True)] | None = None
    chunked: Annotated[bool, Field(strict=True)] | None = None
    inplace: Annotated[bool, Field(strict=True)] | None = None
    rounds: Annotated[int, Field(strict=True, ge=1)] | None = None

    @model_validator(mode="after")
    def _output_unless_rejected(self):
        if self.status is Status.ok and self.output is None and self.authentic is not False:
            raise ValueError("an ok answer needs an output (or \"authentic\": false)")
        return self


class HashResponse(Response):
    output: Hex


# ---------------------------------------------------------------------------- timing
class BenchResponse(Response):
    """One count per batch in each list; tsc and core_cycles are null when the runner
    has no such clock."""

    ns: Annotated[list[Count], Field(min_length=1)]
    tsc: list[Count] | None = None
    core_cycles: list[Count] | None = None
    stack_offset: Annotated[int, Field(strict=True, ge=0, le=4095)] | None = None
    stack_at: Count | None = None

    @model_validator(mode="after")
    def _one_per_batch(self):
        for name in ("tsc", "core_cycles"):
            other = getattr(self, name)
            if other is not None and len(other) != len(self.ns):
                raise ValueError(f"{name} has {len(other)} counts for {len(self.ns)} batches")
        return self


class CpuClockResponse(Response):
    ns: Count
    chain_cycles: Count
    tsc: Count | None = None
    core_cycles: Count | None = None
    parallel_ns: Count | None = None


MODELS: dict[Op, type[Response]] = {
    Op.hello: HelloResponse, Op.encrypt: CryptResponse, Op.decrypt: CryptResponse,
    Op.hash: HashResponse, Op.bench: BenchResponse, Op.cpu_clock: CpuClockResponse,
}


# ---------------------------------------------------------------------------- validation
def _where(loc: tuple) -> str:
    """('implementations', 0, 'name') -> 'implementations[0].name'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the answer"


def _first_problem(e: ValidationError) -> tuple[str, str]:
    err = e.errors(include_url=False)[0]
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    value = repr(err.get("input"))
    return _where(loc), f"{err['msg']} (got {value[:60]}{'...' if len(value) > 60 else ''})"


def validate(runner: str, op: str | Op, resp: Any) -> Response:
    """The typed answer to `op`, or RunnerError: 'runner NAME answered 'OP' with a malformed
    field FIELD: WHAT'. Ops outside the protocol's list are checked as plain responses."""
    if not isinstance(resp, dict):
        raise RunnerError(f"runner {runner} answered '{op}' with a JSON value that is not an object")
    try:
        status = Response.model_validate(resp).status
        model = MODELS.get(Op(op), Response) if op in Op._value2member_map_ else Response
        return (model if status is Status.ok else Response).model_validate(resp)
    except ValidationError as e:
        where, what = _first_problem(e)
        raise RunnerError(f"runner {runner} answered '{op.value if isinstance(op, Op) else op}' "
                          f"with a malformed field {where}: {what}") from None
