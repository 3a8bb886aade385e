#![no_main]
//! Scenarios the parser accepts run within an event and memory budget, every invariant
//! checked after every event, and twice with the same results.

use libfuzzer_sys::fuzz_target;

#[path = "../checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::simulate(data);
});
