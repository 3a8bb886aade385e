//! What the fuzz targets check, shared by `cargo fuzz` (fuzz/fuzz_targets) and by the short
//! fuzz pass of `make test` (crates/dcsim/tests/fuzz.rs, which replays the corpora and
//! seeded mutations of them without libFuzzer).
//!
//! - `parse`: any bytes, read as a TOML or a JSON scenario, are accepted or refused with one
//!   `ConfigError`: a one-line reason, never a panic. An accepted scenario also gets through
//!   the engine's memory estimate (its limit lowered to 50 MB) and its network's layout, or
//!   is refused the same way.
//! - `simulate`: `Simulation::check` (validation, which builds no port or route) refuses
//!   exactly what building the run refuses, with the same error; a scenario accepted by
//!   `parse` runs, with the engine's invariants checked
//!   after every event (a violation panics, which the fuzzer reports), within a budget of
//!   events and memory so that no input hangs; the same input run twice gives byte-identical
//!   results.

// Each fuzz target uses part of this file.
#![allow(dead_code)]

use dcsim::{ConfigError, Scenario, Simulation};

/// Events a fuzzed simulation may run before it is stopped: enough for handshakes, slow
/// start, drops, recovery and timeouts on a small network.
pub const EVENT_BUDGET: u64 = 20_000;

/// A fuzzed scenario's memory estimate may not pass this (its `sim.memory_limit_gb` is
/// lowered to it).
pub const MEMORY_LIMIT_GB: f64 = 0.05;

/// A refusal a user can act on: one line, saying something.
fn check_error(e: &ConfigError, text: &str) {
    let shown = e.to_string();
    assert!(!e.reason.trim().is_empty(), "an empty reason ({shown:?}) for\n{text}");
    assert!(!shown.contains('\n'), "a reason over several lines ({shown:?}) for\n{text}");
}

/// Reads `data` as a TOML scenario, then as a JSON one; returns the first accepted.
pub fn parse(data: &[u8]) -> Option<Scenario> {
    let text = std::str::from_utf8(data).ok()?;
    let mut accepted = None;
    for read in [Scenario::from_toml, Scenario::from_json] {
        // Networks past the fuzzing memory limit are refused by the engine's estimate, as a
        // user's past theirs are: building a 54,000-host fat-tree takes a second (ten times
        // that instrumented), which would pass for a hang.
        let capped = read(text).map(|mut s| {
            s.sim.memory_limit_gb = s.sim.memory_limit_gb.min(MEMORY_LIMIT_GB);
            s
        });
        match capped.and_then(|s| dcsim::port_names(&s).map(|_| s)) {
            Ok(s) => accepted = accepted.or(Some(s)),
            Err(e) => check_error(&e, text),
        }
    }
    accepted
}

/// Runs `data`'s scenario (if `parse` accepts it) twice within the budgets, checking
/// invariants throughout and that both runs agree.
pub fn simulate(data: &[u8]) {
    let Some(mut s) = parse(data) else { return };
    s.sim.check_invariants = true;
    let text = String::from_utf8_lossy(data);
    let (first, second) = (run(&s, &text), run(&s, &text));
    assert!(first == second, "the same scenario gave different results:\n{text}");
}

/// The results (as JSON) of a run stopped at the end time or the event budget, or the reason
/// the scenario was refused.
fn run(s: &Scenario, text: &str) -> Result<String, String> {
    // Checking a scenario (what validation asks, building no port or route) refuses exactly
    // what building its run refuses, with the same error.
    let checked = Simulation::check(s, dcsim::sim::memory::Consumer::Rust).map_err(|e| e.to_string());
    let built = Simulation::new(s);
    let refused = built.as_ref().err().map(ConfigError::to_string);
    assert!(
        checked.as_ref().err() == refused.as_ref(),
        "checking gave {checked:?}, building {refused:?}, for\n{text}"
    );
    let mut sim = built.map_err(|e| {
        check_error(&e, text);
        e.to_string()
    })?;
    let (mut checks, mut done) = (EVENT_BUDGET / 1_000, 0.0);
    let results = sim.run_observed(1_000, |fraction| {
        (checks, done) = (checks - 1, fraction);
        checks > 0
    });
    // A run stopped by the budget is compared by how far it got.
    Ok(results.map_or_else(|| format!("stopped at {done:?} of the run"), |r| r.to_json()))
}
