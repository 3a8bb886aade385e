//! A set of disjoint byte ranges [start, end), kept sorted: the receiver's out-of-order
//! data and the sender's SACK scoreboard.
//!
//! Most connections never lose a packet, so a set that was never filled costs 8 bytes: its
//! ranges live in a box made at the first insertion and kept for the connection's life.

#[derive(Debug, Clone, Default)]
pub struct RangeSet(Option<Box<Ranges>>);

#[derive(Debug, Clone, Default)]
struct Ranges {
    ranges: Vec<(u64, u64)>,
    bytes: u64,
    /// Starts of the most recent insertions, newest first (0: none yet).
    recent: [u64; 4],
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges().is_empty()
    }

    /// Bytes covered.
    pub fn bytes(&self) -> u64 {
        self.0.as_ref().map_or(0, |r| r.bytes)
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        self.0.as_ref().map_or(&[], |r| &r.ranges)
    }

    /// Starts of the four most recent insertions, newest first, whether or not their ranges
    /// are still held (0 where fewer were made): RFC 2018 §4's order of SACK blocks.
    pub fn recent_starts(&self) -> [u64; 4] {
        self.0.as_ref().map_or([0; 4], |r| r.recent)
    }

    /// Adds [start, end), merging with any range it overlaps or touches.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let set = self.0.get_or_insert_with(Box::default);
        set.recent.rotate_right(1);
        set.recent[0] = start;
        let (mut s, mut e) = (start, end);
        let mut i = 0;
        while i < set.ranges.len() {
            let (a, b) = set.ranges[i];
            if b < s {
                i += 1;
            } else if a > e {
                break;
            } else {
                s = s.min(a);
                e = e.max(b);
                set.bytes -= b - a;
                set.ranges.remove(i);
            }
        }
        set.ranges.insert(i, (s, e));
        set.bytes += e - s;
    }

    /// Forgets everything below `seq` (data acknowledged cumulatively).
    pub fn remove_below(&mut self, seq: u64) {
        let Some(set) = self.0.as_mut() else { return };
        while let Some(&(a, b)) = set.ranges.first() {
            if b <= seq {
                set.bytes -= b - a;
                set.ranges.remove(0);
            } else {
                if a < seq {
                    set.ranges[0].0 = seq;
                    set.bytes -= seq - a;
                }
                break;
            }
        }
    }

    /// The end of the range containing `seq`, if any.
    pub fn end_of_range_containing(&self, seq: u64) -> Option<u64> {
        self.ranges().iter().find(|&&(a, b)| a <= seq && seq < b).map(|&(_, b)| b)
    }

    /// Highest byte covered (exclusive end), if any.
    pub fn highest(&self) -> Option<u64> {
        self.ranges().last().map(|&(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_counts() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        assert_eq!(r.ranges(), &[(10, 20), (30, 40)]);
        assert_eq!(r.bytes(), 20);
        r.insert(20, 30); // touches both: one range
        assert_eq!(r.ranges(), &[(10, 40)]);
        assert_eq!(r.bytes(), 30);
        r.insert(5, 12);
        r.insert(50, 60);
        assert_eq!(r.ranges(), &[(5, 40), (50, 60)]);
        assert_eq!(r.bytes(), 45);
        assert_eq!(r.recent_starts(), [50, 5, 20, 30]);
    }

    #[test]
    fn an_empty_set_is_one_pointer() {
        let r = RangeSet::default();
        assert_eq!(std::mem::size_of::<RangeSet>(), 8);
        assert!(r.is_empty());
        assert_eq!((r.bytes(), r.highest(), r.recent_starts()), (0, None, [0; 4]));
    }

    #[test]
    fn remove_below_trims() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        r.remove_below(15);
        assert_eq!(r.ranges(), &[(15, 20), (30, 40)]);
        r.remove_below(30);
        assert_eq!(r.ranges(), &[(30, 40)]);
        assert_eq!(r.bytes(), 10);
        assert_eq!(r.end_of_range_containing(35), Some(40));
        assert_eq!(r.end_of_range_containing(40), None);
    }
}
