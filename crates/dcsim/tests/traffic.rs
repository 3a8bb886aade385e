//! Open-loop traffic end to end: the offered load on the access links, slowdown against the
//! idle network, generated flows in the results, determinism and conservation.

use dcsim::{Results, Scenario, Simulation};

fn run(toml: &str) -> Results {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("scenario does not parse: {e}\n{toml}"));
    Simulation::new(&s).expect("scenario builds").run()
}

/// Eight hosts on a star at 1 Gb/s: hosts 0-3 send to hosts 4-7 (uniformly), with `traffic`'s
/// size and arrival lines; `measure` lines added.
fn star(duration_s: f64, traffic: &str, measure: &str) -> String {
    format!(
        r#"
        [sim]
        seed = 11
        duration_s = {duration_s}
        [topology]
        kind = "star"
        hosts = 8
        link = {{ rate_gbps = 1.0, delay_us = 10.0 }}
        [switch.buffer]
        kind = "per_port"
        limit_packets = 1000
        [measure]
        queue_sample_us = 0
        {measure}
        [[traffic]]
        sources = [0, 1, 2, 3]
        destinations = [4, 5, 6, 7]
        {traffic}
"#
    )
}

/// The busy fraction of the sources' access links matches the target load: 50% of 1 Gb/s
/// from each of four sources, sizes uniform in 50-150 kB, over 8 s: about 19,000 flows, so the
/// four links' mean is within 2% (its standard error, from the Poisson count and the sizes'
/// spread, is 0.74%) and each link within 5% (standard error 1.5%).
#[test]
fn offered_load_matches_the_target() {
    let r = run(&star(
        8.0,
        r#"size = { kind = "cdf", points = [[50000, 0], [150000, 1]] }
        arrival = { kind = "poisson", load = 0.5 }"#,
        "ideal_fct = false",
    ));
    let flows = r.flows.iter().filter(|f| f.generator == Some(0)).count();
    assert!((19_000..21_000).contains(&flows), "{flows} flows");
    let busy: Vec<f64> = (0..4)
        .map(|h| r.ports.iter().find(|p| p.name == format!("h{h}->s0")).unwrap().utilization)
        .collect();
    let mean = busy.iter().sum::<f64>() / 4.0;
    assert!((mean / 0.5 - 1.0).abs() < 0.02, "{busy:?}");
    assert!(busy.iter().all(|b| (b / 0.5 - 1.0).abs() < 0.05), "{busy:?}");
    // Every flow that started went to one of the destinations, and nearly all finished.
    assert!(r.flows.iter().all(|f| (0..4).contains(&f.src) && (4..8).contains(&f.dst)));
    let unfinished = r.flows.iter().filter(|f| f.completion_s.is_nan()).count();
    assert!(unfinished < 20, "{unfinished} unfinished");
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight);
}

/// A flow alone on the idle network takes exactly its ideal time: slowdown 1, for a listed
/// flow and for generated flows that never overlap (one source, a flow every 0.5 s, web-search
/// sizes up to 29 MB, which take at most 0.25 s at 1 Gb/s). The hosts' transmit jitter is off
/// for the generated flows: the idle run draws its own jitter, the same as the busy run's only
/// for a flow that is the run's first.
#[test]
fn a_lone_flow_has_slowdown_one() {
    let lone = run(r#"
        [sim]
        duration_s = 0.5
        [topology]
        kind = "star"
        hosts = 2
        [[flows]]
        src = 1
        dst = 0
        start_s = 0.01
        bytes = 1000000
    "#);
    let f = &lone.flows[0];
    assert!(f.fct_s > 0.008 && f.fct_s < 0.02, "{}", f.fct_s);
    assert_eq!(f.ideal_fct_s, f.fct_s);
    assert_eq!(f.slowdown, 1.0);
    assert_eq!(f.size_bytes, 1_000_000);

    let r = run(&star(
        5.0,
        r#"size = { kind = "web_search" }
        arrival = { kind = "cdf", points = [[500, 1]] }"#,
        "",
    )
    .replace("sources = [0, 1, 2, 3]", "sources = [2]")
    .replace("[measure]", "[host]\n        tx_jitter_us = 0\n        [measure]"));
    let done: Vec<_> = r.flows.iter().filter(|f| !f.completion_s.is_nan()).collect();
    assert!(done.len() >= 8, "{} flows", done.len());
    for f in done {
        assert_eq!(f.slowdown, 1.0, "flow {} of {} B", f.id, f.size_bytes);
    }
}

/// Flows that share a bottleneck take longer than alone: four sources into one host.
#[test]
fn contention_slows_flows_down() {
    let r = run(&star(
        2.0,
        r#"destination = { kind = "uniform" }
        size = { kind = "fixed", bytes = 200000 }
        arrival = { kind = "poisson", load = 0.2 }"#,
        "",
    )
    .replace("destinations = [4, 5, 6, 7]", "destinations = [4]"));
    let slow: Vec<f64> = r.flows.iter().map(|f| f.slowdown).filter(|s| !s.is_nan()).collect();
    assert!(slow.len() > 500);
    // Up to the hosts' transmit jitter (1 µs a packet), no flow is faster than alone.
    assert!(slow.iter().all(|&s| s > 0.99), "a flow faster than alone");
    let mean = slow.iter().sum::<f64>() / slow.len() as f64;
    // Four sources at 20% each load the one receiver's port to 80%.
    assert!(mean > 1.3, "mean slowdown {mean}");
}

/// The same seed gives the same flows; another seed, other flows.
#[test]
fn generated_traffic_is_deterministic() {
    let text = star(
        0.5,
        r#"size = { kind = "data_mining" }
        arrival = { kind = "poisson", mean_interval_ms = 2 }"#,
        "ideal_fct = false",
    );
    let (a, b) = (run(&text), run(&text));
    assert_eq!(a.to_json(), b.to_json());
    let c = run(&text.replace("seed = 11", "seed = 12"));
    assert_ne!(
        a.flows.iter().map(|f| f.size_bytes).collect::<Vec<_>>(),
        c.flows.iter().map(|f| f.size_bytes).collect::<Vec<_>>()
    );
}

/// Mistakes in a generator are refused naming the field.
#[test]
fn bad_generators_are_refused() {
    let cases = [
        (
            r#"size = { kind = "cdf", points = [[100, 0.5], [50, 1]] }"#,
            "traffic[0].size.points[1]",
        ),
        (
            r#"size = { kind = "cdf", points = [[100, 0.5], [200, 0.9]] }"#,
            "traffic[0].size.points[1][1]",
        ),
        (r#"size = { kind = "cdf", points = [] }"#, "traffic[0].size.points"),
        (r#"size = { kind = "cdf", file = "x.csv" }"#, "traffic[0].size.file"),
        (r#"size = { kind = "fixed", bytes = 0 }"#, "traffic[0].size.bytes"),
    ];
    for (size, field) in cases {
        let text = star(1.0, &format!("{size}\narrival = {{ kind = \"poisson\", load = 0.5 }}"), "");
        let e = Scenario::from_toml(&text).unwrap_err();
        assert_eq!(e.field, field, "{size}: {e}");
    }
    let arrival = [
        (r#"{ kind = "poisson" }"#, "traffic[0].arrival"),
        (r#"{ kind = "poisson", load = 0.5, mean_interval_ms = 1 }"#, "traffic[0].arrival"),
        (r#"{ kind = "poisson", load = 11 }"#, "traffic[0].arrival.load"),
        (r#"{ kind = "cdf", points = [[0, 1]] }"#, "traffic[0].arrival.points"),
    ];
    for (a, field) in arrival {
        let text = star(1.0, &format!("size = {{ kind = \"fixed\", bytes = 10 }}\narrival = {a}"), "");
        let e = Scenario::from_toml(&text).unwrap_err();
        assert_eq!(e.field, field, "{a}: {e}");
    }
    let text = star(
        1.0,
        "size = { kind = \"fixed\", bytes = 10 }\narrival = { kind = \"poisson\", load = 0.5 }",
        "",
    )
    .replace("destinations = [4, 5, 6, 7]", "destinations = [4, 9]");
    assert_eq!(Scenario::from_toml(&text).unwrap_err().field, "traffic[0].destinations[1]");
}

/// `sim.drain_s` stops arrivals that long before the end, beside a generator's own `stop_s`:
/// the same seed draws the same arrivals up to the earlier stop, so the drained run's flows
/// are exactly the undrained run's that start before it; and it lets them finish.
#[test]
fn drain_stops_arrivals_before_the_end() {
    let traffic = r#"size = { kind = "cdf", points = [[50000, 0], [150000, 1]] }
        arrival = { kind = "poisson", load = 0.5 }"#;
    let full = run(&star(0.5, traffic, "ideal_fct = false"));
    let drained_text = star(0.5, traffic, "ideal_fct = false").replace("seed = 11", "seed = 11\ndrain_s = 0.1");
    let drained = run(&drained_text);
    let starts = |r: &Results, before: f64| -> Vec<f64> { r.flows.iter().map(|f| f.start_s).filter(|&t| t < before).collect() };
    assert!(drained.flows.iter().all(|f| f.start_s < 0.4));
    assert_eq!(starts(&drained, 0.4), starts(&full, 0.4));
    assert!(
        starts(&full, 0.5).len() > starts(&full, 0.4).len() + 100,
        "the last 0.1 s had arrivals"
    );
    let unfinished = |r: &Results| r.flows.iter().filter(|f| f.completion_s.is_nan()).count();
    assert!(unfinished(&full) > 0, "without a drain some flows are still open at the end");
    assert_eq!(unfinished(&drained), 0, "0.1 s drains flows of at most 150 kB at 50% load");
    // A generator's own earlier stop still applies.
    let both = run(&drained_text.replace("arrival = {", "stop_s = 0.2\n        arrival = {"));
    assert!(both.flows.iter().all(|f| f.start_s < 0.2));
    assert_eq!(starts(&both, 0.2), starts(&full, 0.2));
    // A drain as long as the run is refused, naming the field.
    let e = Scenario::from_toml(&drained_text.replace("drain_s = 0.1", "drain_s = 0.5")).unwrap_err();
    assert_eq!(e.field, "sim.drain_s");
}
