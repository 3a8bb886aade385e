//! Tests of the results tables.

use super::*;

fn column<'a>(table: &'a Table, name: &str) -> &'a Column {
    &table.iter().find(|(n, _)| *n == name).unwrap().1
}

#[test]
fn take_tables_unnests_the_histograms_and_sorts_the_trace() {
    let port = |name: &str, hist: Vec<f64>| PortStats {
        name: name.into(),
        occupancy_time_s: hist,
        ..Default::default()
    };
    let mut results = Results {
        ports: vec![port("s0->h0", vec![0.5, 0.25]), port("h0->s0", vec![1.0])],
        flows: vec![
            FlowStats {
                workload: Some(3),
                ..Default::default()
            },
            FlowStats::default(),
        ],
        trace: PacketTrace {
            view: vec![0; 3],
            t_s: vec![2.0, 1.0, 1.0],
            port: vec![0; 3],
            event: vec![0; 3],
            flow: vec![0; 3],
            from_end: vec![0; 3],
            src: vec![0; 3],
            dst: vec![0; 3],
            flags: vec![0; 3],
            ecn: vec![0; 3],
            seq: vec![0, 1, 2],
            ack: vec![0; 3],
            rwnd: vec![0; 3],
            len: vec![0; 3],
            size: vec![0; 3],
            sack_blocks: vec![0, 1, 2],
            sack: vec![[0; 6], [1, 2, 0, 0, 0, 0], [3, 4, 5, 6, 0, 0]],
        },
        ..Default::default()
    };
    let tables = results.take_tables();
    let names: Vec<_> = tables.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "ports",
            "classes",
            "switches",
            "flows",
            "queries",
            "queue_occupancy",
            "queue_samples",
            "pool_samples",
            "flow_samples",
            "ictcp_samples",
            "udp",
            "probes",
            "trace"
        ]
    );
    let table = |name: &str| &tables.iter().find(|(n, _)| *n == name).unwrap().1;
    let ports = table("ports");
    assert_eq!(ports.len(), 26, "every PortStats field but the histogram");
    assert!(ports.iter().all(|(n, c)| *n != "occupancy_time_s" && c.len() == 2));
    assert_eq!(column(ports, "name"), &Column::Str(vec!["s0->h0".into(), "h0->s0".into()]));
    let occupancy = table("queue_occupancy");
    assert_eq!(column(occupancy, "port"), &Column::U32(vec![0, 0, 1]));
    assert_eq!(column(occupancy, "packets"), &Column::U32(vec![0, 1, 0]));
    assert_eq!(column(occupancy, "seconds"), &Column::F64(vec![0.5, 0.25, 1.0]));
    assert_eq!(column(table("flows"), "workload"), &Column::OptU32(vec![Some(3), None]));
    let trace = table("trace");
    assert_eq!(column(trace, "t_s"), &Column::F64(vec![1.0, 1.0, 2.0]));
    assert_eq!(column(trace, "seq"), &Column::U64(vec![1, 2, 0]));
    assert_eq!(column(trace, "sack_blocks"), &Column::U8(vec![1, 2, 0]));
    let sack: Vec<u64> = [[1, 2, 0, 0, 0, 0], [3, 4, 5, 6, 0, 0], [0; 6]].concat();
    assert_eq!(column(trace, "sack"), &Column::U64Rows { width: 6, values: sack });
    assert!(results.ports.is_empty() && results.trace.t_s.is_empty(), "tables moved out");
}
