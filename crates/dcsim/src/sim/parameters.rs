//! What a run ran with, recorded beside its results: the scenario's tables as the engine
//! read them (the stack profile applied, every default filled in) and the values the engine
//! derived when it built the network (DCTCP's K by port rate, each port's buffer limit, each
//! switch's shared memory), so that a result can be reproduced from its own output.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::net::aqm::Aqm;
use crate::net::port::Port;
use crate::net::topology::Network;
use crate::scenario::Scenario;

/// The record of `s` built as `net`. The workload lists (`flows`, `queries`, `traffic`,
/// `udp`) are left out: they are the input as given, and may be long.
pub(super) fn record(s: &Scenario, net: &Network) -> Value {
    let tables = json!({
        "name": s.name,
        "sim": s.sim,
        "topology": s.topology,
        "switch": s.switch,
        "host": s.host,
        "tcp": s.tcp,
        "ictcp": s.ictcp,
        "measure": s.measure,
    });
    json!({
        "scenario": tables,
        "segment_bytes": s.tcp.segment_bytes(),
        "packet_bytes": s.tcp.packet_bytes(),
        "ports": port_groups(&net.ports),
        "shared_memory": memory_groups(net),
    })
}

/// Ports alike in every setting, as one entry each: how many, the first one's name, and the
/// settings (a limit the port does not have is null). A host NIC's rate is its link's off by
/// the host's clock error (`host.clock_ppm`, drawn from the seed), so NICs are grouped without
/// it and their entry gives the lowest and highest. Grouped by plain values, so that a large
/// network's record costs a few operations per port.
fn port_groups(ports: &[Port]) -> Vec<Value> {
    type Key = (bool, u64, u64, u64, u32, u64, (u8, [u64; 5]));
    // Per group: ports, the first port's index, the lowest and highest rate (bit/s).
    let mut groups: BTreeMap<Key, (u64, usize, u64, u64)> = BTreeMap::new();
    for (i, p) in ports.iter().enumerate() {
        let rate = p.rate.bps();
        let key = (
            p.is_switch,
            if p.is_switch { rate } else { 0 },
            p.delay.as_ps(),
            p.framing.as_u64(),
            p.limit_packets,
            p.limit_bytes.as_u64(),
            aqm_key(&p.aqm),
        );
        let g = groups.entry(key).or_insert((0, i, rate, rate));
        g.0 += 1;
        g.2 = g.2.min(rate);
        g.3 = g.3.max(rate);
    }
    let mut out: Vec<(u64, usize, u64, u64)> = groups.into_values().collect();
    out.sort_by_key(|g| g.1);
    out.into_iter()
        .map(|(count, first, lowest, highest)| {
            let p = &ports[first];
            let limit_bytes = p.limit_bytes.as_u64();
            let mut settings = json!({
                "switch": p.is_switch,
                "delay_us": p.delay.as_secs_f64() * 1e6,
                "framing_bytes": p.framing.as_u64(),
                "limit_packets": (p.limit_packets != u32::MAX).then_some(p.limit_packets),
                "limit_bytes": (limit_bytes != u64::MAX).then_some(limit_bytes),
                "aqm": aqm(&p.aqm),
                "ports": count,
                "first_port": p.name,
            });
            let gbps = |bps: u64| bps as f64 / 1e9;
            if p.is_switch {
                settings["rate_gbps"] = json!(gbps(lowest));
            } else {
                settings["rate_gbps_min"] = json!(gbps(lowest));
                settings["rate_gbps_max"] = json!(gbps(highest));
            }
            settings
        })
        .collect()
}

/// An AQM's settings as plain values, to group ports by (its running state left out).
fn aqm_key(a: &Aqm) -> (u8, [u64; 5]) {
    match a {
        Aqm::DropTail => (0, [0; 5]),
        Aqm::Threshold(t) => (
            1,
            [
                t.k_packets as u64,
                t.at_dequeue as u64,
                t.count_in_service as u64,
                t.nonect as u64,
                0,
            ],
        ),
        Aqm::Red(r) => (
            2,
            [
                r.min_th.to_bits(),
                r.max_th.to_bits(),
                r.max_p.to_bits(),
                r.w_q.to_bits(),
                r.ecn as u64 | (r.gentle as u64) << 1,
            ],
        ),
        Aqm::Pi(p) => (3, [p.a.to_bits(), p.b.to_bits(), p.q_ref.to_bits(), p.period.as_ps(), p.ecn as u64]),
    }
}

/// An AQM as it runs on a port (K resolved from the port's rate when the scenario left it out).
fn aqm(a: &Aqm) -> Value {
    match a {
        Aqm::DropTail => json!({"kind": "drop_tail"}),
        Aqm::Threshold(t) => json!({
            "kind": "threshold",
            "k_packets": t.k_packets,
            "at": if t.at_dequeue { "dequeue" } else { "enqueue" },
            "count_in_service": t.count_in_service,
            "nonect": t.nonect,
        }),
        Aqm::Red(r) => json!({
            "kind": "red", "min_th": r.min_th, "max_th": r.max_th, "max_p": r.max_p, "w_q": r.w_q,
            "ecn": r.ecn, "gentle": r.gentle,
        }),
        Aqm::Pi(p) => json!({
            "kind": "pi", "a": p.a, "b": p.b, "q_ref": p.q_ref, "period_us": p.period.as_secs_f64() * 1e6, "ecn": p.ecn,
        }),
    }
}

/// Switches' shared memories alike in size and dynamic-threshold α, as one entry each.
fn memory_groups(net: &Network) -> Vec<Value> {
    let mut groups: Vec<(u64, f64, u64, &str)> = Vec::new();
    for n in &net.nodes {
        if let Some(m) = &n.shared {
            let (bytes, alpha) = (m.total.as_u64(), m.alpha);
            match groups.iter_mut().find(|g| (g.0, g.1) == (bytes, alpha)) {
                Some(g) => g.2 += 1,
                None => groups.push((bytes, alpha, 1, &n.name)),
            }
        }
    }
    groups
        .into_iter()
        .map(|(bytes, alpha, count, first)| json!({"bytes": bytes, "alpha": alpha, "switches": count, "first_switch": first}))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::{Scenario, Simulation};

    #[test]
    fn the_record_says_which_k_and_which_buffer_ran() {
        // A 1 Gbps star and a 10 Gbps one: K left out is 20 and 65 packets (DCTCP paper §3.5).
        for (rate, k) in [(1.0, 20), (10.0, 65)] {
            let s = Scenario::from_toml(&format!(
                "[sim]\nduration_s = 0.001\n[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate_gbps = {rate} }}\n\
                 [switch]\naqm = {{ kind = \"threshold\" }}\n[tcp]\ncc = \"dctcp\"\nprofile = \"linux_2_6_3x\"\n"
            ))
            .expect("valid");
            let p = Simulation::new(&s).expect("builds").parameters().clone();
            let switch: Vec<_> = p["ports"].as_array().unwrap().iter().filter(|g| g["switch"] == true).collect();
            assert_eq!(switch.len(), 1, "{p}");
            assert_eq!(switch[0]["aqm"]["k_packets"], k);
            assert_eq!(switch[0]["ports"], 3);
            // The default buffer is the Triumph preset: its memory and α, its ports unlimited alone.
            assert_eq!(p["shared_memory"][0]["switches"], 1);
            assert!(switch[0]["limit_bytes"].is_null());
            // The profile's fields are filled in.
            assert_eq!(p["scenario"]["tcp"]["profile"], "linux_2_6_3x");
            assert_eq!(
                p["packet_bytes"],
                p["segment_bytes"].as_u64().unwrap() + p["scenario"]["tcp"]["header_bytes"].as_u64().unwrap()
            );
        }
    }
}
