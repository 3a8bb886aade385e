//! A set of disjoint byte ranges [start, end), kept sorted: the receiver's out-of-order
//! data and the sender's SACK scoreboard.

#[derive(Debug, Clone, Default)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
    bytes: u64,
}

impl RangeSet {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes covered.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Adds [start, end), merging with any range it overlaps or touches.
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let (mut s, mut e) = (start, end);
        let mut i = 0;
        while i < self.ranges.len() {
            let (a, b) = self.ranges[i];
            if b < s {
                i += 1;
            } else if a > e {
                break;
            } else {
                s = s.min(a);
                e = e.max(b);
                self.bytes -= b - a;
                self.ranges.remove(i);
            }
        }
        self.ranges.insert(i, (s, e));
        self.bytes += e - s;
    }

    /// Forgets everything below `seq` (data acknowledged cumulatively).
    pub fn remove_below(&mut self, seq: u64) {
        while let Some(&(a, b)) = self.ranges.first() {
            if b <= seq {
                self.bytes -= b - a;
                self.ranges.remove(0);
            } else {
                if a < seq {
                    self.ranges[0].0 = seq;
                    self.bytes -= seq - a;
                }
                break;
            }
        }
    }

    /// The end of the range containing `seq`, if any.
    pub fn end_of_range_containing(&self, seq: u64) -> Option<u64> {
        self.ranges.iter().find(|&&(a, b)| a <= seq && seq < b).map(|&(_, b)| b)
    }

    /// Highest byte covered (exclusive end), if any.
    pub fn highest(&self) -> Option<u64> {
        self.ranges.last().map(|&(_, b)| b)
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
