"""Shared fixtures: the repository's sites, and the `wsitec` binary the
test script built (for `.wsb` artifacts)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(ROOT.glob("examples/*/*.wsite"))
STDLIB_SITES = sorted(ROOT.glob("stdlib/sites/*.wsite"))
CART = ROOT / "stdlib" / "sites" / "cart.wsite"
SHOP = ROOT / "examples" / "ecommerce" / "trailhead.wsite"
# An extern marker, and the documented simulator that answers for it.
HELPDESK = ROOT / "tests" / "sites" / "helpdesk.wsite"
ECHO = ROOT / "examples" / "simulators" / "echo_writer.py"


def wsitec() -> Path:
    """The compiler binary: `$WSITEC`, else the workspace's debug or release build."""
    if os.environ.get("WSITEC"):
        return Path(os.environ["WSITEC"])
    for profile in ("debug", "release"):
        candidate = ROOT / "target" / profile / "wsitec"
        if candidate.exists():
            return candidate
    pytest.fail("no wsitec binary: run `cargo build -p wsitec` (scripts/test.sh does)")


@pytest.fixture(scope="session")
def cart_wsb(tmp_path_factory) -> Path:
    """The cart sample site built into a `.wsb` artifact."""
    out = tmp_path_factory.mktemp("wsb") / "cart.wsb"
    subprocess.run([str(wsitec()), "build", str(CART), "-o", str(out)], check=True, capture_output=True)
    return out
