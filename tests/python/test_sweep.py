"""Sweeps: plans, expansion, metrics, failures, the Dask executor, and resuming."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

import dcsim
from conftest import SMALL
from dcsim.cli import main
from dcsim.results import occupancy, occupancy_quantile
from dcsim.scenario import set_path
from dcsim.sweep import expand, load_plan, metric, plot, plot_stems, preflight
from dcsim.workloads import traffic

PLAN = {
    "name": "k",
    "base": SMALL,
    "repetitions": 2,
    "metrics": ["ports[s0->h0].mean_packets", "flows.goodput_bps.mean", "run.drops"],
    "grid": {"switch.aqm.k_packets": [5, 20], "tcp.cc": ["dctcp", "tcp_ecn"]},
    "zip": {"sim.duration_s": [0.01, 0.02], "sim.warmup_s": [0.0, 0.005]},
}


def test_a_plan_expands_to_grid_times_zip_times_repetitions() -> None:
    runs = expand(load_plan(PLAN))
    assert len(runs) == 2 * 2 * 2 * 2
    first = runs[0]
    assert first.params == {
        "switch.aqm.k_packets": 5,
        "tcp.cc": "dctcp",
        "sim.duration_s": 0.01,
        "sim.warmup_s": 0.0,
    }
    assert first.scenario["switch"]["aqm"] == {"kind": "threshold", "k_packets": 5}
    assert (first.scenario["sim"]["duration_s"], first.scenario["sim"]["warmup_s"]) == (0.01, 0.0)
    # Zipped values move together; repetitions get distinct seeds, the same at every point.
    assert {(r.params["sim.duration_s"], r.params["sim.warmup_s"]) for r in runs} == {
        (0.01, 0.0),
        (0.02, 0.005),
    }
    assert {(r.repetition, r.seed) for r in runs} == {(0, 1), (1, 2)}
    assert len({r.scenario["name"] for r in runs}) == len(runs)
    assert SMALL["switch"]["aqm"]["k_packets"] == 20, "the base scenario is not modified"


def test_set_path_reaches_into_lists() -> None:
    scenario = {"flows": [{"src": 1, "dst": 0}, {"src": 2, "dst": 0}]}
    set_path(scenario, "flows[1].cc", "dctcp")
    set_path(scenario, "tcp.rto_min_ms", 10.0)
    assert scenario["flows"][1] == {"src": 2, "dst": 0, "cc": "dctcp"}
    assert scenario["tcp"] == {"rto_min_ms": 10.0}


def test_metrics_read_the_results_tables() -> None:
    r = dcsim.run(SMALL)
    port = r.ports.set_index("name").loc["s0->h0"]
    assert metric(r, "ports[s0->h0].mean_packets") == port["mean_packets"]
    assert metric(r, "flows.goodput_bps.mean") == pytest.approx(r.flows.goodput_bps.mean())
    assert metric(r, "flows.goodput_bps.sum") == pytest.approx(r.flows.goodput_bps.sum())
    assert metric(r, "flows[1].goodput_bps") == r.flows.goodput_bps.iloc[1]
    assert metric(r, "flows.goodput_bps.p50") == pytest.approx(r.flows.goodput_bps.median())
    assert metric(r, "run.events") == r.raw["events"]
    with pytest.raises(KeyError):
        metric(r, "ports[s9->h9].mean_packets")
    with pytest.raises(KeyError):
        metric(r, "flows.no_such_column.mean")


BAD_PLANS = {
    "unknown-field": ({**PLAN, "repetition": 2}, "repetition"),
    "no-base": ({k: v for k, v in PLAN.items() if k != "base"}, "base"),
    "bad-base": ({**PLAN, "base": {**SMALL, "tcp": {"cc": "bbr"}}}, "tcp.cc"),
    "no-metrics": ({**PLAN, "metrics": []}, "metrics"),
    "bad-metric": ({**PLAN, "metrics": ["ports.mean_packets"]}, "metrics[0]"),
    "bad-aggregate": ({**PLAN, "metrics": ["flows.goodput_bps.average"]}, "metrics[0]"),
    "zip-lengths": ({**PLAN, "zip": {"sim.duration_s": [0.1], "sim.warmup_s": [0, 0.1]}}, "zip"),
    "empty-axis": ({**PLAN, "grid": {"tcp.cc": []}}, "grid.tcp.cc"),
    "bad-path": ({**PLAN, "grid": {"tcp..cc": [1]}}, "grid.tcp..cc"),
    "both": ({**PLAN, "zip": {"tcp.cc": ["dctcp", "tcp_ecn"]}}, "zip.tcp.cc"),
    "repetitions": ({**PLAN, "repetitions": 0}, "repetitions"),
    # Caught before running: every run would fail.
    "unknown-axis": ({**PLAN, "grid": {"tcp.ccc": ["dctcp"]}}, "tcp.ccc"),
    "every-point-invalid": ({**PLAN, "zip": {"sim.duration_s": [0.01], "sim.warmup_s": [0.05]}}, "sim.warmup_s"),
    "no-such-column": ({**PLAN, "metrics": ["ports[s0->h0].markz"]}, "metrics[0]"),
    "no-such-port": ({**PLAN, "metrics": ["ports[s0->h9].marks"]}, "metrics[0]"),
    # A link-rate axis leaves the port names as they are: still caught.
    "no-such-port-rate-axis": (
        {**PLAN, "zip": {"topology.link.rate_gbps": [1.0, 10.0]}, "metrics": ["ports[s0->h9].marks"]},
        "metrics[0]",
    ),
    # The port names of every point's own network are checked, whatever the axis.
    "port-missing-in-one-point": (
        {**PLAN, "grid": {"topology.hosts": [3, 5]}, "metrics": ["ports[s0->h4].marks"]},
        "metrics[0]",
    ),
    "no-such-flow": ({**PLAN, "metrics": ["flows[5].goodput_bps"]}, "metrics[0]"),
    "no-such-field": ({**PLAN, "metrics": ["run.dorps"]}, "metrics[0]"),
}


@pytest.mark.parametrize("name", BAD_PLANS)
def test_a_bad_plan_is_named_in_one_line(name: str) -> None:
    plan, field = BAD_PLANS[name]
    with pytest.raises(dcsim.ScenarioError) as e:
        p = load_plan(plan)
        preflight(p, expand(p))
    assert field in str(e.value)


def write_plan(path: Path, plan: dict) -> Path:
    """A plan file with its base scenario beside it."""
    import tomli_w

    base = path.parent / "base.toml"
    base.write_text(tomli_w.dumps(plan["base"]))
    path.write_text(tomli_w.dumps({**plan, "base": "base.toml"}))
    return path


def test_cli_sweep_writes_one_tidy_table_and_a_plot_per_metric(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", PLAN)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["sweep", str(plan), "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 16 and (table["error"] == "").all()
    assert list(table.columns[:7]) == [
        "run",
        "switch.aqm.k_packets",
        "tcp.cc",
        "sim.duration_s",
        "sim.warmup_s",
        "repetition",
        "seed",
    ]
    csv = pd.read_csv(out / "results.csv", keep_default_na=False)
    assert csv["run"].tolist() == table["run"].tolist()
    for m in PLAN["metrics"]:
        assert csv[m].astype(float).tolist() == pytest.approx(table[m].tolist())
    info = json.loads((out / "sweep.json").read_text())
    assert (info["runs"], info["simulated"], info["from_cache"], info["failed"]) == (16, 16, 0, 0)
    # The closing overview: one row per parameter point (8), each metric's mean there (± the
    # 95% interval's half width over the 2 seeds), by its full name.
    assert "16 of 16 runs succeeded" in result.stdout
    for m in PLAN["metrics"]:
        assert m in result.stdout
    rows = [line for line in result.stdout.splitlines() if "2/2" in line]
    assert len(rows) == 8
    cells = [c.strip() for c in rows[0].strip("│ ").split("│")]
    first = table[(table["switch.aqm.k_packets"] == 5) & (table["tcp.cc"] == "dctcp") & (table["sim.duration_s"] == 0.01)]
    assert cells[:5] == ["5", "dctcp", "0.01", "0.0", "2/2"]
    assert cells[5].startswith(f"{first['ports[s0->h0].mean_packets'].mean():.4g} ± ")
    for f in info["files"]:
        assert (out / f).stat().st_size > 0
    # A plot per metric, named after it.
    stems = ["ports_s0-to-h0.mean_packets", "flows.goodput_bps.mean", "run.drops"]
    assert sorted(f for f in info["files"] if f.endswith(".png")) == sorted(f"{stem}.png" for stem in stems)
    # Again: every row comes from the cache.
    result = CliRunner().invoke(main, ["sweep", str(plan), "--out", str(out)])
    assert json.loads((out / "sweep.json").read_text())["from_cache"] == 16
    again = pd.read_parquet(out / "results.parquet")
    cols = [c for c in table.columns if c != "wall_seconds"]
    assert again[cols].equals(table[cols])


def test_a_failing_run_is_recorded_and_the_others_go_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the CLI's default output directory is under the cwd
    plan = {**PLAN, "grid": {"tcp.cc": ["dctcp", "bbr"]}, "zip": {}, "repetitions": 1}
    table = dcsim.sweep(plan, out=tmp_path, jobs=2, progress=False)
    ok, failed = table[table["tcp.cc"] == "dctcp"], table[table["tcp.cc"] == "bbr"]
    assert (ok["error"] == "").all() and ok["run.drops"].notna().all()
    assert "tcp.cc" in failed["error"].iloc[0] and "bbr" in failed["error"].iloc[0]
    assert math.isnan(failed["run.drops"].iloc[0])
    result = CliRunner().invoke(main, ["sweep", str(write_plan(tmp_path / "p.toml", plan))])
    assert result.exit_code == 1 and "failed" in result.stderr
    assert (tmp_path / "dcsim-sweeps" / "k" / "results.parquet").is_file()


def test_dask_local_cluster_gives_the_same_table_as_local_processes(tmp_path: Path) -> None:
    from distributed import LocalCluster

    local = dcsim.sweep(PLAN, jobs=2, progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        on_dask = dcsim.sweep(PLAN, scheduler=cluster.scheduler_address, progress=False)
    cols = [c for c in local.columns if c != "wall_seconds"]
    assert on_dask[cols].equals(local[cols])


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:9", "notaurl", "tcp://127.0.0.1"])
@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_an_unusable_scheduler_is_a_user_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str, command: str) -> None:
    from dcsim import executor

    monkeypatch.setattr(executor, "DASK_CONNECT_TIMEOUT_S", 1)
    target = str(write_plan(tmp_path / "plan.toml", PLAN)) if command == "sweep" else "dctcp-fig1"
    out = tmp_path / "o"
    result = CliRunner().invoke(main, [command, target, "--out", str(out), "--scheduler", address])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: cannot reach the Dask scheduler at {address}")
    assert not out.exists()


def test_a_sweep_with_a_bad_plan_writes_nothing(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", {**PLAN, "metrics": ["run.dorps"]})
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["sweep", str(plan), "--out", str(out)])
    assert result.exit_code == 2 and "metrics[0]" in result.stderr and "dorps" in result.stderr
    assert not out.exists()


def test_a_killed_sweep_resumes_without_rerunning_finished_runs(tmp_path: Path) -> None:
    # 24 runs of about 0.1 s each (5 s simulated) on one process; kill -9 once at least 6
    # rows are cached, well before the last.
    plan = {
        **PLAN,
        "base": {**SMALL, "sim": {"duration_s": 5.0}},
        "grid": {"switch.aqm.k_packets": list(range(5, 29))},
        "zip": {},
        "repetitions": 1,
    }
    path = write_plan(tmp_path / "plan.toml", plan)
    out = tmp_path / "out"
    args = [sys.executable, "-c", "from dcsim.cli import main; main()", "sweep", str(path)]
    args += ["--out", str(out), "--jobs", "1", "--quiet"]
    proc = subprocess.Popen(args, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(list(out.glob(".cache/*/*.json"))) < 6 and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    cached = len(list(out.glob(".cache/*/*.json")))
    assert 6 <= cached < 24, "the sweep must be killed halfway"
    assert not (out / "sweep.json").exists()

    result = CliRunner().invoke(main, ["sweep", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    info = json.loads((out / "sweep.json").read_text())
    assert (info["from_cache"], info["simulated"]) == (cached, 24 - cached)
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 24 and (table["error"] == "").all()


def test_reproduce_runs_its_simulations_on_a_dask_scheduler(tmp_path: Path) -> None:
    from distributed import LocalCluster

    local, remote = tmp_path / "local", tmp_path / "dask"
    assert CliRunner().invoke(main, ["reproduce", "dctcp-fig1", "--out", str(local)]).exit_code == 0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        args = ["reproduce", "dctcp-fig1", "--out", str(remote)]
        result = CliRunner().invoke(main, [*args, "--scheduler", cluster.scheduler_address])
    assert result.exit_code == 0, result.output
    a, b = (json.loads((d / "dctcp-fig1" / "summary.json").read_text()) for d in (local, remote))
    assert a["claims"] == b["claims"] and a["metrics"] == b["metrics"]
    assert b["simulations"] == {"run": 2, "from_cache": 0}


def test_a_seed_axis_sets_the_seed_of_every_run() -> None:
    plan = {**PLAN, "grid": {"sim.seed": [7, 9]}, "zip": {}, "repetitions": 2}
    runs = expand(load_plan(plan))
    assert [(r.params["sim.seed"], r.repetition, r.seed) for r in runs] == [(7, 0, 7), (7, 1, 8), (9, 0, 9), (9, 1, 10)]
    assert [r.scenario["sim"]["seed"] for r in runs] == [7, 8, 9, 10]
    with pytest.raises(dcsim.ScenarioError, match=r"grid\.sim\.seed"):
        expand(load_plan({**plan, "grid": {"sim.seed": [1.5]}}))


def test_a_growing_plan_reuses_every_finished_run(tmp_path: Path) -> None:
    # More repetitions and a new point at the front: only the new runs are simulated.
    small = {**PLAN, "grid": {"switch.aqm.k_packets": [10, 20]}, "zip": {}, "repetitions": 2}
    dcsim.sweep(small, out=tmp_path, jobs=1, progress=False)
    grown = {**small, "grid": {"switch.aqm.k_packets": [5, 10, 20]}, "repetitions": 3}
    table = dcsim.sweep(grown, out=tmp_path, jobs=1, progress=False)
    info = json.loads((tmp_path / "sweep.json").read_text())
    assert (info["runs"], info["from_cache"], info["simulated"]) == (9, 4, 5)
    first = dcsim.sweep(small, jobs=1, progress=False)
    cols = ["switch.aqm.k_packets", "repetition", "seed", *PLAN["metrics"]]
    again = table[table["switch.aqm.k_packets"] != 5]
    again = again[again["repetition"] < 2].reset_index(drop=True)
    assert again[cols].equals(first[cols])


def test_list_valued_and_mixed_axes_become_table_columns(tmp_path: Path) -> None:
    # Sweeping the flows themselves (2 or 3 senders), and an axis of numbers and text.
    two = SMALL["flows"]
    three = [*two, {"src": 3, "dst": 0}]
    plan = {
        **PLAN,
        "base": {**SMALL, "topology": {"kind": "star", "hosts": 4}},
        "metrics": ["flows.goodput_bps.count"],
        "grid": {"flows": [two, three], "tcp.rto_min_ms": [10, "200"]},
        "zip": {},
        "repetitions": 1,
    }
    table = dcsim.sweep(plan, out=tmp_path, jobs=1, progress=False)
    assert table["flows"].tolist() == [json.dumps(two, sort_keys=True)] * 2 + [json.dumps(three, sort_keys=True)] * 2
    assert table["tcp.rto_min_ms"].tolist() == ["10", "200"] * 2
    ok = table[table["error"] == ""]
    assert ok["flows.goodput_bps.count"].tolist() == [2.0, 3.0]
    assert "tcp.rto_min_ms" in table[table["error"] != ""]["error"].iloc[0]
    stored = pd.read_parquet(tmp_path / "results.parquet")
    assert stored["flows"].tolist() == table["flows"].tolist()
    assert (tmp_path / "sweep.json").is_file() and (tmp_path / "flows.goodput_bps.count.png").is_file()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"jobs": 0}, "jobs must be a whole number"),
        ({"jobs": "2"}, "jobs must be a whole number"),
        ({"jobs": 2, "scheduler": "tcp://127.0.0.1:9"}, "exclude each other"),
        ({"scheduler": 8786}, "scheduler must be an address"),
        ({"out": "FILE"}, "is not a directory"),
    ],
)
def test_bad_python_arguments_fail_before_anything_runs(tmp_path: Path, kwargs: dict, message: str) -> None:
    if kwargs.get("out") == "FILE":
        kwargs = {"out": tmp_path / "a-file"}
        kwargs["out"].write_text("")
    with pytest.raises((ValueError, TypeError), match=message):
        dcsim.sweep(PLAN, progress=False, **kwargs)
    assert not (tmp_path / ".cache").exists()


def test_a_sweep_started_before_any_dask_worker_joins_uses_them_as_they_come() -> None:
    import threading

    from distributed import Client, LocalCluster

    from dcsim.executor import IN_FLIGHT_PER_WORKER, _DaskWindow

    with LocalCluster(n_workers=0, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster.scheduler_address) as client:
            window = _DaskWindow(client)
            assert window.size() == IN_FLIGHT_PER_WORKER, "no worker yet: still two tasks"
            cluster.scale(1)
            client.wait_for_workers(1, timeout=60)
            window.checked = -math.inf  # as if a second had passed
            assert window.size() == IN_FLIGHT_PER_WORKER
        cluster.scale(0)
        # Workers join while the sweep is already waiting for them (as on a batch cluster).
        threading.Timer(0.5, cluster.scale, args=(2,)).start()
        table = dcsim.sweep(PLAN, scheduler=cluster.scheduler_address, progress=False)
        assert len(cluster.scheduler_info["workers"]) == 2
    assert len(table) == 16 and (table["error"] == "").all()


def test_numpy_numbers_work_as_parameters_and_scenario_values() -> None:
    import numpy as np

    plan = {**PLAN, "grid": {"switch.aqm.k_packets": list(np.arange(5, 25, 10))}, "zip": {}, "repetitions": 1}
    table = dcsim.sweep(plan, jobs=1, progress=False)
    assert (table["error"] == "").all() and table["switch.aqm.k_packets"].tolist() == [5, 15]
    scenario = {**SMALL, "switch": {"aqm": {"kind": "threshold", "k_packets": np.int64(20)}}}
    assert dcsim.run(scenario).flows.equals(dcsim.run(SMALL).flows)


def test_every_mistake_of_a_plan_is_reported_at_once(tmp_path: Path) -> None:
    plan = {
        **PLAN,
        "colour": "blue",
        "repetitions": 0,
        "metrics": ["nosuch.metric", "run.drops"],
        "grid": {"tcp.cc": []},
    }
    result = CliRunner().invoke(main, ["sweep", str(write_plan(tmp_path / "plan.toml", plan))])
    assert result.exit_code == 2
    # One line each, under one `error:` line.
    head, *lines = result.stderr.splitlines()
    assert head.startswith("error: ") and head.endswith("4 problems:")
    assert sorted(line.split(":")[0].strip() for line in lines) == sorted(["colour", "repetitions", "metrics[0]", "grid.tcp.cc"])


def test_every_metric_the_runs_cannot_have_is_reported_at_once(tmp_path: Path) -> None:
    plan = {**PLAN, "metrics": ["run.dorps", "run.drops", "ports[s0->h9].mean_packets"]}
    with pytest.raises(dcsim.ScenarioError) as e:
        p = load_plan(plan)
        preflight(p, expand(p))
    assert "2 problems" in str(e.value) and "metrics[0]" in str(e.value) and "metrics[2]" in str(e.value)


def test_dask_and_scipy_are_not_needed_until_a_scheduler_is_asked_for() -> None:
    # A lean install (`pip install .`) imports every module without them.
    code = (
        "import sys, dcsim, dcsim.cli, dcsim.sweep, dcsim.executor, dcsim.reproduce, dcsim.experiments\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(loaded & {'dask', 'distributed', 'scipy'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_import_dcsim_leaves_pandas_and_plotting_until_a_table_or_plot_is_asked_for() -> None:
    # `import dcsim` once cost 0.3 s, pandas two thirds of it; it loads neither pandas nor NumPy now.
    # The command line and the experiments' registry (`dcsim list`) are as light.
    code = (
        "import sys, dcsim, dcsim.cli, dcsim.experiments\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(loaded & {'pandas', 'pyarrow', 'matplotlib', 'dask', 'distributed', 'scipy'}))\n"
        "dcsim.Results\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_import_dcsim_loads_numpy_on_first_use_and_keeps_its_functions_over_their_modules() -> None:
    # `import dcsim` loads nothing of NumPy's, so that the command sets how NumPy starts; the
    # functions `dcsim.run` and `dcsim.sweep` stay functions when their modules are imported
    # by name (Python binds a submodule on its package).
    code = (
        "import sys, dcsim\n"
        "print('numpy' in sys.modules)\n"
        "from dcsim.run import run_loaded\n"
        "import dcsim.sweep\n"
        "print(dcsim.run.__module__, dcsim.sweep.__module__, type(dcsim.Results).__name__)\n"
        "print(set(dcsim.__all__) <= set(dir(dcsim)), all(getattr(dcsim, n) for n in dcsim.__all__))\n"
        "print(hasattr(dcsim, 'no_such_name'), sorted(dcsim.__all__) == sorted([*dcsim._HOMES, '__version__']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "dcsim.run", "dcsim.sweep", "type", "True", "True", "False", "True"]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_the_command_starts_numpy_with_one_blas_thread_unless_the_user_chose() -> None:
    # OpenBLAS's idle threads spun for 0.1 CPU-s of a 0.36 CPU-s `dcsim run` on 2 cores.
    code = "import os, dcsim.cli, numpy\nprint(len(os.listdir('/proc/self/task')), os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.split() == ["1", "1"]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env | {"OPENBLAS_NUM_THREADS": "2"})
    assert done.stdout.split() == ["2", "2"]
    # A count set for OpenMP (which OpenBLAS also reads) stands too.
    omp = code.replace("os.environ['OPENBLAS_NUM_THREADS']", "os.environ.get('OPENBLAS_NUM_THREADS')")
    done = subprocess.run([sys.executable, "-c", omp], capture_output=True, text=True, check=True, env=env | {"OMP_NUM_THREADS": "2"})
    assert done.stdout.split() == ["2", "None"]


def test_dcsim_run_writes_its_tables_without_pandas(small_toml: Path, tmp_path: Path) -> None:
    # Importing pandas would take longer than the engine does on small runs (0.22 s of a
    # 0.48 s `dcsim run` of 20 flows for 10 s, whose engine takes 0.14 s).
    code = (
        "import sys\n"
        "from dcsim.cli import main\n"
        f"try: main(['run', {str(small_toml)!r}, '--out', {str(tmp_path / 'out')!r}])\n"
        "except SystemExit as e: assert not e.code, e.code\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'pyarrow', 'matplotlib'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "out" / "flows.csv").read_text().startswith("id,workload,generator,class,size_bytes,")


def test_a_scheduler_without_dask_installed_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` raises ImportError
    plan = write_plan(tmp_path / "plan.toml", PLAN)
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["sweep", str(plan), "--out", str(out), "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert "Dask is not installed" in line and "dcsim[dask]" in line
    assert not out.exists()


def test_plot_names_are_the_metrics_in_plain_characters() -> None:
    metrics = ["ports[s0->h0].mean_packets", "fct[100kB-1MB].p99.9_slowdown", "run.drops", "ports[s0->h0].mean_packets"]
    assert plot_stems(metrics) == [
        "ports_s0-to-h0.mean_packets",
        "fct_100kB-1MB.p99.9_slowdown",
        "run.drops",
        "ports_s0-to-h0.mean_packets-3",
    ]


def test_queue_and_slowdown_percentiles_are_metrics() -> None:
    scenario = {
        **SMALL,
        "sim": {"duration_s": 0.05},
        "traffic": [traffic({"kind": "fixed", "bytes": 200_000}, load=0.3, sources=[1, 2], destinations=[0])],
    }
    results = dcsim.run(scenario)
    histogram = results.occupancy("s0->h0")
    assert metric(results, "ports[s0->h0].queue_p99") == occupancy_quantile(histogram, 0.99)
    assert metric(results, "ports[s0->h0].queue_p50_packets") == occupancy_quantile(histogram, 0.5)
    per_port = [occupancy_quantile(h, 0.9) for h in occupancy(results.raw)]
    assert metric(results, "ports.queue_p90.max") == max(per_port)
    fct = results.fct_stats().set_index("bucket")
    row = fct.loc["100 kB–1 MB"]
    assert metric(results, "fct[100kB-1MB].p99_slowdown") == row["p99_slowdown"]
    assert metric(results, "fct[100 kB–1 MB].unfinished") == row["unfinished"]
    assert metric(results, "fct[2].p99.9_fct_s") == row["p99.9_fct_s"]
    # A bucket without flows in this run: NaN, not an error.
    assert math.isnan(metric(results, "fct[0B-10kB].mean_slowdown"))
    with pytest.raises(KeyError, match="no flow-size bucket"):
        metric(results, "fct[1MB-2MB].mean_slowdown")
    with pytest.raises(KeyError, match="fct has no column"):
        metric(results, "fct[2].p42_slowdown")


def test_a_plan_checks_its_percentile_metrics_and_ranges(tmp_path: Path) -> None:
    plan = {
        **PLAN,
        "metrics": ["ports[s0->h0].queue_p99", "fct[100kB-1MB].p99_slowdown", "fct[9].mean_slowdown", "fct[2].p42_slowdown"],
        "ranges": {"ports[s0->h0].queue_p99": [0, 100], "fct[100kB-1MB].p99_slowdown": [2, 1], "run.nothing": [0, 1]},
    }
    with pytest.raises(dcsim.ScenarioError) as e:
        load_plan(plan)
    assert [p.field for p in e.value.parts] == ["ranges.fct[100kB-1MB].p99_slowdown", "ranges.run.nothing"]
    del plan["ranges"]
    p = load_plan(plan)
    with pytest.raises(dcsim.ScenarioError) as e:
        preflight(p, expand(p))
    assert [x.field for x in e.value.parts] == ["metrics[2]", "metrics[3]"]


def test_plots_start_at_zero_or_at_the_stated_range(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt

    plan = load_plan({**PLAN, "repetitions": 1, "ranges": {"run.drops": [-1, 5]}})
    table = dcsim.sweep(plan, jobs=1, progress=False)
    limits = {}
    real_close = plt.close

    def keep(fig: Any) -> None:
        limits[fig.axes[0].get_ylabel()] = fig.axes[0].get_ylim()
        real_close(fig)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plt, "close", keep)
        plot(plan, table, tmp_path)
    assert limits["flows.goodput_bps.mean"][0] == 0 and limits["ports[s0->h0].mean_packets"][0] == 0
    assert limits["run.drops"] == (-1, 5)


def test_a_base_with_a_drain_sweeps(tmp_path: Path) -> None:
    # The probe that checks the metrics runs a microsecond; the base's drain must not refuse it.
    base = {
        **SMALL,
        "sim": {"duration_s": 0.02, "drain_s": 0.005},
        "traffic": [traffic({"kind": "fixed", "bytes": 50_000}, load=0.3, sources=[1, 2], destinations=[0])],
    }
    plan = load_plan(
        {"name": "d", "base": base, "metrics": ["fct[10kB-100kB].unfinished", "run.drops"], "grid": {"switch.aqm.k_packets": [20, 40]}}
    )
    preflight(plan, expand(plan))
    table = dcsim.sweep(plan, jobs=1, progress=False)
    assert (table["error"] == "").all() and (table["fct[10kB-100kB].unfinished"] == 0).all()


def test_a_plans_base_file_problems_are_one_line_each(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text('[sim]\nduration_s = -1\n[topology]\nkind = "star"\nhosts = 3\n[tcp]\ncc = "bogus"\n')
    plan = tmp_path / "plan.toml"
    plan.write_text('base = "base.toml"\nmetrics = ["run.drops"]\nrepetitions = 0\n')
    result = CliRunner().invoke(main, ["sweep", str(plan)])
    assert result.exit_code == 2
    head, *lines = result.stderr.splitlines()
    assert head == f"error: {plan}: 3 problems:"
    assert sorted(line.strip().split(": ")[-2] if "base.toml" in line else line.strip().split(":")[0] for line in lines) == sorted(
        ["tcp.cc", "sim.duration_s", "repetitions"]
    )
