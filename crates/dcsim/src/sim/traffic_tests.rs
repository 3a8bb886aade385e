//! The generators' distributions, gaps and destination rules against values worked out by
//! hand and by sampling.

use super::*;
use rand::SeedableRng;

fn rng(stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(7);
    r.set_stream(stream);
    r
}

/// A `traffic[]` entry, resolved as the build resolves it.
fn spec(toml_text: &str) -> GeneratorPlan {
    let spec: crate::scenario::TrafficSpec = toml::from_str(toml_text).expect("a traffic spec");
    crate::sim::build::generator_plan(&spec, CcKind::NewReno)
}

/// Six hosts in racks [0, 0, 0, 1, 1, 2] on 1 Gb/s links, 78 B besides payload a packet.
fn view<'a>(rack: &'a [u32], rate: &'a [f64], per_packet: &'a [f64]) -> HostView<'a> {
    HostView {
        rack,
        rate_bps: rate,
        per_packet,
        mss: 1460.0,
        end: Time::from_secs(1000),
    }
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
}

#[test]
fn quantiles_and_cdf_by_hand() {
    // 20% point mass at 100; uniform 100..300 for the next 40%; 300..1300 for the rest.
    let c = Cdf::new(&[[100.0, 0.2], [300.0, 0.6], [1300.0, 1.0]]);
    close(c.quantile(0.0), 100.0);
    close(c.quantile(0.1999), 100.0);
    close(c.quantile(0.2), 100.0);
    close(c.quantile(0.4), 200.0);
    close(c.quantile(0.8), 800.0);
    close(c.at(99.0), 0.0);
    close(c.at(100.0), 0.2);
    close(c.at(200.0), 0.4);
    close(c.at(800.0), 0.8);
    close(c.at(5000.0), 1.0);
    // Mean: 0.2·100 + 0.4·200 + 0.4·800 = 420.
    assert!((c.mean() - 420.0).abs() < 1e-9);
    // Two points at one value: a point mass of 0.5 at 50 between uniform pieces.
    let step = Cdf::new(&[[0.0, 0.0], [50.0, 0.25], [50.0, 0.75], [100.0, 1.0]]);
    close(step.quantile(0.5), 50.0);
    close(step.quantile(0.125), 25.0);
    close(step.at(50.0), 0.75);
    assert!((step.mean() - (0.25 * 25.0 + 0.5 * 50.0 + 0.25 * 75.0)).abs() < 1e-9);
}

#[test]
fn builtin_distributions_and_their_means() {
    let ws = Cdf::builtin("web_search").unwrap();
    // The web-search sizes (pFabric's CDF of the DCTCP paper's measurements): mean ≈ 1,141 packets of 1460 B ≈ 1.67 MB.
    assert!((ws.mean() / 1460.0 - 1141.0).abs() < 1.0, "{}", ws.mean() / 1460.0);
    assert_eq!(ws.quantile(0.1), 6.0 * 1460.0);
    let dm = Cdf::builtin("data_mining").unwrap();
    assert_eq!(dm.at(10_000.0), 0.8);
    assert_eq!(dm.quantile(0.5), 900.0 + (0.5 - 0.47) / (0.55 - 0.47) * 200.0);
    assert!(Cdf::builtin("nope").is_none());
}

#[test]
fn csv_points() {
    let p = parse_csv("# sizes\nbytes,cdf\n100, 0.5\n\n200,1 # last\n").unwrap();
    assert_eq!(p, vec![[100.0, 0.5], [200.0, 1.0]]);
    assert!(parse_csv("100,0.5\n200\n").unwrap_err().starts_with("line 2"));
}

/// Kolmogorov–Smirnov: 200,000 draws of each built-in distribution against its CDF, on a
/// grid of 1,000 quantiles and every point. At 99% confidence D ≤ 1.63/√n = 0.0036.
#[test]
fn sampler_reproduces_its_cdf() {
    for name in ["web_search", "data_mining"] {
        let c = Cdf::builtin(name).unwrap();
        let mut r = rng(1);
        let n = 200_000;
        let mut xs: Vec<f64> = (0..n).map(|_| c.quantile(r.gen::<f64>())).collect();
        xs.sort_by(f64::total_cmp);
        let grid = (0..1000).map(|j| c.quantile(j as f64 / 1000.0)).chain(c.x.iter().copied());
        let d = grid
            .map(|x| (xs.partition_point(|&v| v <= x) as f64 / n as f64 - c.at(x)).abs())
            .fold(0.0, f64::max);
        assert!(d < 1.63 / (n as f64).sqrt(), "{name}: D = {d}");
    }
}

#[test]
fn wire_bytes_by_hand() {
    // 3000 B: 3 segments of at most 1460 B, and the SYN and handshake ACK: 5 × 78 B.
    let fixed = spec("size = { kind = \"fixed\", bytes = 3000 }\narrival = { kind = \"poisson\", load = 0.5 }").sizes;
    assert_eq!(fixed.mean_wire_bytes(1460.0, 78.0), 3000.0 + 5.0 * 78.0);
    // Uniform on [1000, 3920]: 1 segment over 460 B of it, 2 over 1460 B, 3 over 1000 B.
    let uniform = spec("size = { kind = \"cdf\", points = [[1000, 0], [3920, 1]] }\narrival = { kind = \"poisson\", load = 0.5 }").sizes;
    let segments = (460.0 + 2.0 * 1460.0 + 3.0 * 1000.0) / 2920.0;
    assert!((uniform.mean_wire_bytes(1460.0, 78.0) - (2460.0 + 78.0 * (segments + 2.0))).abs() < 1e-9);
    // Scaling above 2000 B by 10 on a uniform [1000, 3000]: half stays (mean 1500), half
    // becomes uniform on [20000, 30000] (mean 25000).
    let scaled = spec(
        "size = { kind = \"cdf\", points = [[1000, 0], [3000, 1]] }\nscale_above_bytes = 2000\nscale_factor = 10\narrival = { kind = \"poisson\", load = 0.5 }",
    )
    .sizes;
    assert!((scaled.mean_wire_bytes(1460.0, 0.0) - 13_250.0).abs() < 1e-9);
    let mut r = rng(2);
    let n = 100_000;
    let mean = (0..n).map(|_| scaled.draw(&mut r) as f64).sum::<f64>() / n as f64;
    assert!((mean / 13_250.0 - 1.0).abs() < 0.02, "{mean}");
}

/// Exponential gaps: mean 2 ms and variance (2 ms)² within a few standard errors over 10^6.
#[test]
fn poisson_gaps_have_the_right_mean_and_variance() {
    let (rack, rate, pp) = ([0, 0], [1e9; 2], [78.0; 2]);
    let s = spec("sources = [0]\nsize = { kind = \"fixed\", bytes = 1000 }\narrival = { kind = \"poisson\", mean_interval_ms = 2 }");
    let mut g = Generator::new("t", s, &view(&rack, &rate, &pp), rng(3)).unwrap();
    let n = 1_000_000;
    let gaps: Vec<f64> = (0..n).map(|_| g.gap_s(0)).collect();
    let mean = gaps.iter().sum::<f64>() / n as f64;
    let var = gaps.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    // Standard errors: 0.1% of the mean, √(8/n) = 0.28% of the variance.
    assert!((mean / 2e-3 - 1.0).abs() < 0.005, "{mean}");
    assert!((var / 4e-6 - 1.0).abs() < 0.015, "{var}");
}

#[test]
fn load_sets_the_mean_gap() {
    // 3000-B flows are 3390 B on the wire: at half of 1 Gb/s, one every 54.24 µs.
    let (rack, rate, pp) = ([0, 0], [1e9; 2], [78.0; 2]);
    let s = spec("sources = [0]\nsize = { kind = \"fixed\", bytes = 3000 }\narrival = { kind = \"poisson\", load = 0.5 }");
    let g = Generator::new("t", s, &view(&rack, &rate, &pp), rng(4)).unwrap();
    let Gaps::Poisson(m) = &g.gaps else { panic!() };
    assert!((m[0] - 3390.0 * 8.0 / 0.5e9).abs() < 1e-15);
    // Empirical gaps are scaled to the same mean: a CDF of mean 1 ms becomes 54.24 µs.
    let s = spec(
        "sources = [0]\nsize = { kind = \"fixed\", bytes = 3000 }\narrival = { kind = \"cdf\", points = [[0, 0.5], [4, 1]], load = 0.5 }",
    );
    let g = Generator::new("t", s, &view(&rack, &rate, &pp), rng(4)).unwrap();
    let Gaps::Cdf(c, scale) = &g.gaps else { panic!() };
    assert!((c.mean() / 1e3 * scale[0] - 3390.0 * 8.0 / 0.5e9).abs() < 1e-15);
}

#[test]
fn destinations_follow_the_rule() {
    let rack = [0, 0, 0, 1, 1, 2];
    let (rate, pp) = ([1e9; 6], [78.0; 6]);
    let draw = |rule: &str, src: u32| -> Vec<u32> {
        let s = spec(&format!(
            "sources = [{src}]\ndestination = {rule}\nsize = {{ kind = \"fixed\", bytes = 1 }}\narrival = {{ kind = \"poisson\", mean_interval_ms = 1 }}"
        ));
        let mut g = Generator::new("traffic[0]", s, &view(&rack, &rate, &pp), rng(5)).unwrap();
        let mut seen = vec![0u32; 6];
        for _ in 0..6000 {
            seen[g.arrival(0).dst as usize] += 1;
        }
        seen
    };
    let hit = |seen: &[u32]| -> Vec<u32> { (0..6).filter(|&h| seen[h as usize] > 0).collect() };
    assert_eq!(hit(&draw("{ kind = \"uniform\" }", 0)), vec![1, 2, 3, 4, 5]);
    assert_eq!(hit(&draw("{ kind = \"in_rack\" }", 0)), vec![1, 2]);
    assert_eq!(hit(&draw("{ kind = \"across_racks\" }", 0)), vec![3, 4, 5]);
    assert_eq!(hit(&draw("{ kind = \"across_racks\" }", 3)), vec![0, 1, 2, 5]);
    let mixed = draw("{ kind = \"mixed\", across_racks = 0.25 }", 1);
    let across = (mixed[3] + mixed[4] + mixed[5]) as f64 / 6000.0;
    assert!((across - 0.25).abs() < 0.03, "{across}");
    assert_eq!(mixed[1], 0);
    // Uniform choices are uniform: each of 5 about 1,200 of 6,000.
    assert!(draw("{ kind = \"uniform\" }", 0)[1..].iter().all(|&n| (1000..1400).contains(&n)));
    // Host 5 is alone in its rack.
    let s = spec("sources = [5]\ndestination = { kind = \"in_rack\" }\nsize = { kind = \"fixed\", bytes = 1 }\narrival = { kind = \"poisson\", mean_interval_ms = 1 }");
    let e = Generator::new("traffic[0]", s, &view(&rack, &rate, &pp), rng(5)).unwrap_err();
    assert_eq!(e.field, "traffic[0].destination");
}
