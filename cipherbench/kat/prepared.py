"""What the gate computes before it asks any pair: every corpus's known answers, and the
records computed over verified oracles (models, counter carries, long answers), as one
value (Prepared) that kat/cache.py keeps between runs."""
from __future__ import annotations

from dataclasses import dataclass, field

from cipherbench.kat import corpora
from cipherbench.kat.corpora import carry as model_carry
from cipherbench.kat.corpora import every_byte
from cipherbench.kat.corpora.long_answers import LARGEST, long_size
from cipherbench.kat.model_oracle import ModelCorpus, oracle_primitives
from cipherbench.kat.vectors import KnownAnswer, LongAnswer


@dataclass
class Prepared:
    """What the gate computes before it asks any pair (Verifier.prepare): the same for the
    same corpora, primitives and oracle implementations, so it can be kept between runs."""

    known: dict[str, list[KnownAnswer]]  # primitive -> its short known answers, every corpus's
    long: dict[str, list[LongAnswer]]  # primitive -> its long answers (corpora/carry.py)
    oracle_of: dict[str, str]  # primitive -> the ECB oracle its model records came from
    no_model: dict[str, str]  # modelled primitive -> why it got no model records
    missing_corpora: dict[str, str]  # corpus -> why it could not be read
    oracles: list[str]  # the implementations that served as ECB oracles
    depth: int  # the message length the long answers reach (corpora/long_answers.py, long_size)
    # primitive -> (its oracle implementation, short and long answers over a second oracle):
    # what that implementation is checked on in place of the answers over its own ECB
    for_oracle: dict[str, tuple[str, list[KnownAnswer], list[LongAnswer]]] = field(default_factory=dict)

    def answers_for(self, impl: str, primitive: str) -> tuple[list[KnownAnswer], list[LongAnswer]]:
        """The short and long answers impl is checked on: every one of the primitive's, but
        where impl is the oracle they were computed over and a second oracle computed them
        again, those instead."""
        known, long = self.known.get(primitive, []), self.long.get(primitive, [])
        alt = self.for_oracle.get(primitive)
        if alt is None or alt[0] != impl:
            return known, long
        _, alt_known, alt_long = alt
        if alt_known:
            known = [k for k in known if k.over != impl] + alt_known
        if alt_long:
            long = [la for la in long if la.over != impl] + alt_long
        return known, long


def prepare(session, prims, depth: int = LARGEST) -> Prepared:
    """Every corpus's known answers for prims, and the computed ones: modelled primitives
    without a published known answer get `model` ones, computed over an ECB oracle that
    passes that ECB primitive's published known answers (model_oracle.py), and counter
    carries and long answers of `depth` bytes (the largest size to be timed) come over
    the same oracles (corpora/carry.py)."""
    known, missing = corpora.load_all(
        {p.name for p in prims} | oracle_primitives(prims) | model_carry.oracle_primitives(prims))
    models = ModelCorpus(session)
    models.extend(prims, known)
    carry = model_carry.CarryCorpus(session, models, long_size(depth))
    carry.extend(prims, known)
    every_byte.extend(prims, known)
    for_oracle = {name: (impl, kas, []) for name, (impl, kas) in models.for_oracle.items()}
    for name, (impl, short, long) in carry.for_oracle.items():
        if name in for_oracle and for_oracle[name][0] == impl:
            short = for_oracle[name][1] + short
        for_oracle[name] = (impl, short, long)
    return Prepared(dict(known), carry.long, models.oracle_of, models.missing, missing,
                    models.oracle_impls(), long_size(depth), for_oracle)
