#![no_main]
//! Any bytes, read as a TOML or a JSON scenario: accepted, or refused with one clear error.

use libfuzzer_sys::fuzz_target;

#[path = "../checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    checks::parse(data);
});
