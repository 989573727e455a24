"""Where a failing pair's output parts from the known answer (kat/outcome.py, difference): the
one rule the gate's stored sentence and the report's first-difference table both read."""
from cipherbench.kat.outcome import Difference, difference, first_difference, stored_difference

#: NIST SP 800-38A (2001), Appendix F.2.1, CBC-AES128.Encrypt: the key, IV, plaintext and ciphertext
SP800_38A_KEY = "2b7e151628aed2a6abf7158809cf4f3c"
SP800_38A_CT = ("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
#: What tests/runners/faulty.py cbc-chain answers for that vector (it chains the previous plaintext
#: block, not the ciphertext): block 1 right, block 2 = AES_K(P2 xor P1) = 05495a29...
CBC_CHAIN_CT = ("7649abac8119b246cee98e9b12e9197d05495a294cb949fd4d238533c6ea49fd"
                "8f84d54d827a5e27f39f8f0be0c9798b405c15b2c7e94128ac84095182ee1293")


def test_the_first_differing_byte_and_the_bytes_around_it():
    d = stored_difference(SP800_38A_CT, CBC_CHAIN_CT)
    assert d == Difference(offset=16, expected_len=64, actual_len=64, start=8,
                           expected=bytes.fromhex("cee98e9b12e9197d5086cb9b507219ee"),
                           actual=bytes.fromhex("cee98e9b12e9197d05495a294cb949fd"))
    assert d.words() == "byte 16: expected 0x50, got 0x05"
    assert (d.expected_window, d.actual_window) == ("…cee98e9b12e9197d[50]86cb9b507219ee…",
                                                    "…cee98e9b12e9197d[05]495a294cb949fd…")


def test_a_difference_at_either_end():
    d = difference(bytes.fromhex("00112233"), bytes.fromhex("00112244"))
    assert d is not None and (d.offset, d.start, d.expected_window, d.actual_window) == (3, 0, "001122[33]", "001122[44]")
    short = difference(bytes.fromhex(SP800_38A_CT[:64]), bytes.fromhex(SP800_38A_CT[:40]))
    assert short is not None and short.words() == "byte 20: expected 32 bytes, got 20"
    assert (short.expected_window, short.actual_window) == ("…12e9197d5086cb9b[50]7219ee95db113a…",
                                                          "…12e9197d5086cb9b[]")


def test_only_stored_bytes_have_a_difference():
    """A reproduction's `expected` and `actual` are hex where they were bytes, else text."""
    assert stored_difference("rejection", "accepted") is None
    assert stored_difference(SP800_38A_CT, "runner exited with status 3") is None
    assert stored_difference(SP800_38A_CT, None) is None and stored_difference(SP800_38A_CT, SP800_38A_CT) is None
    assert stored_difference("00ff", "") == difference(b"\x00\xff", b"")
    assert first_difference(bytes.fromhex(SP800_38A_CT), bytes.fromhex(CBC_CHAIN_CT)) == \
        "byte 16: expected 0x50, got 0x05"
    assert first_difference(SP800_38A_CT, CBC_CHAIN_CT) is None  # the gate's bytes, never stored text
