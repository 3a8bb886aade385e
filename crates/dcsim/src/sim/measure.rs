//! Measurement: the time series the run samples (queues, shared memories, flows, ICTCP) and
//! the assembly of its results from the parts' state at the end (the packet traces are
//! recorded by the fabric, where packets cross links). It observes the other parts and
//! changes none of their behaviour.

use super::calendar::Calendar;
use super::conns::{Conns, FlowRecord, IctcpView};
use super::fabric::Fabric;
use super::hosts::Hosts;
use super::Event;
use crate::ids::{ConnId, PortId};
use crate::results::{ClassStats, Conservation, FlowSamples, FlowStats, IctcpSamples, PoolSamples, PortStats, QueueSamples, SwitchStats};
use crate::tcp::Endpoint;
use crate::units::Time;

#[derive(Clone)]
pub(super) struct Measurement {
    queue_sample_every: Time,
    sampled_ports: Vec<PortId>,
    flow_sample_every: Time,
    queue_samples: QueueSamples,
    pool_samples: PoolSamples,
    flow_samples: FlowSamples,
    ictcp_samples: IctcpSamples,
    /// In a partition of a parallel run: by `NodeId`, whether it simulates the node (it
    /// samples those nodes' ports and memories only).
    pub(super) owned_nodes: Option<Vec<bool>>,
}

impl Measurement {
    pub(super) fn new(queue_sample_us: f64, sampled_ports: Vec<PortId>, flow_sample_us: f64) -> Self {
        Measurement {
            queue_sample_every: Time::from_us_f64(queue_sample_us),
            sampled_ports,
            flow_sample_every: Time::from_us_f64(flow_sample_us),
            queue_samples: QueueSamples::default(),
            pool_samples: PoolSamples::default(),
            flow_samples: FlowSamples::default(),
            ictcp_samples: IctcpSamples::default(),
            owned_nodes: None,
        }
    }

    /// Puts the first samples in the calendar, at the end of the warm-up: queues when ports
    /// are sampled, flows when `flows_to_sample` (connections exist or may open, or a
    /// receive-window policy sees UDP).
    pub(super) fn schedule_first(&self, warmup: Time, flows_to_sample: bool, cal: &mut Calendar<Event>) {
        if self.queue_sample_every > Time::ZERO && !self.sampled_ports.is_empty() {
            cal.schedule(warmup, Event::QueueSample);
        }
        if self.flow_sample_every > Time::ZERO && flows_to_sample {
            cal.schedule(warmup, Event::FlowSample);
        }
    }

    /// Samples the sampled ports' queues and every shared memory, and schedules the next.
    pub(super) fn sample_queues(&mut self, now: Time, warmup: Time, fabric: &mut Fabric, cal: &mut Calendar<Event>) {
        let t = now.as_secs_f64();
        let owned = |node: crate::ids::NodeId| self.owned_nodes.as_ref().is_none_or(|o| o[node]);
        for &p in &self.sampled_ports {
            let port = &mut fabric.ports[p];
            if !owned(port.node) {
                continue;
            }
            self.queue_samples.port.push(p.0);
            self.queue_samples.t_s.push(t);
            self.queue_samples.packets.push(port.occupancy_packets(now, warmup));
            self.queue_samples.bytes.push(port.occupancy_bytes(now, warmup).as_u64());
        }
        let first_switch = fabric.host_port.len();
        for (i, node) in fabric.nodes.iter_mut().filter(|n| n.is_switch).enumerate() {
            if !owned(crate::ids::NodeId::at(first_switch + i)) {
                continue;
            }
            if let Some(shared) = &mut node.shared {
                self.pool_samples.switch.push(i as u32);
                self.pool_samples.t_s.push(t);
                let used = shared.used_at(now, &mut fabric.ports, warmup);
                self.pool_samples.bytes.push(used.as_u64());
            }
        }
        cal.schedule(now + self.queue_sample_every, Event::QueueSample);
    }

    /// Samples every connection and every host's ICTCP state, and schedules the next.
    pub(super) fn sample_flows(&mut self, now: Time, conns: &Conns, hosts: &mut Hosts, cal: &mut Calendar<Event>) {
        let t = now.as_secs_f64();
        for i in conns.ids() {
            let record = flow_record(conns, hosts, i);
            record.sample(i, t, &mut self.flow_samples);
        }
        for (h, policy) in hosts.policies.iter_mut().enumerate() {
            if let Some(i) = policy.as_mut().and_then(|p| p.ictcp_mut()) {
                i.advance(now);
                let f = &mut self.ictcp_samples;
                f.host.push(h as u32);
                f.t_s.push(t);
                f.bw_t_bps.push(i.bw_t_bps);
                f.bw_a_bps.push(i.bw_a_bps);
                f.quota_bps.push(if i.in_second_subslot() { i.quota_bps() } else { f64::NAN });
                f.subslot_s.push(i.subslot().as_secs_f64());
            }
        }
        cal.schedule(now + self.flow_sample_every, Event::FlowSample);
    }

    /// Joins the queue and memory samples of a parallel run's partitions (which all sampled
    /// at the same times, each its own ports and memories) into the rows a whole run
    /// records: by time, then ports in sampled order and switches in order.
    pub(super) fn join(&mut self, parts: Vec<Measurement>, fabric: &Fabric) {
        let mut rank = vec![usize::MAX; fabric.ports.len()];
        for (j, &p) in self.sampled_ports.iter().enumerate() {
            rank[p.0 as usize] = j;
        }
        let mut queue: Vec<(f64, usize, u32, u32, u64)> = Vec::new();
        let mut pool: Vec<(f64, u32, u64)> = Vec::new();
        for m in parts {
            let q = m.queue_samples;
            for i in 0..q.port.len() {
                queue.push((q.t_s[i], rank[q.port[i] as usize], q.port[i], q.packets[i], q.bytes[i]));
            }
            let p = m.pool_samples;
            pool.extend((0..p.switch.len()).map(|i| (p.t_s[i], p.switch[i], p.bytes[i])));
        }
        queue.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        pool.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let q = &mut self.queue_samples;
        for (t, _, port, packets, bytes) in queue {
            q.t_s.push(t);
            q.port.push(port);
            q.packets.push(packets);
            q.bytes.push(bytes);
        }
        let p = &mut self.pool_samples;
        for (t, switch, bytes) in pool {
            p.t_s.push(t);
            p.switch.push(switch);
            p.bytes.push(bytes);
        }
    }

    /// Moves the samples and the packet traces (`fabric`'s) into `results`.
    pub(super) fn take_series(&mut self, fabric: &mut Fabric, results: &mut crate::results::Results) {
        results.queue_samples = std::mem::take(&mut self.queue_samples);
        results.trace = std::mem::take(&mut fabric.tracer.records);
        results.pool_samples = std::mem::take(&mut self.pool_samples);
        results.flow_samples = std::mem::take(&mut self.flow_samples);
        results.ictcp_samples = std::mem::take(&mut self.ictcp_samples);
    }
}

/// The record of connection `id`: made from its state while it lives, kept once it ended.
pub(super) fn flow_record(conns: &Conns, hosts: &Hosts, id: ConnId) -> FlowRecord {
    let Some(c) = conns.get(id) else {
        return conns.ended(id).expect("a connection ended or not").clone();
    };
    let d = c.data_sender();
    let (tx, rx) = (&c.ends[d], &c.ends[1 - d]);
    let ictcp = c.policy[1 - d].and_then(|k| {
        let policy = hosts.policies[c.hosts[1 - d]].as_ref().expect("attached");
        policy.ictcp().map(|i| IctcpView::of(i.conn(k)))
    });
    FlowRecord {
        workload: c.query.as_ref().map(|q| q.workload.0),
        generator: c.generator,
        bytes: c.bytes,
        class: c.class,
        rcv_buffer: rx.params().rcv_autotune_max.is_none().then_some(rx.params().rcv_buffer),
        rcv_buffer_end: rx.rcv_buffer(),
        src: c.hosts[d],
        dst: c.hosts[1 - d],
        cc: c.cc,
        start: c.start,
        established: tx.established_at(),
        setup: c.ends[0].established_at(),
        failed: c.ends.iter().any(Endpoint::failed),
        completion: c.completion,
        delivered: rx.delivered(),
        delivered_at_warmup: c.delivered_at_warmup,
        at_warmup: c.at_warmup,
        counters: c.ends[0].counters().plus(&c.ends[1].counters()),
        cwnd: tx.cwnd(),
        alpha: tx.alpha(),
        srtt: tx.srtt(),
        ictcp,
    }
}

/// Every packet hosts sent (`injected`), by where it is now: delivered, dropped by a port,
/// or in flight (on a port, or held by a host's NIC before its stack takes it).
pub(super) fn conservation(injected: u64, delivered: u64, fabric: &Fabric, hosts: &Hosts) -> Conservation {
    Conservation {
        injected,
        delivered,
        dropped: fabric.dropped_packets(),
        in_flight: hosts.held() + fabric.in_flight(),
    }
}

/// The ports' rows of the results, over the measurement window from `warmup` to `end`.
pub(super) fn port_stats(fabric: &mut Fabric, end: Time, warmup: Time) -> Vec<PortStats> {
    let window = (end - warmup).as_secs_f64();
    let mut ports = Vec::with_capacity(fabric.ports.len());
    for port in &mut fabric.ports {
        port.close(end, warmup);
        let queued_at_end = port.occupancy_packets(end, warmup) as u64;
        let c = &port.counters;
        let mut hist: Vec<f64> = c.occupancy.iter().map(|t| t.as_secs_f64()).collect();
        while hist.len() > 1 && hist.last() == Some(&0.0) {
            hist.pop();
        }
        let total: f64 = hist.iter().sum();
        let mean_packets = if total > 0.0 {
            hist.iter().enumerate().map(|(n, t)| n as f64 * t).sum::<f64>() / total
        } else {
            0.0
        };
        ports.push(PortStats {
            name: port.name.clone(),
            node: fabric.nodes[port.node].name.clone(),
            peer: fabric.nodes[port.peer].name.clone(),
            is_switch: port.is_switch,
            rate_bps: port.rate.bps() as f64,
            arrived_packets: c.arrived,
            enqueued_packets: c.enqueued,
            sent_packets: c.sent_packets,
            sent_bytes: c.sent_bytes,
            drops_buffer: c.drops_buffer,
            drops_pool: c.drops_pool,
            drops_aqm: c.drops_aqm,
            drops_dequeue: c.drops_dequeue,
            drops_nonect: c.drops_by_kind.nonect,
            drops_syn: c.drops_by_kind.syn,
            drops_ack: c.drops_by_kind.ack,
            drops_retransmit: c.drops_by_kind.retransmit,
            marks: c.marks,
            drops_after_warmup: c.drops() - c.drops_at_warmup,
            marks_after_warmup: c.marks - c.marks_at_warmup,
            queued_at_end,
            max_packets: c.max_packets,
            max_bytes: c.max_bytes.as_u64(),
            mean_packets,
            mean_bytes: c.byte_ps as f64 / (end - warmup).as_ps() as f64,
            utilization: c.busy.as_secs_f64() / window,
            occupancy_time_s: hist,
        });
    }
    ports
}

/// The class queues' counters, port by port.
pub(super) fn class_stats(fabric: &Fabric) -> Vec<ClassStats> {
    let mut rows = Vec::new();
    for (p, port) in fabric.ports.iter().enumerate() {
        let Some(d) = port.discipline() else { continue };
        for (class, c) in d.class_counters().into_iter().enumerate() {
            rows.push(ClassStats {
                port: p as u32,
                class: class as u8,
                arrived_packets: c.arrived,
                enqueued_packets: c.enqueued,
                sent_packets: c.sent_packets,
                sent_bytes: c.sent_bytes,
                drops_buffer: c.drops_buffer,
                drops_aqm: c.drops_aqm,
                marks: c.marks,
                max_packets: c.max_packets,
            });
        }
    }
    rows
}

/// The switches' rows: their shared memories, if any.
pub(super) fn switch_stats(fabric: &Fabric) -> Vec<SwitchStats> {
    fabric
        .nodes
        .iter()
        .filter(|n| n.is_switch)
        .map(|n| SwitchStats {
            name: n.name.clone(),
            shared_bytes: n.shared.as_ref().map_or(0, |s| s.total.as_u64()),
            alpha: n.shared.as_ref().map_or(0.0, |s| s.alpha),
            max_used_bytes: n.shared.as_ref().map_or(0, |s| s.max_used.as_u64()),
        })
        .collect()
}

/// The flows' rows: each connection's record over a window of `window` seconds, with its
/// completion time alone on the idle network from `ideal`.
pub(super) fn flow_stats(conns: &Conns, hosts: &Hosts, window: f64, mut ideal: impl FnMut(&FlowRecord) -> Option<Time>) -> Vec<FlowStats> {
    conns
        .ids()
        .map(|i| {
            let r = flow_record(conns, hosts, i);
            let ideal = ideal(&r);
            r.stats(i, window, ideal)
        })
        .collect()
}
