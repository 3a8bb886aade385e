//! The event calendar: a binary heap ordered by (time, insertion sequence), so simultaneous
//! events run in the order they were scheduled (deterministic FIFO tie-break).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::units::Time;

/// `key` = time << 64 | sequence: one integer comparison orders by time, then FIFO.
#[derive(Clone)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the earliest (then first-scheduled) pops first.
        other.key.cmp(&self.key)
    }
}

#[derive(Clone)]
pub struct Calendar<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for Calendar<E> {
    fn default() -> Self {
        Self {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
        }
    }
}

impl<E> Calendar<E> {
    pub fn schedule(&mut self, time: Time, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry {
            key: (time.as_ps() as u128) << 64 | seq as u128,
            event,
        });
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.heap.pop().map(|e| (Time::from_ps((e.key >> 64) as u64), e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time::from_ps((e.key >> 64) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
