"""`make bench`'s Python half (benchmarks/bench.py): what it measures of a child process."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

# A child that leaves its CPU work to a grandchild it waits for, as `dcsim reproduce` leaves
# its simulations to pool workers.
PARENT = """
import subprocess, sys
subprocess.run([sys.executable, "-c", "import time\\nwhile time.process_time() < 0.3: pass"], check=True)
print("done")
"""


def bench_module() -> ModuleType:
    script = Path(__file__).parents[2] / "benchmarks" / "bench.py"
    spec = importlib.util.spec_from_file_location("bench_script", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_childs_cpu_time_counts_the_processes_it_waited_for() -> None:
    out, usage = bench_module().run_reaped([sys.executable, "-c", PARENT], "the parent")
    assert out == "done\n"
    # The grandchild alone burnt 0.3 s of CPU; the parent itself next to nothing.
    assert usage.ru_utime + usage.ru_stime >= 0.3
