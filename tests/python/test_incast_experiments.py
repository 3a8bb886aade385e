"""The DCTCP §4.2 incast experiments (Figs. 18-21, Table 2): interface, valid scenarios at
every scale, and each run end to end at a tiny ("smoke") scale into a temporary directory."""

from __future__ import annotations

import json
import math

import pytest

from conftest import columns
from dcsim.experiments import (
    dctcp_fig18,
    dctcp_fig19,
    dctcp_fig20,
    dctcp_fig21,
    dctcp_table2,
    incast,
)

MODULES = [dctcp_fig18, dctcp_fig19, dctcp_fig20, dctcp_fig21, dctcp_table2]
IDS = ["dctcp-fig18", "dctcp-fig19", "dctcp-fig20", "dctcp-fig21", "dctcp-table2"]


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_interface(module):
    assert module.ID in IDS
    assert module.TITLE.strip()
    assert module.DESCRIPTION.strip() and "\n" not in module.DESCRIPTION
    assert callable(module.run)
    assert module.__doc__ and "Assumption" in module.__doc__ and "Published" in module.__doc__
    assert {"quick", "full"} <= set(module.SCALES)


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_every_scenario_of_every_scale_is_valid(module):
    from dcsim import _core

    for scale in ("smoke", "quick", "full"):
        plan = module.scenarios(scale)
        assert plan
        for item in plan:
            sc = item[-1]
            _core.validate_json(json.dumps(sc))  # raises ValueError naming the field
            assert sc["sim"]["warmup_s"] < sc["sim"]["duration_s"]
            assert sc["queries"], "every incast experiment runs a query workload"
            assert sc["tcp"]["timer_tick_ms"] == 10.0
    with pytest.raises(ValueError, match="scale"):
        module.scenarios("huge")


def test_paper_setups():
    # Fig. 18: static 100-packet ports, four (protocol, RTO_min) curves, 1 MB / n per server.
    plan = dctcp_fig18.scenarios("full")
    assert {(p, r) for p, r, _, _ in plan} == set(dctcp_fig18.CONFIGS)
    assert sorted({n for _, _, n, _ in plan}) == list(range(1, 41))
    sc = next(sc for p, r, n, sc in plan if n == 40)
    assert sc["switch"]["buffer"] == {"kind": "per_port", "limit_packets": 100}
    assert sc["queries"][0]["response_bytes"] == 25_000 and sc["queries"][0]["rounds"] == 1000
    # Fig. 19: dynamic buffer, RTO_min 10 ms only.
    assert {r for _, r, _, _ in dctcp_fig19.scenarios("full")} == {10.0}
    # Fig. 20: 41 simultaneous workloads, each client asks the other 40 for 25 KB.
    _, sc = dctcp_fig20.scenarios("quick")[0]
    assert len(sc["queries"]) == 41
    assert all(len(q["servers"]) == 40 and q["client"] not in q["servers"] for q in sc["queries"])
    # Fig. 21: two long flows into host 0, 20 KB from host 3.
    _, sc = dctcp_fig21.scenarios("quick")[0]
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [(1, 0), (2, 0)]
    assert sc["queries"][0]["servers"] == [3] and sc["queries"][0]["response_bytes"] == 20_000
    # Table 2: 66 background flows among the 33 other hosts, each sends 2 and receives 2.
    bg = dctcp_table2.background_flows()
    assert len(bg) == 66
    hosts = set(range(11, 44))
    assert {f["src"] for f in bg} == hosts and {f["dst"] for f in bg} == hosts
    assert all(f["src"] != f["dst"] for f in bg)
    assert sorted(sum(f["dst"] == h for f in bg) for h in hosts) == [2] * 33


def test_query_stats_counts_unfinished_and_timeouts():
    res = {
        "queries": columns(
            [
                {"workload": 0, "qct_s": 0.010, "timeouts": 0},
                {"workload": 0, "qct_s": 0.020, "timeouts": 2},
                {"workload": 1, "qct_s": None, "timeouts": 1},
                {"workload": 1, "qct_s": float("nan"), "timeouts": 0},
            ]
        )
    }
    st = incast.query_stats(res)
    assert st["issued"] == 4 and st["completed"] == 2
    assert math.isclose(st["mean_ms"], 15.0) and st["timeout_fraction"] == 0.5
    # 90% CI of the mean of {10, 20} ms: s = 7.0711, half-width = 1.6449 · 7.0711 / √2 = 8.2245.
    assert math.isclose(st["mean_ci90_ms"], 8.2245, rel_tol=1e-4)
    assert math.isnan(incast.mean_ci90_halfwidth([5.0]))
    assert incast.query_stats(res, workloads=[1])["completed"] == 0
    assert incast.first_n_with_timeouts([10, 1, 5], [0.2, 0.0, 0.1]) == 5
    assert incast.first_n_with_timeouts([1, 2], [0.0, 0.0]) is None


@pytest.mark.parametrize("module", MODULES, ids=IDS)
def test_runs_at_smoke_scale(module, tmp_path):
    summary = module.run("smoke", tmp_path, jobs=2)
    assert summary["claims"]
    for cl in summary["claims"]:
        assert set(cl) == {"claim", "paper", "measured", "holds"}
        assert isinstance(cl["holds"], bool)
        assert cl["paper"] and cl["measured"]
    json.dumps(summary["metrics"])  # plain JSON
    files = summary["metrics"]["files"]
    assert any(f.endswith(".csv") for f in files)
    assert any(f.endswith(".png") for f in files) and any(f.endswith(".svg") for f in files)
    for f in files:
        assert (tmp_path / f).stat().st_size > 0, f
