//! `[sim]`: run length and randomness.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::limits;
use crate::error::ConfigError;

/// The smallest memory budget, GB: 1 MB (the budget must be positive; a thousandth of the
/// unit is as fine as it needs to be).
const MIN_MEMORY_LIMIT_GB: f64 = 0.001;
/// The largest memory budget, GB: 1 PB, beyond any machine's memory (a budget that never
/// refuses).
const MAX_MEMORY_LIMIT_GB: f64 = 1e6;
/// The most threads one run may use: beyond any machine's cores today, and more than the
/// partitions of the largest fat-tree (k = 128 has 128 pods).
pub const MAX_THREADS: u32 = 1024;

/// How many threads one run uses: a count, or `"auto"` for the machine's cores. A network
/// the engine can cut runs its partitions on up to this many threads, with results that do
/// not depend on the count; one it cannot cut runs on one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Threads {
    /// This many threads, in [1, 1024].
    Count(#[schemars(range(min = 1, max = "MAX_THREADS"))] u32),
    /// As many threads as the machine has cores.
    Auto(AutoThreads),
}

/// The word `"auto"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoThreads {
    Auto,
}

impl Threads {
    /// The threads this asks for on this machine.
    pub fn count(self) -> usize {
        match self {
            Threads::Count(n) => n as usize,
            Threads::Auto(_) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// Run length and randomness.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Seed of every random stream in the run; the same seed gives byte-identical results.
    pub seed: u64,
    /// Simulated time to run, seconds.
    #[schemars(range(max = "limits::MAX_TIME_S"))]
    pub duration_s: f64,
    /// Statistics (goodput, queue distribution) ignore the first `warmup_s` seconds.
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub warmup_s: f64,
    /// Generated flows (`[[traffic]]`) stop arriving this many seconds before the end, so
    /// that the last of them can finish: completion-time statistics count finished flows
    /// only, and the flows still open at the end are mostly the largest, so a tail measured
    /// without a drain understates the slowdown of large flows. Each generator's own
    /// `stop_s` still applies when earlier. In [0, duration_s).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub drain_s: f64,
    /// End the run the instant every query workload has finished all its rounds; `duration_s`
    /// stays the upper bound. Incast sweeps can then give a generous duration without
    /// simulating background traffic past the last round. Rounds all done within the warm-up
    /// do not end the run (it would measure nothing): it goes on to `duration_s`.
    pub stop_when_queries_done: bool,
    /// A scenario whose estimated memory (network, connections, recorded time series and,
    /// run from Python, the results' rows Python builds) is above this many gigabytes
    /// (10^9 B) is refused before anything is built, in [0.001, 1000000]. `dcsim run
    /// --memory-limit-gb` sets it.
    #[schemars(range(min = "MIN_MEMORY_LIMIT_GB", max = "MAX_MEMORY_LIMIT_GB"))]
    pub memory_limit_gb: f64,
    /// Check the engine's invariants as it runs (`dcsim run --check-invariants`): packets
    /// conserved end to end and at every port, each queue's bytes those of the packets it
    /// holds, shared memory that balances, TCP sequence and acknowledgment numbers that only
    /// move forward, windows within their bounds, no event in the past. A violation stops
    /// the run as an engine bug. It costs about one pass over the network every few events.
    pub check_invariants: bool,
    /// Threads this run may use (`dcsim run --threads`): a count in [1, 1024] or `"auto"`
    /// (the machine's cores). A fat-tree (cut per pod), a leaf-spine (per leaf) or a `graph`
    /// with `partitions` runs its partitions in parallel, in windows of the shortest link
    /// delay across a cut; its results are byte-identical whatever the count, 1 included.
    /// Other networks, and runs with what the parallel engine does not split (query
    /// workloads, UDP, ICTCP, flow samples, packet traces), run on one thread and the run
    /// says why.
    pub threads: Threads,
    /// Cut a network that can be cut (a fat-tree, a leaf-spine, a `graph` with `partitions`)
    /// into partitions, whatever `threads` is, so that its results are the same on any
    /// number of threads. `false` keeps it whole, on one thread: the order of simultaneous
    /// events of a network that cannot be cut, and one copy of the network in memory where a
    /// cut one holds one per partition.
    pub partition: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            duration_s: 1.0,
            warmup_s: 0.0,
            drain_s: 0.0,
            stop_when_queries_done: false,
            memory_limit_gb: 8.0,
            check_invariants: false,
            threads: Threads::Count(1),
            partition: true,
        }
    }
}

impl SimConfig {
    /// When generated flows stop arriving: `drain_s` before the end of the run.
    pub fn arrivals_end_s(&self) -> f64 {
        self.duration_s - self.drain_s
    }

    /// Ranges of the run's length and memory budget.
    pub(super) fn check(&self) -> Result<(), ConfigError> {
        use limits::*;
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        real(&"sim.duration_s", self.duration_s, Bound::Above(0.0), MAX_TIME_S, "s")?;
        if !(self.warmup_s >= 0.0 && self.warmup_s < self.duration_s) {
            return err("sim.warmup_s", format!("must be in [0, duration_s), got {}", self.warmup_s));
        }
        if !(self.drain_s >= 0.0 && self.drain_s < self.duration_s) {
            return err("sim.drain_s", format!("must be in [0, duration_s), got {}", self.drain_s));
        }
        if let Threads::Count(n) = self.threads {
            if !(1..=MAX_THREADS).contains(&n) {
                return err("sim.threads", format!("must be in [1, {MAX_THREADS}] or \"auto\", got {n}"));
            }
        }
        real(
            &"sim.memory_limit_gb",
            self.memory_limit_gb,
            Bound::From(MIN_MEMORY_LIMIT_GB),
            MAX_MEMORY_LIMIT_GB,
            "GB",
        )?;
        Ok(())
    }
}
