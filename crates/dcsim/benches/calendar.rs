//! The event calendar (`sim::calendar::Calendar`) in the classic "hold" model: the calendar
//! holds a fixed number of events, and each operation pops the earliest and schedules one
//! at that time plus a random increment, as an event loop does in steady state. Sizes 64,
//! 4,096 and 262,144 events (a small run, a rack, a large fabric); one element = one hold
//! (a `pop` and a `schedule`).
//!
//! ```text
//! cargo bench -p dcsim --bench calendar
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dcsim::sim::calendar::Calendar;
use dcsim::units::Time;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// An 8-byte event, the size of the engine's own `Event` (a variant tag and a connection
/// or port index), which makes a 24-byte calendar entry. The payloads are never read: they
/// are there for the size.
#[allow(dead_code)]
#[derive(Debug, Clone, Copy)]
enum Event {
    LinkArrive(u32),
    Rto(u32, u8),
    DelayedAck(u32, u8),
    QueueSample,
}

/// Increments drawn ahead, so that the measurement is the calendar's and not the random
/// generator's; a power of two, cycled through with a mask.
const INCREMENTS: usize = 1 << 12;

/// Exponential increments of mean 1 µs (the hold model's usual choice: most events fall
/// soon, a few far ahead), in picoseconds, from a seeded ChaCha8 stream.
fn increments(seed: u64) -> Vec<Time> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mean_ps = 1e6;
    (0..INCREMENTS)
        .map(|_| {
            let u: f64 = rng.gen(); // in [0, 1)
            Time::from_ps((-mean_ps * (1.0 - u).ln()).round() as u64)
        })
        .collect()
}

/// The `i`-th event of a varied stream of kinds and indices.
fn event(i: usize) -> Event {
    let index = (i % 1000) as u32;
    match i % 4 {
        0 => Event::LinkArrive(index),
        1 => Event::Rto(index, 0),
        2 => Event::DelayedAck(index, 1),
        _ => Event::QueueSample,
    }
}

/// One hold: the earliest event leaves and comes back `increment` later.
#[inline(always)]
fn hold(cal: &mut Calendar<Event>, increment: Time) {
    let (time, event) = cal.pop().expect("a hold calendar never empties");
    cal.schedule(time + increment, black_box(event));
}

fn bench_hold(c: &mut Criterion) {
    assert_eq!(std::mem::size_of::<Event>(), 8, "the engine's events are 8 bytes");
    let increments = increments(1);
    let mut group = c.benchmark_group("calendar_hold");
    group.throughput(Throughput::Elements(1));
    for size in [64usize, 4_096, 262_144] {
        let mut cal = Calendar::default();
        for i in 0..size {
            cal.schedule(increments[i % INCREMENTS], event(i));
        }
        // The initial times are all within a few means of zero; a few passes of holds
        // spread them as the steady state does.
        let mut next = 0usize;
        for _ in 0..4 * size {
            hold(&mut cal, increments[next % INCREMENTS]);
            next += 1;
        }
        group.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| {
                hold(&mut cal, increments[next % INCREMENTS]);
                next += 1;
            })
        });
        assert_eq!(cal.len(), size);
    }
    group.finish();
}

criterion_group!(benches, bench_hold);
criterion_main!(benches);
