"""Library benchmark programs built from Debian sources (build.sh) and how fidelity reads them."""
