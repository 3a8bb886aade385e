//! Connection lifetime: a connection whose work is done gives its state back (its slot, its
//! ICTCP entry) and keeps only its results row, so a long run of one-shot query rounds holds
//! the same state after 2,000 rounds as after 250. Stale timers and late packets of ended
//! connections must not disturb anything.

use dcsim::{Results, Scenario, Simulation};

/// `rounds` barrier rounds of 8 one-shot connections from host 0 (running ICTCP if `ictcp`)
/// to hosts 1-8, 16 KiB each, over an 85 kB drop-tail port; `sim` holds the [sim] fields.
fn one_shot(rounds: u32, ictcp: bool, sim: &str, limit_bytes: u32) -> Scenario {
    let ictcp = if ictcp { "[ictcp]\nhosts = [0]" } else { "" };
    let toml = format!(
        r#"
        [sim]
        {sim}
        [topology]
        kind = "star"
        hosts = 9
        [switch.buffer]
        kind = "per_port"
        limit_bytes = {limit_bytes}
        [switch.aqm]
        kind = "drop_tail"
        [tcp]
        cc = "newreno"
        rto_min_ms = 10.0
        {ictcp}
        [measure]
        queue_sample_us = 0
        [[queries]]
        client = 0
        servers = [1, 2, 3, 4, 5, 6, 7, 8]
        response_bytes = 16384
        rounds = {rounds}
        persistent = false
        "#
    );
    Scenario::from_toml(&toml).unwrap_or_else(|e| panic!("scenario does not parse: {e}"))
}

/// Runs `s`; returns the simulation (for its state counters) and the results.
fn run(s: &Scenario) -> (Simulation, Results) {
    let mut sim = Simulation::new(s).expect("scenario builds");
    let r = sim.run();
    (sim, r)
}

fn check_conservation(r: &Results) {
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "conservation {c:?}");
}

#[test]
fn state_after_2000_one_shot_ictcp_rounds_is_what_it_was_after_250() {
    // Each run stops at its last round's completion (sim.stop_when_queries_done). Then the
    // client has every response, but at least the connection whose response came last is
    // still waiting for its final ACK to reach the server, and at most the round's 8 are.
    // Before that, each round's connections ended one by one: none of the earlier rounds'
    // is left, whatever the count of rounds.
    let stop = "duration_s = 100.0\nstop_when_queries_done = true";
    let (short, rs) = run(&one_shot(250, true, stop, 85_000));
    let (long, rl) = run(&one_shot(2000, true, stop, 85_000));
    for (sim, r, rounds) in [(&short, &rs, 250), (&long, &rl, 2000)] {
        assert_eq!(r.queries.len(), rounds);
        assert!(r.queries.iter().all(|q| q.qct_s.is_finite()));
        // Every connection keeps its row, ids in order of creation: round q's are 8q..8q+7.
        assert_eq!(r.flows.len(), 8 * rounds);
        assert!(r
            .flows
            .iter()
            .enumerate()
            .all(|(i, f)| f.id == i as u32 && f.start_s == r.queries[i / 8].issued_s));
        let live = sim.live_connections();
        assert!((1..=8).contains(&live), "{live} connections live after {rounds} rounds");
        // Host 0 alone runs ICTCP: one entry per live connection, none for ended ones.
        assert_eq!(sim.ictcp_entries(), live);
        check_conservation(r);
    }
    // Slots are reused: the most open at once is a round's 8 plus those of the previous round
    // still waiting for their final ACK when the next round opens, however many rounds ran.
    // (Events per round are no measure of the work: rounds differ with the host jitter and
    // ICTCP's slot phase, by a few per cent; the work per event followed the tables' sizes.)
    assert_eq!(short.connection_slots(), long.connection_slots());
    assert!((8..=16).contains(&short.connection_slots()), "{} slots", short.connection_slots());
}

#[test]
fn every_one_shot_connection_ends_despite_losses_and_stale_timers() {
    // A 12 kB port overflows: 8 responses of 16 KiB at IW = 2 segments, 8 × 2 × 1,500 B =
    // 24 kB at once, lose packets, some at the tails, which wait for the RTO (10 ms).
    // Retransmissions, duplicate ACKs and RTO events that outlive their connections keep
    // arriving; all rounds are done well before the 2-s end, after which nothing is open.
    for ictcp in [false, true] {
        let (sim, r) = run(&one_shot(40, ictcp, "duration_s = 2.0", 12_000));
        assert_eq!(r.queries.len(), 40);
        assert!(r.queries.iter().all(|q| q.completed_s < 1.5), "ictcp = {ictcp}");
        let drops: u64 = r.ports.iter().map(|p| p.drops_buffer).sum();
        assert!(drops > 0 && r.flows.iter().any(|f| f.retransmits > 0), "ictcp = {ictcp}");
        if !ictcp {
            assert!(r.queries.iter().any(|q| q.timeouts > 0), "no timeout to leave a stale timer");
        }
        assert_eq!(sim.live_connections(), 0, "ictcp = {ictcp}");
        assert_eq!(sim.ictcp_entries(), 0);
        assert_eq!(r.conservation.in_flight, 0);
        check_conservation(&r);
    }
}

#[test]
fn bulk_flows_end_when_sent_and_their_samples_keep_their_final_state() {
    // Flow 0 sends 100 kB and ends; flow 1 stops writing at 10 ms and ends once its data is
    // acknowledged; flow 2 never stops. A flow that ended keeps appearing in the flow samples
    // with its final values, which are those of its results row.
    let toml = r#"
        [sim]
        duration_s = 0.05
        [topology]
        kind = "star"
        hosts = 4
        [ictcp]
        hosts = [0]
        [measure]
        flow_sample_us = 1000.0
        [[flows]]
        src = 1
        dst = 0
        bytes = 100000
        [[flows]]
        src = 2
        dst = 0
        stop_s = 0.01
        [[flows]]
        src = 3
        dst = 0
    "#;
    let (sim, r) = run(&Scenario::from_toml(toml).expect("parses"));
    assert_eq!(sim.live_connections(), 1, "only the unlimited flow is open");
    assert_eq!(sim.ictcp_entries(), 1);
    assert!(r.flows[0].completion_s < 0.02);
    let f = &r.flow_samples;
    assert_eq!(f.t_s.len(), 3 * 51, "a row per flow at 0, 1, ..., 50 ms, ended or not");
    for id in [0u32, 1] {
        let row = &r.flows[id as usize];
        let last = (0..f.t_s.len()).rev().find(|&k| f.flow[k] == id).expect("sampled");
        assert_eq!(f.delivered_bytes[last], row.bytes_delivered);
        assert_eq!(f.cwnd_bytes[last], row.final_cwnd_bytes);
        assert!(f.ictcp_rwnd_bytes[last] >= 2.0 * 1460.0, "its ICTCP window is still shown");
    }
    assert_eq!(r.flows[0].bytes_delivered, 100_000);
    check_conservation(&r);
}

#[test]
fn persistent_query_connections_stay_open() {
    // They serve every round, so none ends: 8 live connections, 8 ICTCP entries.
    let mut s = one_shot(20, true, "duration_s = 0.5", 85_000);
    s.queries[0].persistent = true;
    let (sim, r) = run(&s);
    assert_eq!(r.queries.len(), 20);
    assert_eq!(r.flows.len(), 8);
    assert_eq!(sim.live_connections(), 8);
    assert_eq!(sim.ictcp_entries(), 8);
}
