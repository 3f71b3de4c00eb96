"""The oracle batches, run once per session for every test that compares with real torch."""

from __future__ import annotations

import pytest
from oracle_batches import run_both, selected_scripts


@pytest.fixture(scope="session")
def oracle_results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """(torch, detachviz) results of the scripts the session's tests ask for."""
    pytest.importorskip("torch")
    return run_both(selected_scripts(request.session), tmp_path_factory.mktemp("oracle"))
