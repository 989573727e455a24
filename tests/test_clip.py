"""Reasons are shortened at a word boundary, never inside a word or a number, and say where
the whole text is (console.clip); over every prefix width of real reasons."""
import pytest

from cipherbench.console import clip

REASONS = [
    "not timed (unsupported: chacha20-poly1305 is one call per message in this library: --workload message)",
    "AF_ALG is not available in this kernel (Linux 6.18.44-fc-v782): socket(AF_ALG, SOCK_SEQPACKET, 0) failed "
    "with errno 97 (Address family not supported by protocol)",
    "timed at 16 B, 256 B, 1 KiB, 8 KiB",
]


@pytest.mark.parametrize("text", REASONS)
def test_clip_cuts_only_between_words(text):
    words = text.split(" ")
    for most in range(12, len(text) + 5):
        cut = clip(text, most, "--long")
        assert len(cut) <= most or cut == text
        if cut == text:
            continue
        assert cut.endswith("… (--long)")
        if cut == "… (--long)":  # not one whole word fits
            continue
        kept = cut[: -len(" … (--long)")]
        assert any(" ".join(words[:k]).rstrip(" ,;:(") == kept for k in range(1, len(words))), (most, cut)
