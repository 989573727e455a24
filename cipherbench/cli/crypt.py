"""One-shot `encrypt`, `decrypt` and `hash` of hex input."""
from __future__ import annotations

import click

from cipherbench import registry
from cipherbench.cli.app import Ctx
from cipherbench.errors import CipherbenchError
from cipherbench.measure import ops
from cipherbench.measure.session import primitive_named


# ---------------------------------------------------------------------------- one-shot ops
def _crypt(c: Ctx, impl, primitive, key, iv, aad, data, decrypt):
    k = ops.parse_hex("--key", key)
    v = ops.parse_hex("--iv", iv)
    a = ops.parse_hex("--aad", aad)
    d = ops.parse_hex("--in", data)
    p = primitive_named(registry.load(), primitive)
    ops.check_request(p, k, v, a, d, decrypt)
    with c.session(pin=False) as s:
        s.implementation(impl)
        res = ops.crypt(s, impl, p, k, v, a, d, decrypt)
    if res is None:
        raise CipherbenchError(f"{primitive}: the tag does not verify; the message is not authentic "
                               "and no plaintext is output")
    click.echo(res.hex())


def _crypt_options(f):
    for opt in reversed([
        click.argument("impl"), click.argument("primitive"),
        click.option("--key", required=True, metavar="HEX"),
        click.option("--iv", metavar="HEX", help="IV or nonce, as the primitive requires."),
        click.option("--aad", metavar="HEX", help="Associated data (AEADs)."),
        click.option("--in", "data", required=True, metavar="HEX",
                     help="Input; for AEAD decryption, ciphertext followed by the tag.")]):
        f = opt(f)
    return f


@click.command()
@_crypt_options
@click.pass_obj
def encrypt(c, impl, primitive, key, iv, aad, data):
    """Encrypt hex input; AEADs print ciphertext followed by the tag."""
    _crypt(c, impl, primitive, key, iv, aad, data, decrypt=False)


@click.command()
@_crypt_options
@click.pass_obj
def decrypt(c, impl, primitive, key, iv, aad, data):
    """Decrypt hex input; an AEAD message whose tag does not verify exits 1."""
    _crypt(c, impl, primitive, key, iv, aad, data, decrypt=True)


@click.command("hash")
@click.argument("impl")
@click.argument("primitive")
@click.option("--in", "data", required=True, metavar="HEX")
@click.pass_obj
def hash_cmd(c, impl, primitive, data):
    """Hash hex input."""
    d = ops.parse_hex("--in", data)
    with c.session(pin=False) as s:
        p = s.primitive(primitive)
        s.implementation(impl)
        click.echo(ops.digest(s, impl, p, d).hex())

