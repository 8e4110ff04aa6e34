"""``gin3 bench --only search``: searched decisions per CPU-second."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from gin3_env.benchmarks import search as bench_search


def test_the_search_bench_counts_searched_decisions_and_their_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_search, "CONFIGS", ("search:samples=4,min_samples=4",))
    report = bench_search.run(quick=True)
    (row,) = report["configs"]
    assert row["searched_decisions"] > 0 and row["cpu_seconds"] > 0
    assert row["decisions_per_cpu_s"] == pytest.approx(row["searched_decisions"] / row["cpu_seconds"])
    assert "per CPU second" in bench_search.format_report(report)
