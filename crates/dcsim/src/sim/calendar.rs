//! The event calendar: a 4-ary min-heap ordered by (time, insertion sequence), so
//! simultaneous events run in the order they were scheduled (deterministic FIFO tie-break).
//!
//! Four children per node halve the heap's depth against a binary heap, and a node's
//! children sit side by side (4 × 24 bytes, about one and a half cache lines): a pop, the
//! engine's most frequent operation, reads fewer lines. Entries keep time and sequence as
//! two `u64`s (24 bytes with an 8-byte event) rather than one `u128` (32 bytes, 16-aligned).

use crate::units::Time;

/// Children per node.
const ARITY: usize = 4;

#[derive(Clone, Copy)]
struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// The order: time, then scheduling order. One `u128` comparison (compiled branch-free).
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
    }
}

#[derive(Clone)]
struct Heap<E> {
    heap: Vec<Entry<E>>,
    /// The root was popped and its hole not yet filled: the next `schedule` fills it with
    /// one sift down (an event's handler usually schedules the next one), instead of a pop's
    /// repair and a push's sift up.
    vacant_root: bool,
}

impl<E: Copy> Default for Heap<E> {
    fn default() -> Self {
        Self {
            heap: Vec::with_capacity(1024),
            vacant_root: false,
        }
    }
}

impl<E: Copy> Heap<E> {
    #[inline]
    fn push(&mut self, entry: Entry<E>) {
        if self.vacant_root {
            self.vacant_root = false;
            self.sift_down_from_root(entry);
            return;
        }
        let hole = self.heap.len();
        self.heap.push(entry);
        self.sift_up(hole, entry);
    }

    /// Puts `entry` at `hole` or above it: parents later than it move down.
    #[inline(always)]
    fn sift_up(&mut self, mut hole: usize, entry: Entry<E>) {
        let key = entry.key();
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if self.heap[parent].key() <= key {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = entry;
    }

    /// Fills the root's hole with `entry`: the hole moves down to a leaf past the smallest
    /// child of each node, then the entry sifts up from there (most entries belong near the
    /// bottom: fewer comparisons than testing the entry at every level). A node with four
    /// children picks the smallest in a fixed tree of comparisons (compiled branch-free).
    #[inline(always)]
    fn sift_down_from_root(&mut self, entry: Entry<E>) {
        let n = self.heap.len();
        let mut hole = 0;
        loop {
            let first = ARITY * hole + 1;
            let child = if first + ARITY <= n {
                let c = &self.heap[first..first + ARITY];
                let (k0, k1, k2, k3) = (c[0].key(), c[1].key(), c[2].key(), c[3].key());
                let (a, ka) = if k1 < k0 { (1, k1) } else { (0, k0) };
                let (b, kb) = if k3 < k2 { (3, k3) } else { (2, k2) };
                first + if kb < ka { b } else { a }
            } else if first < n {
                (first..n).min_by_key(|&c| self.heap[c].key()).expect("a child")
            } else {
                break;
            };
            self.heap[hole] = self.heap[child];
            hole = child;
        }
        self.sift_up(hole, entry);
    }

    /// Repairs a vacant root left by `pop`: the last entry fills it.
    #[inline(always)]
    fn settle(&mut self) {
        if self.vacant_root {
            self.vacant_root = false;
            let last = self.heap.pop().expect("a vacant root is in a heap of two or more");
            self.sift_down_from_root(last);
        }
    }

    /// The earliest entry's key, after repairing a vacant root.
    #[inline(always)]
    fn first_key(&mut self) -> Option<u128> {
        self.settle();
        self.heap.first().map(Entry::key)
    }

    /// Takes the earliest entry (`first_key` was called): its place stays vacant.
    #[inline(always)]
    fn take_first(&mut self) -> Entry<E> {
        let top = self.heap[0];
        if self.heap.len() == 1 {
            self.heap.pop();
        } else {
            self.vacant_root = true;
        }
        top
    }

    fn len(&self) -> usize {
        self.heap.len() - self.vacant_root as usize
    }
}

/// The calendar: two heaps under one sequence, so that the order is one (time, sequence)
/// order. TCP timers (`schedule_timer`) are most of what waits in a network of many
/// connections and lie far ahead; the events of packets lie close. Apart, an event of a
/// packet sifts through a heap of its kind only.
#[derive(Clone)]
pub struct Calendar<E> {
    soon: Heap<E>,
    timers: Heap<E>,
    next_seq: u64,
}

impl<E: Copy> Default for Calendar<E> {
    fn default() -> Self {
        Self {
            soon: Heap::default(),
            timers: Heap::default(),
            next_seq: 0,
        }
    }
}

impl<E: Copy> Calendar<E> {
    #[inline(always)]
    fn entry(&mut self, time: Time, event: E) -> Entry<E> {
        let seq = self.next_seq;
        self.next_seq += 1;
        Entry {
            time: time.as_ps(),
            seq,
            event,
        }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        let e = self.entry(time, event);
        self.soon.push(e);
    }

    /// Schedules a timer: the same order as `schedule`, kept apart from the other events.
    #[inline]
    pub fn schedule_timer(&mut self, time: Time, event: E) {
        let e = self.entry(time, event);
        self.timers.push(e);
    }

    /// Takes the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }

    /// Takes the earliest event if it is due at or before `end`: `peek_time` and `pop` in
    /// one look at each lane (the event loop's one call per event).
    #[inline(always)]
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, E)> {
        let last = (end.as_ps() as u128) << 64 | u64::MAX as u128;
        let lane = match (self.soon.first_key(), self.timers.first_key()) {
            (Some(a), Some(b)) if b < a => (b <= last).then_some(&mut self.timers),
            (Some(a), _) => (a <= last).then_some(&mut self.soon),
            (None, Some(b)) => (b <= last).then_some(&mut self.timers),
            (None, None) => None,
        };
        let top = lane?.take_first();
        Some((Time::from_ps(top.time), top.event))
    }

    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        let (a, b) = (self.soon.first_key(), self.timers.first_key());
        a.into_iter().chain(b).min().map(|k| Time::from_ps((k >> 64) as u64))
    }

    /// Keeps only the events `keep` accepts, in the same order.
    pub fn retain(&mut self, keep: impl Fn(&E) -> bool) {
        for lane in [&mut self.soon, &mut self.timers] {
            lane.settle();
            lane.heap.retain(|e| keep(&e.event));
            // A sorted array is a heap.
            lane.heap.sort_unstable_by_key(Entry::key);
        }
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.soon.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_in_time_order_and_fifo_among_ties() {
        let mut c = Calendar::default();
        c.schedule(Time::from_ps(20), "c");
        c.schedule(Time::from_ps(10), "a");
        c.schedule(Time::from_ps(20), "d");
        c.schedule(Time::from_ps(10), "b");
        c.schedule(Time::from_ps(5), "first");
        let order: Vec<_> = std::iter::from_fn(|| c.pop()).map(|(t, e)| (t.as_ps(), e)).collect();
        assert_eq!(order, vec![(5, "first"), (10, "a"), (10, "b"), (20, "c"), (20, "d")]);
    }

    proptest! {
        /// Any interleaving of schedules (events and timers) and pops gives what a sorted list
        /// gives: the earliest time first, ties in the order they were scheduled; `pop_until`
        /// gives it only when due by its bound.
        #[test]
        fn agrees_with_a_sorted_list(ops in proptest::collection::vec((0u64..50, any::<bool>()), 1..400)) {
            let mut cal = Calendar::default();
            let mut model: Vec<(u64, u32)> = Vec::new();
            for (i, &(t, pop)) in ops.iter().enumerate() {
                if pop && i % 2 == 0 {
                    let want = (!model.is_empty()).then(|| model.remove(0));
                    prop_assert_eq!(cal.pop().map(|(t, e)| (t.as_ps(), e)), want);
                } else if pop {
                    // Up to a bound `t`: the earliest event if it is due by then, else none.
                    let want = model.first().is_some_and(|&(mt, _)| mt <= t).then(|| model.remove(0));
                    prop_assert_eq!(cal.pop_until(Time::from_ps(t)).map(|(t, e)| (t.as_ps(), e)), want);
                } else {
                    if i % 3 == 0 {
                        cal.schedule_timer(Time::from_ps(t), i as u32);
                    } else {
                        cal.schedule(Time::from_ps(t), i as u32);
                    }
                    let at = model.partition_point(|&(mt, _)| mt <= t);
                    model.insert(at, (t, i as u32));
                }
                prop_assert_eq!(cal.len(), model.len());
                prop_assert_eq!(cal.peek_time().map(Time::as_ps), model.first().map(|&(t, _)| t));
            }
        }
    }
}
