//! One run across threads: a cut network's results are byte-identical at any thread count,
//! the cut follows the topology, runs that cannot be cut say why, and a cut run simulates the
//! same network as a whole one (the same flows drawn, one flow alone timed alike).

use dcsim::{Results, Scenario, Simulation};

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml(toml).unwrap_or_else(|e| panic!("{e}"))
}

fn run_on(s: &Scenario, threads: usize) -> (Results, Simulation) {
    let mut sim = Simulation::new(s).unwrap_or_else(|e| panic!("{e}"));
    sim.set_threads(threads);
    let r = sim.run();
    (r, sim)
}

const FABRIC: &str = "[switch]\nbuffer = { kind = \"per_port\", limit_packets = 100 }\naqm = { kind = \"threshold\", k_packets = 15 }\n[tcp]\ncc = \"dctcp\"\n";

/// A k = 4 fat-tree at 10 Gb/s with 1 µs links, web-search flows at 60% load.
fn fat_tree_web_search(k: u32, seconds: f64) -> Scenario {
    scenario(&format!(
        "[sim]\nduration_s = {seconds}\n[topology]\nkind = \"fat_tree\"\nk = {k}\nlink = {{ rate_gbps = 10.0, delay_us = 1.0 }}\n{FABRIC}\
         [measure]\nqueue_sample_us = 100.0\n[[traffic]]\nsize = {{ kind = \"web_search\" }}\narrival = {{ kind = \"poisson\", load = 0.6 }}\n"
    ))
}

/// Long flows from each host `h` to `(h + shift) mod hosts`.
fn shifted_flows(hosts: u32, shift: u32) -> String {
    (0..hosts)
        .map(|h| format!("[[flows]]\nsrc = {h}\ndst = {}\n", (h + shift) % hosts))
        .collect()
}

fn same_at_1_2_3_threads(s: &Scenario) -> Results {
    let (one, sim) = run_on(s, 1);
    assert!(sim.why_one_thread().is_none(), "{:?}", sim.why_one_thread());
    let stats = sim.parallel_stats().expect("a cut run");
    assert!(stats.partitions > 1 && stats.crossings > 0 && stats.windows > 0, "{stats:?}");
    let dump = one.to_json();
    for threads in [2, 3] {
        let (r, sim) = run_on(s, threads);
        assert_eq!(sim.parallel_stats().expect("a cut run").threads, threads.min(stats.partitions));
        assert!(r.to_json() == dump, "{threads} threads differ from one");
    }
    one
}

#[test]
fn fat_tree_web_search_is_identical_at_any_thread_count() {
    let r = same_at_1_2_3_threads(&fat_tree_web_search(4, 0.01));
    assert!(r.flows.len() > 50, "{} flows", r.flows.len());
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
    assert!(!r.queue_samples.t_s.is_empty());
}

#[test]
fn fat_tree_permutation_and_leaf_spine_are_identical_at_any_thread_count() {
    let ft = scenario(&format!(
        "[sim]\nduration_s = 0.003\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink = {{ rate_gbps = 10.0, delay_us = 1.0 }}\n{FABRIC}{}",
        shifted_flows(16, 5)
    ));
    let r = same_at_1_2_3_threads(&ft);
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
    let ls = scenario(&format!(
        "[sim]\nduration_s = 0.003\n[topology]\nkind = \"leaf_spine\"\nleaves = 4\nspines = 2\nhosts_per_leaf = 4\n\
         host_link = {{ rate_gbps = 10.0, delay_us = 1.0 }}\nuplink = {{ rate_gbps = 10.0, delay_us = 2.0 }}\n{FABRIC}{}",
        shifted_flows(16, 3)
    ));
    same_at_1_2_3_threads(&ls);
}

#[test]
fn a_graph_is_cut_as_listed() {
    let g = scenario(&format!(
        "[sim]\nduration_s = 0.003\n[topology]\nkind = \"graph\"\nhosts = 4\nswitches = [\"a\", \"b\"]\n\
         link = {{ rate_gbps = 10.0, delay_us = 5.0 }}\npartitions = [[\"a\"], [\"b\"]]\n\
         links = [{{ a = \"h0\", b = \"a\" }}, {{ a = \"h1\", b = \"a\" }}, {{ a = \"h2\", b = \"b\" }}, {{ a = \"h3\", b = \"b\" }}, {{ a = \"a\", b = \"b\" }}]\n\
         {FABRIC}{}",
        shifted_flows(4, 2)
    ));
    same_at_1_2_3_threads(&g);
    let mut no_delay = g.clone();
    if let dcsim::scenario::Topology::Graph { links, .. } = &mut no_delay.topology {
        links[4].delay_us = Some(0.0);
    }
    let (_, sim) = run_on(&no_delay, 2);
    let why = sim.why_one_thread();
    assert!(why.is_some_and(|w| w.contains("a->b across the cut has no delay")), "{why:?}");
    let (_, sim) = run_on(&g, 2);
    let stats = sim.parallel_stats().expect("cut");
    assert_eq!(stats.partitions, 2);
    // The lookahead: the cut link's 5 µs and a 78-byte frame at 10 Gb/s (62.4 ns).
    assert_eq!(stats.lookahead.as_ps(), 5_000_000 + 62_400);
}

#[test]
fn runs_that_cannot_be_cut_say_why_and_use_one_thread() {
    let star = scenario("[sim]\nduration_s = 0.001\n[topology]\nkind = \"star\"\nhosts = 3\n[[flows]]\nsrc = 1\ndst = 0\n");
    let (_, sim) = run_on(&star, 4);
    assert!(sim.why_one_thread().is_some_and(|w| w.contains("not cut")));
    assert!(sim.parallel_stats().is_none());
    let mut sampled = fat_tree_web_search(4, 0.001);
    sampled.measure.flow_sample_us = 100.0;
    let (_, sim) = run_on(&sampled, 2);
    assert!(
        sim.why_one_thread().is_some_and(|w| w.contains("flow samples")),
        "{:?}",
        sim.why_one_thread()
    );
}

#[test]
fn a_cut_run_draws_the_flows_a_whole_run_draws_and_times_a_lone_flow_alike() {
    let s = fat_tree_web_search(4, 0.01);
    let (cut, _) = run_on(&s, 2);
    let mut sim = Simulation::new(&s).expect("valid");
    sim.keep_whole();
    let whole = sim.run();
    let key = |r: &Results| {
        let mut v: Vec<(u64, u32, u32, u64)> = r.flows.iter().map(|f| (f.start_s.to_bits(), f.src, f.dst, f.size_bytes)).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(key(&cut), key(&whole));
    // One flow across pods: nothing else happens at its events' instants, so cut and whole
    // runs give it the same timeline to the picosecond.
    let lone = scenario(&format!(
        "[sim]\nduration_s = 0.01\n[topology]\nkind = \"fat_tree\"\nk = 4\nlink = {{ rate_gbps = 10.0, delay_us = 1.0 }}\n{FABRIC}\
         [[flows]]\nsrc = 0\ndst = 15\nbytes = 2000000\n"
    ));
    let (cut, _) = run_on(&lone, 2);
    let mut sim = Simulation::new(&lone).expect("valid");
    sim.keep_whole();
    let whole = sim.run();
    assert!(cut.flows[0].fct_s > 0.0);
    assert_eq!(cut.flows[0].fct_s, whole.flows[0].fct_s);
    assert_eq!(cut.flows[0].data_packets_sent, whole.flows[0].data_packets_sent);
    assert_eq!(cut.packet_hops, whole.packet_hops);
}

/// One long flow per host to a destination drawn as a seeded random cyclic permutation, as
/// `make bench` does.
fn permutation_flows(hosts: u32) -> String {
    let dst = dcsim::sim::traffic::cyclic_permutation(hosts, 1);
    (0..hosts)
        .map(|h| format!("[[flows]]\nsrc = {h}\ndst = {}\n", dst[h as usize]))
        .collect()
}

#[test]
fn the_bench_fat_trees_are_identical_at_any_thread_count() {
    let fat_tree = |k: u32, gbps: f64, seconds: f64, body: &str| {
        scenario(&format!(
            "[sim]\nduration_s = {seconds}\n[topology]\nkind = \"fat_tree\"\nk = {k}\nlink = {{ rate_gbps = {gbps}, delay_us = 1.0 }}\n{FABRIC}{body}"
        ))
    };
    let web_search =
        |load: f64| format!("[[traffic]]\nsize = {{ kind = \"web_search\" }}\narrival = {{ kind = \"poisson\", load = {load} }}\n");
    for s in [
        fat_tree(12, 10.0, 0.0005, &permutation_flows(432)),
        fat_tree(16, 10.0, 0.0003, &permutation_flows(1024)),
        fat_tree(8, 10.0, 0.003, &web_search(0.5)),
        fat_tree(16, 100.0, 0.0003, &web_search(0.3)),
    ] {
        same_at_1_2_3_threads(&s);
    }
}

#[test]
fn the_invariant_mode_checks_each_partition_and_changes_nothing() {
    let s = fat_tree_web_search(4, 0.005);
    let (plain, _) = run_on(&s, 1);
    let mut checked = s.clone();
    checked.sim.check_invariants = true;
    let (r, sim) = run_on(&checked, 2);
    assert!(sim.parallel_stats().is_some(), "{:?}", sim.why_one_thread());
    assert!(r.to_json() == plain.to_json());
}

#[test]
fn sim_partition_false_keeps_a_network_whole_as_the_engine_runs_one_it_cannot_cut() {
    let mut s = fat_tree_web_search(4, 0.003);
    s.sim.partition = false;
    let (r, sim) = run_on(&s, 2);
    assert!(sim.why_one_thread().is_some_and(|w| w.contains("sim.partition")));
    s.sim.partition = true;
    let mut whole = Simulation::new(&s).expect("valid");
    whole.keep_whole();
    assert!(whole.run().to_json() == r.to_json());
}

#[test]
fn an_interrupted_run_on_several_threads_stops_and_returns_nothing() {
    for threads in [1, 2, 3] {
        let mut sim = Simulation::new(&fat_tree_web_search(4, 0.01)).expect("valid");
        sim.set_threads(threads);
        let mut calls = 0;
        let r = sim.run_observed(10_000, |_| {
            calls += 1;
            calls < 3
        });
        assert!(r.is_none() && calls == 3, "{threads} threads: {calls} calls");
    }
}

#[test]
fn a_graph_partition_must_name_a_switch() {
    let toml = "[topology]\nkind = \"graph\"\nhosts = 2\nswitches = [\"a\", \"b\"]\npartitions = [[\"a\", \"b\"], []]\n\
                links = [{ a = \"h0\", b = \"a\" }, { a = \"h1\", b = \"b\" }, { a = \"a\", b = \"b\" }]\n";
    let err = Simulation::new(&scenario(toml)).err().expect("refused").to_string();
    assert!(err.contains("topology.partitions[1]") && err.contains("needs a switch"), "{err}");
}
