//! Receive interrupt moderation on a host NIC ("interrupt moderation increase\[s\]
//! burstiness", DCTCP paper §3.5; the host delay behind the ICTCP
//! paper's RTT growth, §II-B).
//!
//! The model is an interrupt throttle: the NIC raises a receive interrupt at most once per
//! `interval` (the minimum inter-interrupt interval of Intel's ITR register and of the
//! "interrupt moderation" setting of Windows NIC drivers). A packet that arrives when the
//! last interrupt is at least `interval` old reaches the stack at once; one that arrives
//! sooner waits, with everything that arrives after it, for the next allowed interrupt,
//! and the batch reaches the stack together, in arrival order. A lone packet is therefore
//! never delayed (the base RTT is unchanged), while a train of packets is delivered in
//! batches - the host delay grows with the load, as the ICTCP paper observes.

use std::collections::VecDeque;

use super::packet::Segment;
use crate::units::Time;

#[derive(Debug, Clone)]
pub struct RxModeration {
    interval: Time,
    /// Time of the last interrupt, or of the pending one.
    last_irq: Option<Time>,
    pending: bool,
    /// Packets waiting for the pending interrupt, oldest first.
    ring: VecDeque<Segment>,
}

/// What becomes of a packet arriving at the NIC.
#[derive(Debug, PartialEq, Eq)]
pub enum RxArrival {
    /// Interrupt now: the stack takes the packet at once.
    Deliver,
    /// Held for the pending interrupt; `Some(t)` when this arrival set it up for time `t`
    /// (the caller schedules it), `None` when one was already pending.
    Held(Option<Time>),
}

impl RxModeration {
    pub fn new(interval: Time) -> Self {
        debug_assert!(interval > Time::ZERO);
        Self {
            interval,
            last_irq: None,
            pending: false,
            ring: VecDeque::new(),
        }
    }

    /// A packet arrives at `now`; if it is held, the NIC keeps it until `take_next` drains it.
    pub fn on_arrival(&mut self, now: Time, pkt: Segment) -> RxArrival {
        if self.pending {
            self.ring.push_back(pkt);
            return RxArrival::Held(None);
        }
        match self.last_irq {
            Some(last) if now < last + self.interval => {
                let at = last + self.interval;
                self.last_irq = Some(at);
                self.pending = true;
                self.ring.push_back(pkt);
                RxArrival::Held(Some(at))
            }
            _ => {
                self.last_irq = Some(now);
                RxArrival::Deliver
            }
        }
    }

    /// The pending interrupt fires: the next held packet, oldest first (call until `None`).
    pub fn take_next(&mut self) -> Option<Segment> {
        self.pending = false;
        self.ring.pop_front()
    }

    /// Packets held in the NIC, waiting for their interrupt.
    pub fn held(&self) -> usize {
        self.ring.len()
    }
}

/// Per-packet receive processing (`host.rx_processing_us`): the host's receive path takes
/// each packet its NIC hands up (at once, or at its interrupt) for a fixed time, one packet
/// after another, so a batch reaches TCP spread out by that time and a packet arriving behind
/// others waits for them: the host delay grows with the packets in flight to it.
#[derive(Debug, Clone)]
pub struct RxProcessor {
    per_packet: Time,
    /// When the packet now last in line is done.
    busy_until: Time,
    /// Packets being processed, with the time each is done, in order.
    queue: VecDeque<(Time, Segment)>,
}

impl RxProcessor {
    pub fn new(per_packet: Time) -> Self {
        debug_assert!(per_packet > Time::ZERO);
        Self {
            per_packet,
            busy_until: Time::ZERO,
            queue: VecDeque::new(),
        }
    }

    /// The NIC hands up a packet at `now`; returns the time it is done when the caller must
    /// schedule a wake-up for it (the queue was empty), else None.
    pub fn admit(&mut self, now: Time, pkt: Segment) -> Option<Time> {
        let done = self.busy_until.max(now) + self.per_packet;
        self.busy_until = done;
        self.queue.push_back((done, pkt));
        (self.queue.len() == 1).then_some(done)
    }

    /// The next packet done by `now`, in order (call until None).
    pub fn take_done(&mut self, now: Time) -> Option<Segment> {
        match self.queue.front() {
            Some(&(done, _)) if done <= now => self.queue.pop_front().map(|(_, p)| p),
            _ => None,
        }
    }

    /// When the packet now first in line is done (the next wake-up), if any.
    pub fn next_done(&self) -> Option<Time> {
        self.queue.front().map(|&(done, _)| done)
    }

    /// Packets in the receive path.
    pub fn held(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Ecn;

    fn packet(seq: u64) -> Segment {
        Segment::data(seq, 1500, Ecn::NotEct)
    }

    fn batch(rx: &mut RxModeration) -> Vec<u64> {
        std::iter::from_fn(|| rx.take_next()).map(|p| p.seq).collect()
    }

    #[test]
    fn a_lone_packet_goes_at_once_and_a_train_in_batches() {
        // Interval 50 µs; a train of packets 12 µs apart from t = 100 µs.
        let mut rx = RxModeration::new(Time::from_us(50));
        let arrive = |rx: &mut RxModeration, i: u64| rx.on_arrival(Time::from_us(100 + 12 * i), packet(i));
        // t = 100: the NIC has been quiet, interrupt now.
        assert_eq!(arrive(&mut rx, 0), RxArrival::Deliver);
        // t = 112: the next interrupt is allowed at 150; t = 124, 136, 148 join it.
        assert_eq!(arrive(&mut rx, 1), RxArrival::Held(Some(Time::from_us(150))));
        for i in 2..=4 {
            assert_eq!(arrive(&mut rx, i), RxArrival::Held(None));
        }
        assert_eq!(rx.held(), 4);
        assert_eq!(batch(&mut rx), vec![1, 2, 3, 4], "the interrupt at 150 takes them in order");
        // t = 160, 172: 50 µs after the interrupt at 150, so they wait for 200.
        assert_eq!(arrive(&mut rx, 5), RxArrival::Held(Some(Time::from_us(200))));
        assert_eq!(arrive(&mut rx, 6), RxArrival::Held(None));
        assert_eq!(batch(&mut rx), vec![5, 6]);
        // Exactly one interval after the last interrupt (200): through at once.
        assert_eq!(rx.on_arrival(Time::from_us(250), packet(7)), RxArrival::Deliver);
        assert_eq!(rx.held(), 0);
    }

    #[test]
    fn processing_takes_each_packet_in_turn() {
        // 3 µs per packet. A batch of three handed up at 150 µs is done at 153, 156, 159; a
        // packet handed up at 157 waits for the batch (done at 162); one at 170, after a quiet
        // spell, takes just its own 3 µs (173).
        let us = Time::from_us;
        let mut p = RxProcessor::new(us(3));
        assert_eq!(p.admit(us(150), packet(1)), Some(us(153)), "the first one sets the wake-up");
        assert_eq!(p.admit(us(150), packet(2)), None);
        assert_eq!(p.admit(us(150), packet(3)), None);
        assert_eq!(p.take_done(us(152)).map(|p| p.seq), None, "not done before its time");
        assert_eq!(p.take_done(us(153)).map(|p| p.seq), Some(1));
        assert_eq!(p.take_done(us(153)).map(|p| p.seq), None);
        assert_eq!(p.next_done(), Some(us(156)));
        assert_eq!(p.admit(us(157), packet(4)), None);
        let done: Vec<u64> = std::iter::from_fn(|| p.take_done(us(162))).map(|p| p.seq).collect();
        assert_eq!(done, vec![2, 3, 4]);
        assert_eq!((p.held(), p.next_done()), (0, None));
        assert_eq!(p.admit(us(170), packet(5)), Some(us(173)));
    }
}
