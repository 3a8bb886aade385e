"""The paper experiments as declarations: the registry, every experiment's declaration (its
scenarios at every scale and on another testbed, its claims), the testbeds, and the runner."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import dcsim
from conftest import INTERNAL_LABELS
from dcsim import _core, experiments
from dcsim.experiments import OWN, TESTBEDS, Claim, Experiment, Metrics, runner
from dcsim.experiments.hosts import ENGINE_HOST
from dcsim.experiments.scenarios import SHARED_PRESETS, fan_in
from dcsim.scenario import resolved

EXPERIMENTS = list(experiments.EXPERIMENTS.values())
PACKAGE = Path(experiments.__file__).parent


def test_registry_lists_each_paper_in_its_order():
    papers = [e.paper for e in EXPERIMENTS]
    assert papers == sorted(papers, key=list(experiments.PAPERS).index), "experiments grouped by paper, in the papers' order"
    for e in EXPERIMENTS:
        assert e.testbed in TESTBEDS


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=lambda e: e.id)
def test_the_declaration_says_what_it_reproduces(experiment: Experiment):
    assert experiment.full_title == f"{experiment.reproduces}: {experiment.title}"
    assert experiment.reproduces.split()[0] == experiment_paper_short(experiment)
    assert experiment.description.strip() and "\n" not in experiment.description
    assert "Assumption" in experiment.notes, "the notes state the choices the paper leaves open"
    for text in (experiment.notes, experiment.title, experiment.description):
        assert not INTERNAL_LABELS.search(text), INTERNAL_LABELS.search(text)


def experiment_paper_short(e: Experiment) -> str:
    return experiments.PAPERS[e.paper].short


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=lambda e: e.id)
def test_every_scenario_of_every_scale_is_valid(experiment: Experiment):
    assert {"quick", "full"} <= set(experiment.scales)
    tb = experiments.testbed_for(experiment)
    for scale in experiment.scales:
        scenarios = experiment.scenarios(experiment.params(scale), tb)
        assert scenarios, f"{scale}: no runs"
        for sc in scenarios.values():
            _core.validate_json(json.dumps(sc))  # raises ValueError naming the field
            assert sc["sim"].get("warmup_s", 0.0) < sc["sim"]["duration_s"]
    with pytest.raises(ValueError, match="scale"):
        experiment.params("huge")


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=lambda e: e.id)
def test_every_experiment_runs_on_another_testbeds_hosts(experiment: Experiment):
    """The testbed is a parameter: on `linux_current` every host runs that stack (the
    experiment's own settings on top), on the experiment's own switches and links."""
    own, other = experiments.testbed_for(experiment), experiments.testbed_for(experiment, "linux_current")
    assert (other.name, other.buffers, other.link) == ("linux_current", own.buffers, own.link)
    p = experiment.params("quick")
    mine = experiment.scenarios(p, own)
    theirs = experiment.scenarios(p, other)
    assert list(mine) == list(theirs)
    for key, sc in theirs.items():
        assert sc["tcp"]["profile"] == "linux_current", key
        assert mine[key]["tcp"]["profile"] == own.tcp["profile"], key
        # A figure's "TCP" is the stack's own (CUBIC on Linux), never a NewReno left in code;
        # the hosts' hardware stays the experiment's.
        ccs = {sc["tcp"]["cc"], *(f.get("cc") for f in sc.get("flows") or [])}
        assert "newreno" not in ccs, key
        assert sc.get("host") == mine[key].get("host"), key
        _core.validate_json(json.dumps(sc))


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=lambda e: e.id)
def test_every_claim_has_an_id_a_kind_and_the_papers_words(experiment: Experiment):
    assert experiment.claims, "an experiment checks something"
    for claim in experiment.claims:
        assert experiment.claim_id(claim).startswith(f"{experiment.id}/")
        if claim.kind != "check":
            assert claim.quote and claim.section, claim.id
        for text in (claim.text, claim.paper, claim.quote):
            if isinstance(text, str):
                assert not INTERNAL_LABELS.search(text), f"{claim.id}: {text}"


def _imported_files(path: Path) -> list[Path]:
    """The package's own modules that the module at ``path`` imports (relative imports)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            target = base.joinpath(*node.module.split(".")) if node.module else base
            candidates = [target.with_suffix(".py")] + [target / f"{a.name}.py" for a in node.names]
            found += [c for c in candidates if c.is_file()]
    return found


def test_no_experiment_imports_another():
    """Experiments share runs and helpers through their paper's shared modules, never by
    importing each other."""
    declares = "EXPERIMENT = Experiment("
    modules = [p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE]
    assert sum(declares in p.read_text() for p in modules) == len(EXPERIMENTS)
    for path in (p for p in modules if p.name != "__init__.py"):  # a paper's list imports them all
        for imported in _imported_files(path):
            assert declares not in imported.read_text(), f"{path.relative_to(PACKAGE)} imports the experiment {imported.name}"


def test_experiments_read_results_through_one_api():
    """Results only through `dcsim.Results` (never the engine's raw dict), stars only through
    `dcsim.scenario.star`, and no time-weighted quantile of their own."""
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                assert node.attr != "raw", f"{path.relative_to(PACKAGE)}:{node.lineno} reads Results.raw"
            if isinstance(node, ast.FunctionDef):
                assert node.name != "star" and "quantile" not in node.name, f"{path.relative_to(PACKAGE)}: def {node.name}"


# --- testbeds ------------------------------------------------------------------------------


def test_paper_testbeds_give_every_value_a_source():
    for tb in TESTBEDS.values():
        assert tb.summary.strip() and "\n" not in tb.summary
        assert tb.sources, tb.name
        assert "tcp.cc" in tb.sources, f"{tb.name}: its TCP has no source"
        if not tb.stack_only:
            assert tb.buffers and {"delay_us", "framing_bytes"} <= set(tb.link), tb.name
            for field in (*(f"tcp.{f}" for f in tb.tcp), *(f"host.{f}" for f in tb.host)):
                assert field in tb.sources, f"{tb.name}: {field} has no source"
            assert set(tb.host) == set(ENGINE_HOST), f"{tb.name}: the whole host model, each value with its source"
        # The stack is one the engine knows, with fields it accepts.
        sc = {"topology": {"kind": "star", "hosts": 2}, "tcp": tb.tcp_for(None), "host": dict(tb.host)}
        _core.validate_json(json.dumps(sc))


def test_the_engines_host_model_is_the_engines():
    assert resolved({"topology": {"kind": "star", "hosts": 2}})["host"] == ENGINE_HOST


def test_a_stack_runs_on_the_experiments_own_hosts_switches_and_links():
    dctcp = experiments.EXPERIMENTS["dctcp-fig13"]
    own = TESTBEDS["dctcp_testbed"]
    assert experiments.testbed_for(dctcp) is own is experiments.testbed_for(dctcp, OWN)
    stack = experiments.testbed_for(dctcp, "linux_current")
    assert (stack.tcp, stack.tcp_cc, stack.stack_only) == ({"profile": "linux_current"}, "cubic", False)
    assert (stack.host, stack.buffers, stack.link) == (own.host, own.buffers, own.link)
    assert stack.sources["tcp.cc"] != own.sources["tcp.cc"] and stack.sources["host.tx_jitter_us"] == own.sources["host.tx_jitter_us"]
    # The stack's TCP is what a figure's "TCP" runs.
    tcp = dctcp.scenarios(dctcp.params("quick"), stack)[("TCP", 2, None)]
    assert tcp["tcp"]["cc"] == "cubic" and tcp["host"] == own.host
    # A whole testbed brings its own network.
    assert experiments.testbed_for(dctcp, "judd_testbed") is TESTBEDS["judd_testbed"]


def test_the_shared_memory_presets_are_the_engines():
    """What `port_share_bytes` takes for each preset is what a run reports of its memory."""
    for name, (total, alpha) in SHARED_PRESETS.items():
        buffer = {"kind": "preset", "name": name}
        sc = {"sim": {"duration_s": 0.001}, "topology": {"kind": "star", "hosts": 2}, "switch": {"buffer": buffer}}
        switch = dcsim.run(sc).switches.iloc[0]
        assert (switch.shared_bytes, switch.alpha) == (total, pytest.approx(alpha, rel=1e-12)), name


def test_a_testbed_builds_hosts_buffers_and_links():
    tb = experiments.Testbed(
        name="t",
        summary="t",
        tcp={"profile": "ns2", "rto_min_ms": 5.0},
        tcp_by_cc={"dctcp": {"sack": False}},
        host={"nic_queue_packets": 50},
        buffers={1.0: {"kind": "preset", "name": "triumph"}, 10.0: {"kind": "preset", "name": "scorpion"}},
        link={"delay_us": 5.0, "framing_bytes": 0},
    )
    assert tb.tcp_for("dctcp", rto_min_ms=1.0) == {"profile": "ns2", "rto_min_ms": 1.0, "cc": "dctcp", "sack": False}
    assert tb.tcp_for("cubic") == {"profile": "ns2", "rto_min_ms": 5.0, "cc": "cubic"}
    assert tb.tcp_for(None) == {"profile": "ns2", "rto_min_ms": 5.0, "cc": "newreno"}  # the stack's own TCP
    # A port gets the buffer of the slowest rate at or above its own; beyond them all, the fastest's.
    assert [tb.buffer(r)["name"] for r in (0.1, 1.0, 2.5, 10.0, 40.0)] == ["triumph", "triumph", "scorpion", "scorpion", "scorpion"]
    assert tb.link_at(10.0, delay_us=1.0) == {"rate_gbps": 10.0, "delay_us": 1.0, "framing_bytes": 0}
    sc = fan_in("x", tb, senders=2, cc="dctcp", aqm={"kind": "drop_tail"}, rate_gbps=10.0, duration_s=0.1, warmup_s=0.0)
    assert sc["host"] == {"nic_queue_packets": 50}
    assert sc["switch"]["buffer"] == {"kind": "preset", "name": "scorpion"}
    assert sc["topology"]["link"] == {"rate_gbps": 10.0, "delay_us": 5.0, "framing_bytes": 0}
    assert [f["src"] for f in sc["flows"]] == [1, 2]


# --- claims and the runner -----------------------------------------------------------------


def test_a_claim_is_refused_without_a_proper_id_or_the_papers_words():
    def check(m):
        return True, ""

    with pytest.raises(ValueError, match="lowercase"):
        Claim(id="Bad Id", kind="paper", text="t", paper="p", quote="q", section="§1", check=check)
    with pytest.raises(ValueError, match="kind"):
        Claim(id="x", kind="opinion", text="t", paper="p", check=check)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="words"):
        Claim(id="x", kind="paper", text="t", paper="p", check=check)
    Claim(id="every-query-completes", kind="check", text="t", paper="p", check=check)


def test_a_claim_is_judged_on_the_metrics():
    claim = Claim(
        id="small-queue",
        kind="paper",
        text=lambda m: f"queue ≤ {m['bound']}",
        paper="≈ 20 packets",
        quote="stable around 20 packets",
        section="§4.1",
        check=lambda m: (m["queue"] <= m["bound"], f"{m['queue']} packets"),
    )
    row = claim.judge(Metrics(values={"queue": 22, "bound": 30}))
    assert row == {
        "claim": "queue ≤ 30",
        "paper": "≈ 20 packets",
        "measured": "22 packets",
        "holds": True,
        "kind": "paper",
        "quote": "stable around 20 packets",
        "section": "§4.1",
    }
    assert type(row["holds"]) is bool


def test_the_runner_reruns_what_is_not_yet_evidence(tmp_path: Path):
    """A run whose rule asks for more is replaced, at most `reruns` times, and the analysis
    sees the last scenario and its results."""
    seen: list[float] = []

    def scenarios(p: dict, tb: experiments.Testbed) -> dict:
        sc = fan_in("short", tb, senders=1, cc="dctcp", aqm={"kind": "drop_tail"}, rate_gbps=1.0, duration_s=0.01, warmup_s=0.0)
        return {"only": sc}

    def longer(sc: dict, res) -> dict | None:
        seen.append(res.duration_s)
        return {**sc, "sim": dict(sc["sim"], duration_s=sc["sim"]["duration_s"] * 2)} if res.duration_s < 0.1 else None

    def analyze(runs) -> Metrics:
        return Metrics(values={"duration_s": runs["only"].duration_s, "planned": runs.scenario("only")["sim"]["duration_s"]})

    exp = Experiment(
        id="dctcp-test",
        paper="dctcp",
        figure="Fig. 0",
        title="t",
        description="t",
        testbed="dctcp_testbed",
        scales={"quick": {}},
        scenarios=scenarios,
        analyze=analyze,
        claims=(Claim(id="ran", kind="check", text="t", paper="p", check=lambda m: (True, "")),),
        rerun=longer,
        reruns=2,
    )
    out = runner.run(exp, "quick", tmp_path, 1, experiments.testbed_for(exp))
    assert seen == pytest.approx([0.01, 0.02])  # asked after the first run and the first rerun only
    assert out["metrics"] == {"duration_s": pytest.approx(0.04), "planned": pytest.approx(0.04), "files": []}
    assert out["claims"][0]["id"] == "dctcp-test/ran"
