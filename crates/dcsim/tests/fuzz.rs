//! The short fuzz pass of `make test`: every input of the fuzz corpora and seeded mutations
//! of them go through the fuzz targets' checks (fuzz/checks.rs): parsed without a panic,
//! refused with a one-line error or run within budget with every invariant checked, twice,
//! identically. The corpora are fuzz/seeds and fuzz/minimised/<target>, in the repository
//! (the seeds' coverage and the inputs `make fuzz` found that reach further), and
//! fuzz/corpus/<target> if present: the corpus `make fuzz` grows locally, outside git.
//!
//! Without libFuzzer's coverage guidance this finds less than `make fuzz`, but it runs on
//! stable Rust, in the optimised and the overflow-checked build, on every change.
//! `DCSIM_FUZZ_MUTATIONS=N` sets the mutations per target (default 2,000).

use std::path::{Path, PathBuf};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[path = "../../../fuzz/checks.rs"]
mod checks;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Every file of the seeds, of `target`'s minimised corpus and of its local grown corpus (if
/// any), in name order. The first two are in the repository and must be there.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let fuzz = fuzz_dir();
    let mut files = Vec::new();
    let mut committed = 0;
    for (dir, required) in [
        (fuzz.join("seeds"), true),
        (fuzz.join("minimised").join(target), true),
        (fuzz.join("corpus").join(target), false),
    ] {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(_) if !required => continue,
            Err(e) => panic!("the fuzz corpus {} is missing: {e}", dir.display()),
        };
        let before = files.len();
        for e in entries {
            let path = e.expect("a corpus entry").path();
            files.push((path.display().to_string(), std::fs::read(&path).expect("a corpus file")));
        }
        if required {
            assert!(files.len() > before, "the fuzz corpus {} is empty", dir.display());
            committed = files.len();
        }
    }
    files.sort();
    assert!(
        committed >= 50,
        "the fuzz corpora in {} hold only {committed} inputs",
        fuzz.display()
    );
    files
}

fn mutations() -> usize {
    std::env::var("DCSIM_FUZZ_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

/// Values users and fuzzers put where a number goes: edges of every integer and float type.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "0.0",
    "-0.0",
    "1e-300",
    "1e308",
    "nan",
    "inf",
    "-inf",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "18446744073709551615",
    "18446744073709551616",
    "1e19",
    "0.5",
    "1e-9",
    "\"1\"",
    "true",
    "[]",
    "{}",
];

/// One mutation of `text`, as libFuzzer's would be: a number replaced by an edge value, a line
/// dropped, repeated or moved, a line from another input spliced in, the text cut short, or a
/// byte changed.
fn mutate(rng: &mut ChaCha8Rng, text: &str, others: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let i = rng.gen_range(0..lines.len());
    match rng.gen_range(0..8) {
        0..=2 => {
            // Every number in the text is a candidate; JSON scenarios are one line.
            let spans: Vec<(usize, usize)> = number_spans(text);
            if let Some(&(a, b)) = spans.choose(rng) {
                let mut out = text[..a].to_string();
                out.push_str(NUMBERS.choose(rng).expect("numbers"));
                out.push_str(&text[b..]);
                return out.into_bytes();
            }
        }
        3 => {
            lines.remove(i);
        }
        4 => {
            let line = lines[i].clone();
            lines.insert(rng.gen_range(0..=lines.len()), line);
        }
        5 => {
            let (_, other) = others.choose(rng).expect("a corpus");
            let other = String::from_utf8_lossy(other);
            if let Some(line) = other.lines().collect::<Vec<_>>().choose(rng) {
                lines.insert(i, line.to_string());
            }
        }
        6 => {
            let mut bytes = text.as_bytes().to_vec();
            bytes.truncate(rng.gen_range(0..=bytes.len()));
            return bytes;
        }
        _ => {
            let mut bytes = text.as_bytes().to_vec();
            if !bytes.is_empty() {
                let at = rng.gen_range(0..bytes.len());
                bytes[at] = *b"0123456789.-e\"[]{}=,\n #".choose(rng).expect("bytes");
            }
            return bytes;
        }
    }
    lines.join("\n").into_bytes()
}

/// Byte ranges of the numbers in `text` (digits with signs, points and exponents).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        if starts {
            let a = i;
            while i < b.len() && (b[i].is_ascii_digit() || matches!(b[i], b'.' | b'e' | b'E' | b'-' | b'+' | b'_')) {
                i += 1;
            }
            spans.push((a, i));
        } else {
            i += 1;
        }
    }
    spans
}

/// Runs `check` on every input of `target`'s corpora, then on seeded mutations of inputs
/// drawn from them; a failing input is named (and, for a mutation, printed) before the
/// check's panic goes on.
fn fuzz_pass(target: &str, seed: u64, check: fn(&[u8])) {
    let inputs = corpus(target);
    for (name, data) in &inputs {
        run_named(check, data, || name.clone());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mutations = mutations();
    for m in 0..mutations {
        let (name, data) = inputs.choose(&mut rng).expect("a corpus");
        let mutated = mutate(&mut rng, &String::from_utf8_lossy(data), &inputs);
        run_named(check, &mutated, || {
            format!("mutation {m} of {name}:\n{}", String::from_utf8_lossy(&mutated))
        });
    }
    eprintln!("{target}: {} inputs and {mutations} mutations checked", inputs.len());
}

fn run_named(check: fn(&[u8]), data: &[u8], name: impl Fn() -> String) {
    if std::panic::catch_unwind(|| check(data)).is_err() {
        panic!("fuzz check failed on {}", name());
    }
}

#[test]
fn scenario_parse_corpus_and_mutations() {
    fuzz_pass("scenario_parse", 1, |data| {
        checks::parse(data);
    });
}

#[test]
fn small_sim_corpus_and_mutations() {
    fuzz_pass("small_sim", 2, checks::simulate);
}
