"""The experiments' executor: results in input order, the simulation cache, progress."""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import os
import pickle
import time
from pathlib import Path

import pytest

from conftest import SMALL, assert_same_raw
from dcsim import executor


def scenarios(n: int) -> list[dict]:
    out = []
    for seed in range(1, n + 1):
        sc = copy.deepcopy(SMALL)
        sc["name"] = f"small-{seed}"
        sc["sim"]["seed"] = seed
        out.append(sc)
    return out


def test_results_come_back_in_input_order_from_two_processes() -> None:
    scs = scenarios(3)
    results = executor.run_scenarios(scs, jobs=2)
    assert [r["name"] for r in results] == ["small-1", "small-2", "small-3"]


def test_the_cache_reuses_identical_scenarios_and_reruns_changed_ones(tmp_path: Path) -> None:
    scs = scenarios(3)
    done: list[int] = []
    first = executor.RunContext(cache_dir=tmp_path, on_done=lambda: done.append(1))
    with executor.using(first):
        fresh = executor.run_scenarios(scs, jobs=2)
    assert (first.simulated, first.from_cache, first.seeds) == (3, 0, {1, 2, 3})
    assert len(done) == 3

    scs[1]["sim"]["duration_s"] = 0.01
    second = executor.RunContext(cache_dir=tmp_path)
    with executor.using(second):
        again = executor.run_scenarios(scs, jobs=2)
    assert (second.simulated, second.from_cache) == (1, 2)
    assert_same_raw(again[0], fresh[0])
    assert_same_raw(again[2], fresh[2])
    assert again[1]["duration_s"] == 0.01

    forced = executor.RunContext(cache_dir=tmp_path, force=True)
    with executor.using(forced):
        executor.run_scenarios(scs, jobs=1)
    assert (forced.simulated, forced.from_cache) == (3, 0)


def test_force_reruns_what_earlier_invocations_cached_but_not_this_ones_runs(tmp_path: Path) -> None:
    scs = scenarios(2)
    with executor.using(executor.RunContext(cache_dir=tmp_path)):
        executor.run_scenarios(scs, jobs=1)
    # One invocation, two experiments sharing a run: the first reruns both (forced), the second
    # reads the shared one from this invocation's cache and runs its own.
    fresh: set[str] = set()
    first = executor.RunContext(cache_dir=tmp_path, force=True, fresh=fresh)
    with executor.using(first):
        executor.run_scenarios(scs, jobs=1)
    second = executor.RunContext(cache_dir=tmp_path, force=True, fresh=fresh)
    with executor.using(second):
        executor.run_scenarios([scs[1], scenarios(3)[2]], jobs=1)
    assert (first.simulated, first.from_cache) == (2, 0)
    assert (second.simulated, second.from_cache) == (1, 1)


def test_runs_started_ahead_are_taken_from_the_cache_and_a_failed_one_runs_again(tmp_path: Path) -> None:
    scs = scenarios(3)
    broken = copy.deepcopy(scs[2])
    broken["topology"]["hosts"] = 0  # refused by the engine
    prefetch = executor.Prefetch(tmp_path, jobs=2, force=False)
    try:
        prefetch.add([scs[0], scs[1], scs[0], broken])
        assert len(prefetch.futures) == 3  # the repeated one is started once
        ctx = executor.RunContext(cache_dir=tmp_path, prefetch=prefetch)
        with executor.using(ctx):
            results = executor.run_scenarios(scs[:2], jobs=1)
        assert [r["name"] for r in results] == ["small-1", "small-2"]
        assert (ctx.simulated, ctx.from_cache) == (2, 0)
        assert ctx.fresh == {executor.cache_key(sc) for sc in scs[:2]}
        with executor.using(executor.RunContext(cache_dir=tmp_path, prefetch=prefetch)):
            with pytest.raises(Exception, match="hosts"):
                executor.run_scenarios([broken], jobs=1)
        assert not prefetch.futures
    finally:
        prefetch.close()
    # Started again in a later invocation: what the cache holds is not run again.
    again = executor.Prefetch(tmp_path, jobs=2, force=False)
    again.add(scs[:2])
    assert not again.futures
    again.close()


def test_an_unreadable_cache_entry_is_simulated_again(tmp_path: Path) -> None:
    sc = scenarios(1)
    with executor.using(executor.RunContext(cache_dir=tmp_path)):
        executor.run_scenarios(sc, jobs=1)
    (entry,) = tmp_path.rglob("*.pkl.gz")
    entry.write_bytes(b"not gzip")
    ctx = executor.RunContext(cache_dir=tmp_path)
    with executor.using(ctx):
        (result,) = executor.run_scenarios(sc, jobs=1)
    assert ctx.simulated == 1 and result["name"] == "small-1"
    assert not list(tmp_path.rglob("*.tmp"))


def test_an_entry_of_the_old_json_layout_is_never_read(tmp_path: Path) -> None:
    (sc,) = scenarios(1)
    # Where the cache kept results parsed from JSON (rows as dicts), keyed without a layout.
    text = json.dumps(sc, sort_keys=True, separators=(",", ":"))
    old_key = hashlib.sha256(f"{executor.engine_fingerprint()}\n{text}".encode()).hexdigest()
    assert old_key != executor.cache_key(sc)
    old = {"name": "small-1", "flows": [{"id": 0}], "ports": [], "queue_samples": {"port": []}}
    path = tmp_path / old_key[:2] / f"{old_key}.pkl.gz"
    path.parent.mkdir()
    path.write_bytes(gzip.compress(pickle.dumps(old)))
    ctx = executor.RunContext(cache_dir=tmp_path)
    with executor.using(ctx):
        (result,) = executor.run_scenarios([sc], jobs=1)
    assert ctx.simulated == 1 and set(result["flows"]) >= {"id", "goodput_bps"}


def test_the_cache_key_follows_content_not_key_order() -> None:
    a = {"sim": {"seed": 1, "duration_s": 0.1}, "name": "x"}
    b = {"name": "x", "sim": {"duration_s": 0.1, "seed": 1}}
    assert executor.cache_key(a) == executor.cache_key(b)
    assert executor.cache_key(a) != executor.cache_key({**a, "name": "y"})


def test_run_many_with_a_progress_bar_returns_results_in_order(tmp_path: Path) -> None:
    import dcsim

    results = dcsim.run_many(scenarios(3), jobs=2, progress=True)
    assert [r.raw["name"] for r in results] == ["small-1", "small-2", "small-3"]


def _die_on_two(i: int) -> int:
    if i == 2:
        os._exit(1)  # a worker killed mid-run (out of memory, a signal)
    if i > 2:
        time.sleep(0.1)  # runs take time: the death is seen long before the last is sent
    return i * 10


def test_a_dead_worker_fails_its_runs_and_the_rest_go_on() -> None:
    results = dict(executor.stream(_die_on_two, list(range(12)), jobs=2))
    assert sorted(results) == list(range(12)), "every item reported exactly once"
    assert isinstance(results[2], RuntimeError) and "worker process died" in str(results[2])
    failed = [i for i, r in results.items() if isinstance(r, BaseException)]
    # Only the runs in flight with the dead one fail (at most 2 per worker); later ones run.
    assert len(failed) <= 2 * 2
    assert all(results[i] == i * 10 for i in range(12) if i not in failed)
    assert results[11] == 110


def test_stream_takes_items_from_a_generator_as_workers_free_up() -> None:
    taken: list[int] = []

    def items():
        for i in range(20):
            taken.append(i)
            yield i

    stream = executor.stream(abs, items(), jobs=2, count=20)
    first = next(stream)
    assert first[1] == first[0]
    assert len(taken) <= 2 * 2 + 1, "only the runs in flight are taken"
    assert sorted(i for i, _ in [first, *stream]) == list(range(20))


def test_a_dask_worker_with_another_engine_fails_its_runs() -> None:
    assert executor._call_on_worker(abs, -3, executor.engine_fingerprint()) == 3
    error = executor._call_on_worker(abs, -3, "0.0.1+another")
    assert isinstance(error, RuntimeError) and "install the same dcsim" in str(error)


def _cgroup(tmp_path: Path, files: dict[str, str], own: str = "0::/\n") -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "self").write_text(own)
    return root, tmp_path / "self"


@pytest.mark.parametrize(
    ("files", "own", "cores"),
    [
        ({"cpu.max": "200000 100000\n"}, "0::/\n", 2),  # a 2-core container (cgroup v2)
        ({"cpu.max": "150000 100000\n"}, "0::/\n", 2),  # 1.5 cores: rounded up
        ({"cpu.max": "max 100000\n"}, "0::/\n", None),  # no quota: the affinity
        ({"ci/job/cpu.max": "100000 100000\n", "cpu.max": "max 100000\n"}, "0::/ci/job\n", 1),  # the process's own cgroup
        ({"cpu/cpu.cfs_quota_us": "300000\n", "cpu/cpu.cfs_period_us": "100000\n"}, "12:cpu:/\n", 3),  # cgroup v1
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, "12:cpu:/\n", None),
        ({}, "", None),  # no cgroup file system
    ],
)
def test_the_default_job_count_is_the_cores_the_process_may_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict, own: str, cores: int | None
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))  # a 64-CPU machine
    root, self_file = _cgroup(tmp_path, files, own)
    assert executor.usable_cores(root, self_file) == (64 if cores is None else cores)


def test_a_quota_of_more_cores_than_the_affinity_allows_is_the_affinity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    root, self_file = _cgroup(tmp_path, {"cpu.max": "6400000 100000\n"})  # 64 cores
    assert executor.usable_cores(root, self_file) == 2
