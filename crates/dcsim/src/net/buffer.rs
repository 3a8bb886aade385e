//! A switch's shared packet memory with dynamic per-port thresholds (DCTCP paper §2.3.1;
//! Choudhury and Hahne's dynamic-threshold model of Broadcom-style MMUs): a port may hold up
//! to alpha × the memory still free, so one busy port converges to alpha·B/(1 + alpha) and
//! k busy ports to alpha·B/(1 + k·alpha) each ("buffer pressure", DCTCP paper §2.3.4).

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

use super::port::Port;
use crate::ids::PortId;
use crate::units::{Bytes, Time};

/// Why the shared memory refused a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The port is above its dynamic threshold.
    PortThreshold,
    /// The shared pool itself has no room.
    PoolFull,
}

#[derive(Debug, Clone)]
pub struct SharedBuffer {
    /// B.
    pub total: Bytes,
    pub alpha: f64,
    /// The switch's egress ports that draw from this memory.
    pub ports: Vec<PortId>,
    /// Highest occupancy seen.
    pub max_used: Bytes,
    /// Bytes held, as of the last `used_at`.
    used: Bytes,
    /// Per FIFO port (in `ports` order): the bytes of its buffer counted in `used`. The port
    /// itself knows when each of its packets leaves; this memory asks it.
    counted: Vec<Bytes>,
    /// (next departure, port slot) of every FIFO port holding packets, earliest first: the
    /// memory's occupancy at any instant, visiting only the ports that a packet has left
    /// since (a heap of ports, not of packets).
    next: BinaryHeap<Reverse<(Time, u32)>>,
}

impl SharedBuffer {
    pub fn new(total: Bytes, alpha: f64) -> Self {
        SharedBuffer {
            total,
            alpha,
            ports: Vec::new(),
            max_used: Bytes::ZERO,
            used: Bytes::ZERO,
            counted: Vec::new(),
            next: BinaryHeap::new(),
        }
    }

    /// Port `id` draws from this memory; returns its slot (what `hold` takes).
    pub fn add_port(&mut self, id: PortId) -> u32 {
        self.ports.push(id);
        self.counted.push(Bytes::ZERO);
        (self.ports.len() - 1) as u32
    }

    /// Bytes held at `now`: frees what has left the FIFO ports (`ports`: the network's, by
    /// id) by then.
    #[inline]
    pub fn used_at(&mut self, now: Time, ports: &mut [Port], window_start: Time) -> Bytes {
        while let Some(mut top) = self.next.peek_mut() {
            let Reverse((t, slot)) = *top;
            if t > now {
                break;
            }
            let port = &mut ports[self.ports[slot as usize]];
            let left = port.occupancy_bytes(now, window_start);
            let counted = &mut self.counted[slot as usize];
            self.used -= *counted - left;
            *counted = left;
            // The port's entry moves to its next departure in one sift, or leaves.
            match port.next_departure() {
                Some(t) => *top = Reverse((t, slot)),
                None => {
                    PeekMut::pop(top);
                }
            }
        }
        self.used
    }

    /// The invariant-checking mode's test at `now`: each FIFO port's bytes counted here are
    /// the bytes it holds, and the memory holds at least their sum, at most its size.
    pub fn check_invariants(&mut self, now: Time, ports: &mut [Port], window_start: Time) -> Result<(), String> {
        let used = self.used_at(now, ports, window_start);
        if used > self.total {
            return Err(format!("it holds {used}, more than its {}", self.total));
        }
        let mut counted = Bytes::ZERO;
        for (slot, &id) in self.ports.iter().enumerate() {
            let port = &mut ports[id];
            if port.discipline().is_some() {
                continue;
            }
            let holds = port.occupancy_bytes(now, window_start);
            if self.counted[slot] != holds {
                return Err(format!(
                    "it counts {} for port {}, which holds {holds}",
                    self.counted[slot], port.name
                ));
            }
            counted += holds;
        }
        if used < counted {
            return Err(format!("it holds {used}, less than the {counted} its FIFO ports hold"));
        }
        Ok(())
    }

    /// A packet of `size` bytes was admitted to a queue discipline: it leaves the memory when
    /// `release` says so.
    #[inline]
    pub fn hold_until_released(&mut self, size: Bytes) {
        self.used += size;
        self.max_used = self.max_used.max(self.used);
    }

    /// A packet held by `hold_until_released` left the memory.
    #[inline]
    pub fn release(&mut self, size: Bytes) {
        self.used -= size;
    }

    /// A packet of `size` bytes was admitted to the FIFO port in `slot`, and leaves the
    /// memory when it leaves the port, at `departure` if the port held nothing before it.
    #[inline]
    pub fn hold(&mut self, slot: u32, size: Bytes, departure: Time) {
        self.used += size;
        self.max_used = self.max_used.max(self.used);
        let counted = &mut self.counted[slot as usize];
        if *counted == Bytes::ZERO {
            self.next.push(Reverse((departure, slot)));
        }
        *counted += size;
    }

    /// Admission of `size` bytes to a port holding `port_bytes` when the whole memory holds
    /// `used`: "If a packet must be queued for an outgoing interface, but the interface has
    /// hit its maximum memory allocation or the shared pool itself is depleted, then the
    /// packet is dropped" (DCTCP paper §2.3.1).
    #[inline]
    pub fn admit(&self, used: Bytes, port_bytes: Bytes, size: Bytes) -> Result<(), Refusal> {
        if used + size > self.total {
            Err(Refusal::PoolFull)
        } else if (port_bytes + size).as_u64() as f64 > self.alpha * (self.total - used).as_u64() as f64 {
            Err(Refusal::PortThreshold)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn bytes(n: u64) -> Bytes {
        Bytes::new(n)
    }

    const ALPHA: f64 = 700.0 / 3300.0;

    /// Fills `ports` round-robin with 1500-B packets until every one is refused; returns what
    /// each holds.
    fn fill(b: &SharedBuffer, ports: usize) -> Vec<u64> {
        let mut q = vec![0u64; ports];
        loop {
            let mut admitted = false;
            for p in 0..ports {
                let used: u64 = q.iter().sum();
                if b.admit(bytes(used), bytes(q[p]), bytes(1500)).is_ok() {
                    q[p] += 1500;
                    admitted = true;
                }
            }
            if !admitted {
                return q;
            }
        }
    }

    #[test]
    fn the_invariant_check_catches_memory_that_does_not_balance() {
        use crate::ids::NodeId;
        use crate::net::aqm::Aqm;
        use crate::net::packet::{Ecn, Packet};
        use crate::units::Rate;
        let mut ports = vec![Port::new(
            "s0->h0".into(),
            NodeId(0),
            NodeId(1),
            true,
            Rate::from_gbps(1.0),
            Time::from_us(1),
            bytes(38),
            100,
            Bytes::MAX,
            Aqm::DropTail,
        )];
        let mut b = SharedBuffer::new(bytes(100_000), ALPHA);
        let slot = b.add_port(PortId(0));
        for i in 0..3 {
            let (end, _) = ports[0].offer(Time::ZERO, Packet::data(i, 1500, Ecn::Ect), Time::ZERO).unwrap();
            b.hold(slot, bytes(1500), end);
        }
        b.check_invariants(Time::ZERO, &mut ports, Time::ZERO).expect("balanced");
        b.check_invariants(Time::from_us(13), &mut ports, Time::ZERO)
            .expect("balanced after a departure");
        let mut over = b.clone();
        over.counted[0] += bytes(1);
        assert!(over
            .check_invariants(Time::from_us(13), &mut ports, Time::ZERO)
            .unwrap_err()
            .contains("counts"));
        let mut short = b.clone();
        short.used -= bytes(1);
        assert!(short
            .check_invariants(Time::from_us(13), &mut ports, Time::ZERO)
            .unwrap_err()
            .contains("less than"));
    }

    #[test]
    fn one_busy_port_gets_about_700_kb_of_a_4_mb_triumph() {
        // Packet n+1 joins while (n+1)·1500 ≤ α·(4e6 − n·1500), i.e. n ≤ 465.8: 466 packets,
        // 699,000 B (the continuous limit α·B/(1+α) = 700,000 B).
        let b = SharedBuffer::new(bytes(4_000_000), ALPHA);
        assert_eq!(fill(&b, 1), vec![699_000]);
        // The 467th: 700,500 > α·3,301,000 = 700,212: over the port's threshold.
        assert_eq!(b.admit(bytes(699_000), bytes(699_000), bytes(1500)), Err(Refusal::PortThreshold));
    }

    #[test]
    fn busy_ports_share_by_the_dynamic_threshold() {
        // k ports each converge to α·B/(1 + k·α): 595,745 B for 2, 459,016 B for 4, within
        // one packet.
        let b = SharedBuffer::new(bytes(4_000_000), ALPHA);
        for (k, share) in [(2usize, 595_745.0), (4, 459_016.0)] {
            for q in fill(&b, k) {
                assert!((q as f64 - share).abs() <= 1500.0, "{k} ports: {q} vs {share}");
            }
        }
    }

    #[test]
    fn pool_exhaustion_is_told_apart() {
        // With alpha large the per-port threshold never binds; the pool does.
        let b = SharedBuffer::new(bytes(10_000), 100.0);
        assert_eq!(b.admit(bytes(9_000), bytes(0), bytes(1500)), Err(Refusal::PoolFull));
        assert_eq!(b.admit(bytes(8_500), bytes(0), bytes(1500)), Ok(()));
    }
}
