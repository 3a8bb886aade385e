//! The invariant-checking mode (`sim.check_invariants`, `dcsim run --check-invariants`): after
//! every event, that time never goes back and no event waits in the past; and in a pass over
//! the whole network, that packets are conserved end to end and at every port, that each
//! queue's count is the packets it holds, that shared memory balances, and that every
//! connection's sequence space is ordered, only moves forward, and keeps its windows within
//! their bounds. A violation is an engine bug: the run stops with a panic that says what,
//! where and when.
//!
//! In a partition of a parallel run, packets are conserved within the partition, counting
//! those that came in and left across the cut.
//!
//! A pass costs one visit of every port and connection. It runs after every event while the
//! network has at most 16 ports and connections, and every (ports + connections) / 16
//! events beyond, so that checking slows a run by a bounded factor whatever its size.

use super::Simulation;
use crate::units::Time;

/// What the checks remember between events.
#[derive(Debug, Default, Clone)]
pub(super) struct InvariantChecker {
    /// Time of the last event.
    last: Time,
    /// Events since the last pass.
    since_pass: u64,
    /// Per connection id, per end: (snd_una, rcv_nxt) at the last pass.
    progress: Vec<[(u64, u64); 2]>,
}

impl Simulation {
    /// After each event, in the invariant-checking mode.
    pub(super) fn check_invariants(&mut self) {
        let Some(mut checker) = self.checker.take() else { return };
        if let Err(what) = checker.after_event(self) {
            panic!(
                "invariant violated at t = {} ps, after event {}: {what}",
                self.now.as_ps(),
                self.events
            );
        }
        self.checker = Some(checker);
    }
}

impl InvariantChecker {
    fn after_event(&mut self, sim: &mut Simulation) -> Result<(), String> {
        if sim.now < self.last {
            return Err(format!("an event at {} ran after one at {}", sim.now, self.last));
        }
        self.last = sim.now;
        if let Some(t) = sim.cal.peek_time().filter(|&t| t < sim.now) {
            return Err(format!("an event is due at {t}, in the past"));
        }
        self.since_pass += 1;
        let period = ((sim.fabric.ports.len() + sim.conns.live()) / 16).max(1) as u64;
        if self.since_pass >= period {
            self.since_pass = 0;
            self.pass(sim)?;
        }
        Ok(())
    }

    /// One visit of every port, shared memory and connection.
    fn pass(&mut self, sim: &mut Simulation) -> Result<(), String> {
        let (now, ws) = (sim.now, sim.warmup);
        let c = sim.conservation();
        // In a partition of a parallel run, packets also come in and leave across the cut; a
        // packet that left stays on its port, headerless, until it has arrived.
        let (received, crossed, left_on_ports) = sim.fabric.cut_balance();
        if c.injected + received != c.delivered + c.dropped + crossed + c.in_flight - left_on_ports {
            return Err(format!(
                "{} packets sent and {received} received across the cut, but {} delivered, {} dropped, {crossed} sent \
                 across the cut and {} in flight",
                c.injected,
                c.delivered,
                c.dropped,
                c.in_flight - left_on_ports
            ));
        }
        let on_ports = sim.fabric.in_flight() - left_on_ports;
        if on_ports != sim.fabric.headers.in_network() as u64 {
            return Err(format!(
                "{on_ports} packets on ports but {} headers in the network",
                sim.fabric.headers.in_network()
            ));
        }
        let fabric = &mut sim.fabric;
        for port in &mut fabric.ports {
            port.check_invariants(now, ws).map_err(|e| format!("port {}: {e}", port.name))?;
        }
        for node in &mut fabric.nodes {
            if let Some(shared) = &mut node.shared {
                shared
                    .check_invariants(now, &mut fabric.ports, ws)
                    .map_err(|e| format!("shared memory of {}: {e}", node.name))?;
            }
        }
        if self.progress.len() < sim.conns.len() {
            self.progress.resize(sim.conns.len(), [(0, 0); 2]);
        }
        for id in sim.conns.ids() {
            let Some(conn) = sim.conns.get(id) else { continue };
            for (e, end) in conn.ends.iter().enumerate() {
                end.check_invariants().map_err(|w| format!("connection {id}, end {e}: {w}"))?;
                let (una, nxt) = self.progress[id][e];
                if end.snd_una() < una || end.rcv_nxt() < nxt {
                    return Err(format!(
                        "connection {id}, end {e}: snd_una {una} → {}, rcv_nxt {nxt} → {} went back",
                        end.snd_una(),
                        end.rcv_nxt()
                    ));
                }
                self.progress[id][e] = (end.snd_una(), end.rcv_nxt());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    fn two_flows() -> Simulation {
        let toml = "[sim]\nduration_s = 0.002\ncheck_invariants = true\n[topology]\nkind = \"star\"\nhosts = 3\n\
                    [[flows]]\nsrc = 1\ndst = 0\n[[flows]]\nsrc = 2\ndst = 0\n";
        let mut sim = Simulation::new(&Scenario::from_toml(toml).unwrap()).unwrap();
        let _ = sim.run();
        sim
    }

    #[test]
    fn a_whole_pass_catches_a_lost_packet_and_a_connection_going_back() {
        let mut sim = two_flows();
        let mut checker = InvariantChecker::default();
        checker.pass(&mut sim).expect("a finished run holds every invariant");
        sim.injected += 1;
        assert!(checker.pass(&mut sim).unwrap_err().contains("packets sent"));
        sim.injected -= 1;
        let end = &mut sim.conns.get_mut(crate::ids::ConnId(0)).unwrap().ends[1];
        end.set_rcv_nxt(end.rcv_nxt() - 1);
        end.set_delivered(end.delivered().min(end.rcv_nxt()));
        assert!(checker.pass(&mut sim).unwrap_err().contains("went back"));
    }

    #[test]
    #[should_panic(expected = "an event is due at")]
    fn an_event_in_the_past_stops_the_run() {
        let mut sim = two_flows();
        sim.cal.schedule(sim.now - Time::from_ps(1), super::super::Event::QueueSample);
        sim.check_invariants();
    }
}
