"""Write benchmarks/scenarios/dctcp-benchmark-rack.json: the DCTCP run of the DCTCP paper's
benchmark traffic (§4.3, the `dctcp-fig22` experiment's baseline) on its testbed, at quick
scale, as `dcsim reproduce` runs it. The engine bench (`make bench`, row
`dctcp-benchmark-rack`) runs its first seconds. Rerun after a change to the experiment or
its testbed:

    python benchmarks/dctcp_benchmark_rack.py
"""

from __future__ import annotations

from pathlib import Path

from dcsim import experiments
from dcsim.scenario import to_json

OUT = Path(__file__).parent / "scenarios" / "dctcp-benchmark-rack.json"


def main() -> None:
    experiment = experiments.EXPERIMENTS["dctcp-fig22"]
    testbed = experiments.TESTBEDS[experiment.testbed]
    scenario = dict(experiment.scenarios(experiment.params("quick"), testbed))["DCTCP"]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(to_json(scenario, str(OUT)) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
