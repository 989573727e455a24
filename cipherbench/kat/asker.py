"""The gate's requests to a runner: each built from a primitive's inputs, sent ahead in
chunks where the checks will ask for it (prefetch), and its answer read as an output, a
refusal or `unsupported`."""
from __future__ import annotations

from cipherbench.kinds import Operation, PrimitiveKind


class Unsupported(Exception):
    """The runner answered `unsupported` to one request (docs/protocol.md: not a failure)."""


class Asker:
    """One runner process's side of the gate's checks (kat/pair_checks.py): the requests of
    one call and the answers sent ahead."""

    def __init__(self, session, replica: int | None = None):
        self.s = session
        self.replica = replica  # which process of each runner answers (Session.ask); None: the first
        # answers sent ahead: (impl, op, input) -> [(request, answer)], oldest last
        self._ahead: dict[tuple, list[tuple[dict, dict]]] = {}

    # ------------------------------------------------------------------ primitives of one call
    @staticmethod
    def _crypt_request(p, op, key, iv, aad, data, **extra) -> dict:
        req = {"op": op, "primitive": p.name, "key": key.hex(), "input": data.hex(), **extra}
        if iv:
            req["iv"] = iv.hex()
        if aad:
            req["aad"] = aad.hex()
        return req

    @staticmethod
    def _hash_request(p, data) -> dict:
        return {"op": "hash", "primitive": p.name, "input": data.hex()}

    def _ask(self, impl, req: dict, timeout: float | None = None) -> dict:
        """One request's answer: sent ahead by prefetch() if it was, else asked now (within
        `timeout`, else the runner's usual one)."""
        # keyed by a few fields and matched by whole-dict equality: serialising every request
        # for a key cost the gate more than a tenth of its own time
        waiting = self._ahead.get((impl, req.get("op"), req.get("input")), []) if self._ahead else []
        for i in range(len(waiting) - 1, -1, -1):
            if waiting[i][0] == req:
                return waiting.pop(i)[1]
        return self.s.ask(impl, req, timeout=timeout, replica=self.replica)

    def prefetch(self, impl, reqs: list[dict], chunk: int = 512):
        """Send requests whose answers the checks will ask for, in chunks, ahead of the
        checks: independent requests (each known answer's encryption and decryption)
        need not wait for one another's round trip."""
        for i in range(0, len(reqs), chunk):
            part = reqs[i:i + chunk]
            for req, resp in zip(part, self.s.ask_many(impl, part, replica=self.replica)):
                self._ahead.setdefault((impl, req.get("op"), req.get("input")), []).insert(0, (req, resp))

    def _crypt(self, impl, p, op, key, iv, aad, data, **extra) -> dict:
        return self._ask(impl, self._crypt_request(p, op, key, iv, aad, data, **extra))

    @staticmethod
    def _refused(r: dict) -> str:
        """The runner's reason for a non-ok answer; raises Unsupported for `unsupported`."""
        if r["status"] == "unsupported":
            raise Unsupported(r.get("message") or "unsupported")
        return r.get("message", r["status"])

    def _encrypt(self, impl, p, key, iv, aad, data):
        r = self._crypt(impl, p, "encrypt", key, iv, aad, data)
        if r["status"] != "ok":
            return None, self._refused(r)
        return bytes.fromhex(r.get("output", "")), None

    def _decrypt(self, impl, p, key, iv, aad, data):
        r = self._crypt(impl, p, "decrypt", key, iv, aad, data)
        if r["status"] != "ok":
            return None, None, self._refused(r)
        if p.kind == PrimitiveKind.AEAD and not r.get("authentic", False):
            return None, False, None
        return bytes.fromhex(r.get("output", "")), True, None

    def _optional(self, impl, p, op, key, iv, aad, data, field, value, echo):
        """(output or None, why not checked or None, error or None) for a request with an
        optional protocol field (`chunks`, `inplace`) that a runner confirms with `echo`: true."""
        r = self._crypt(impl, p, op, key, iv, aad, data, **{field: value})
        if r["status"] == "unsupported":
            return None, r.get("message") or f"the runner does not take '{field}'", None
        if r["status"] != "ok":
            return None, None, r.get("message", r["status"])
        if r.get(echo) is not True:
            return None, f"the runner ignored '{field}' (answered without \"{echo}\": true)", None
        if p.kind == PrimitiveKind.AEAD and op == Operation.DECRYPT and not r.get("authentic", False):
            return None, None, "rejected as forged"
        return bytes.fromhex(r.get("output", "")), None, None

    def _hash(self, impl, p, data):
        r = self._ask(impl, self._hash_request(p, data))
        if r["status"] != "ok":
            return None, self._refused(r)
        return bytes.fromhex(r.get("output", "")), None
