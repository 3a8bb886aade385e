//! Open-loop flow generators (DCTCP §4.3's background traffic, §2.2's distributions): on
//! each source host, flows arrive by a Poisson or empirical process, each with a size from an
//! empirical CDF and a destination chosen by a rule. Arrivals never wait for earlier flows.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::error::ConfigError;
use crate::tcp::cc::CcKind;
use crate::units::Time;

/// A piecewise-linear CDF through points (x, p), sorted, ending at p = 1; a first point with
/// p > 0 is a point mass there, and two points at one x a point mass between their p's.
#[derive(Debug, Clone, PartialEq)]
pub struct Cdf {
    x: Vec<f64>,
    p: Vec<f64>,
}

impl Cdf {
    /// From points the scenario checked (`scenario::traffic::check_cdf`).
    pub fn new(points: &[[f64; 2]]) -> Cdf {
        Cdf {
            x: points.iter().map(|q| q[0]).collect(),
            p: points.iter().map(|q| q[1]).collect(),
        }
    }

    /// A built-in distribution by name (`web_search`, `data_mining`), from `crates/dcsim/data`.
    pub fn builtin(name: &str) -> Option<Cdf> {
        builtin_points(name).map(|p| Cdf::new(&p))
    }

    /// The value at cumulative probability `u` in [0, 1): inverse-transform sampling.
    pub fn quantile(&self, u: f64) -> f64 {
        if u < self.p[0] {
            return self.x[0];
        }
        // The first point above u: it exists since the last p is 1 > u.
        let i = self.p.partition_point(|&p| p <= u).min(self.p.len() - 1);
        let (x0, p0, x1, p1) = (self.x[i - 1], self.p[i - 1], self.x[i], self.p[i]);
        x0 + (u - p0) / (p1 - p0) * (x1 - x0)
    }

    /// P(X ≤ x).
    pub fn at(&self, x: f64) -> f64 {
        if x < self.x[0] {
            return 0.0;
        }
        // The last point at or below x.
        let i = self.x.partition_point(|&v| v <= x) - 1;
        if i + 1 == self.x.len() {
            return 1.0;
        }
        let (x0, p0, x1, p1) = (self.x[i], self.p[i], self.x[i + 1], self.p[i + 1]);
        p0 + (x - x0) / (x1 - x0) * (p1 - p0)
    }

    /// The distribution as pieces (probability, lo, hi): a point mass where lo = hi, else
    /// uniform on [lo, hi].
    fn pieces(&self) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        let first = (self.p[0], self.x[0], self.x[0]);
        let rest = (1..self.x.len()).map(|i| (self.p[i] - self.p[i - 1], self.x[i - 1], self.x[i]));
        std::iter::once(first).chain(rest).filter(|&(w, ..)| w > 0.0)
    }

    pub fn mean(&self) -> f64 {
        self.pieces().map(|(w, lo, hi)| w * (lo + hi) / 2.0).sum()
    }
}

/// Each host's destination in a random cyclic permutation of `hosts` hosts (Sattolo's
/// algorithm, seeded: no host sends to itself): the permutation traffic of benchmarks.
pub fn cyclic_permutation(hosts: u32, seed: u64) -> Vec<u32> {
    use rand::SeedableRng;
    let mut dst: Vec<u32> = (0..hosts).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in (1..hosts as usize).rev() {
        let j = rng.gen_range(0..i);
        dst.swap(i, j);
    }
    dst
}

/// Points of a built-in distribution.
pub fn builtin_points(name: &str) -> Option<Vec<[f64; 2]>> {
    let text = match name {
        "web_search" => include_str!("../../data/web_search.csv"),
        "data_mining" => include_str!("../../data/data_mining.csv"),
        _ => return None,
    };
    Some(parse_csv(text).expect("the built-in distributions parse"))
}

/// Points from CSV text: `value,probability` per line; `#` comments and a header line with
/// no number are skipped.
pub fn parse_csv(text: &str) -> Result<Vec<[f64; 2]>, String> {
    let mut points = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed: Result<Vec<f64>, _> = cells.iter().map(|c| c.parse::<f64>()).collect();
        match parsed {
            Ok(v) if v.len() == 2 => points.push([v[0], v[1]]),
            Err(_) if points.is_empty() => {} // a header line
            _ => return Err(format!("line {}: expected `value,probability`, got {line:?}", n + 1)),
        }
    }
    Ok(points)
}

/// ∫₀ˣ ⌈u/m⌉ du: what a uniform size spread over [a, b] averages in segments, times (b − a).
fn ceil_integral(x: f64, m: f64) -> f64 {
    let n = (x / m).floor();
    m * n * (n + 1.0) / 2.0 + (n + 1.0) * (x - n * m)
}

/// Flow sizes of a generator, with the scaling of its large flows.
#[derive(Debug, Clone)]
pub struct Sizes {
    cdf: Cdf,
    /// Sizes above this are multiplied by `factor`.
    above: f64,
    factor: f64,
}

impl Sizes {
    /// Sizes from `cdf`, those above `scale_above_bytes` (if given) multiplied by `factor`.
    pub fn new(cdf: Cdf, scale_above_bytes: Option<u64>, factor: f64) -> Sizes {
        Sizes {
            cdf,
            above: scale_above_bytes.map_or(f64::INFINITY, |b| b as f64),
            factor,
        }
    }

    /// A size, whole bytes, at least 1.
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> u64 {
        let s = self.cdf.quantile(rng.gen::<f64>());
        let s = if s > self.above { s * self.factor } else { s };
        s.round().max(1.0) as u64
    }

    /// The mean flow's bytes on the wire: payload, `per_packet` bytes (header and framing) per
    /// segment of at most `mss`, and two payload-less packets (SYN, handshake ACK).
    pub fn mean_wire_bytes(&self, mss: f64, per_packet: f64) -> f64 {
        let mut total = 0.0;
        for (w, lo, hi) in self.cdf.pieces() {
            // Split a piece at the scaling threshold; above it, sizes are `factor` × larger.
            let parts = if lo < self.above && self.above < hi {
                let cut = (self.above - lo) / (hi - lo);
                [(w * cut, lo, self.above), (w * (1.0 - cut), self.above, hi)]
            } else {
                [(w, lo, hi), (0.0, lo, hi)]
            };
            for (w, lo, hi) in parts {
                if w == 0.0 {
                    continue;
                }
                let f = if lo > self.above || (lo == self.above && hi > lo) {
                    self.factor
                } else {
                    1.0
                };
                let (lo, hi) = (lo * f, hi * f);
                let segments = if hi > lo {
                    (ceil_integral(hi, mss) - ceil_integral(lo, mss)) / (hi - lo)
                } else {
                    (lo / mss).ceil()
                };
                total += w * ((lo + hi) / 2.0 + per_packet * (segments + 2.0));
            }
        }
        total
    }
}

/// How a flow's destination is chosen among the destinations (never its own source); a rack
/// is the hosts under one switch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    Uniform,
    InRack,
    AcrossRacks,
    /// Another rack with probability `across_racks`, else the source's rack (a host with no
    /// choice on one side takes the other).
    Mixed {
        across_racks: f64,
    },
}

/// When a source's flows arrive, as resolved from the scenario.
#[derive(Debug, Clone)]
pub enum ArrivalPlan {
    /// Exponential gaps: of mean `mean_gap_s`, or else of the mean that offers `load` of the
    /// source's link rate (one of them is given).
    Poisson { mean_gap_s: Option<f64>, load: Option<f64> },
    /// Gaps from a CDF of milliseconds, scaled to offer `load` if given.
    Cdf { cdf: Cdf, load: Option<f64> },
}

/// A generator's settings, as the build resolved them from its `traffic[]` entry.
#[derive(Debug, Clone)]
pub struct GeneratorPlan {
    /// Hosts that start flows (empty: every host).
    pub sources: Vec<u32>,
    /// Hosts flows may go to (empty: every host).
    pub destinations: Vec<u32>,
    pub rule: Rule,
    pub sizes: Sizes,
    pub arrival: ArrivalPlan,
    pub start: Time,
    /// No arrival at or after this time (None: the end of the run).
    pub stop: Option<Time>,
    pub cc: CcKind,
    pub rcv_buffer: Option<u64>,
    pub class: u8,
}

/// Gaps between a source's arrivals.
#[derive(Debug, Clone)]
enum Gaps {
    /// Exponential with this mean, seconds, per source.
    Poisson(Vec<f64>),
    /// From a CDF of milliseconds, scaled per source.
    Cdf(Cdf, Vec<f64>),
}

/// Destinations: the candidate hosts sorted by rack, and where each source stands in them.
#[derive(Debug, Clone)]
struct Destinations {
    hosts: Vec<u32>,
    /// Per source: the range of its rack in `hosts`, and its own index there if it is one.
    place: Vec<(u32, u32, Option<u32>)>,
    rule: Rule,
}

/// n choices from range [lo, lo + n + skip?) leaving out index `skip`.
fn pick_skipping(rng: &mut ChaCha8Rng, lo: u32, hi: u32, skip: Option<u32>) -> Option<u32> {
    let inside = skip.filter(|&s| (lo..hi).contains(&s));
    let n = hi - lo - inside.is_some() as u32;
    if n == 0 {
        return None;
    }
    let i = lo + rng.gen_range(0..n);
    Some(match inside {
        Some(s) if i >= s => i + 1,
        _ => i,
    })
}

impl Destinations {
    fn new(field: &str, destinations: &[u32], rule: Rule, sources: &[u32], rack: &[u32]) -> Result<Destinations, ConfigError> {
        let mut hosts: Vec<u32> = if destinations.is_empty() {
            (0..rack.len() as u32).collect()
        } else {
            destinations.to_vec()
        };
        hosts.sort_unstable_by_key(|&h| (rack[h as usize], h));
        hosts.dedup();
        let mut d = Destinations {
            place: Vec::with_capacity(sources.len()),
            hosts,
            rule,
        };
        for &s in sources {
            let r = rack[s as usize];
            let lo = d.hosts.partition_point(|&h| rack[h as usize] < r) as u32;
            let hi = d.hosts.partition_point(|&h| rack[h as usize] <= r) as u32;
            let me = d.hosts[lo as usize..hi as usize].binary_search(&s).ok().map(|i| lo + i as u32);
            d.place.push((lo, hi, me));
            let (n, local) = (d.hosts.len() as u32, hi - lo - me.is_some() as u32);
            let across = n - (hi - lo);
            let none = match d.rule {
                Rule::Uniform => local + across == 0,
                Rule::InRack => local == 0,
                Rule::AcrossRacks => across == 0,
                Rule::Mixed { .. } => local + across == 0,
            };
            if none {
                return Err(ConfigError::new(
                    format!("{field}.destination"),
                    format!("source host {s} has no destination this rule allows among the destinations"),
                ));
            }
        }
        Ok(d)
    }

    fn in_rack(&self, rng: &mut ChaCha8Rng, k: usize) -> Option<u32> {
        let (lo, hi, me) = self.place[k];
        pick_skipping(rng, lo, hi, me).map(|i| self.hosts[i as usize])
    }

    fn across(&self, rng: &mut ChaCha8Rng, k: usize) -> Option<u32> {
        let (lo, hi, _) = self.place[k];
        let n = self.hosts.len() as u32 - (hi - lo);
        if n == 0 {
            return None;
        }
        let i = rng.gen_range(0..n);
        Some(self.hosts[(if i >= lo { i + (hi - lo) } else { i }) as usize])
    }

    /// A destination for source number `k`, by the rule (`new` made sure one exists).
    fn pick(&self, rng: &mut ChaCha8Rng, k: usize) -> u32 {
        let chosen = match self.rule {
            Rule::Uniform => {
                let me = self.place[k].2;
                pick_skipping(rng, 0, self.hosts.len() as u32, me).map(|i| self.hosts[i as usize])
            }
            Rule::InRack => self.in_rack(rng, k),
            Rule::AcrossRacks => self.across(rng, k),
            Rule::Mixed { across_racks } => {
                if rng.gen::<f64>() < across_racks {
                    self.across(rng, k).or_else(|| self.in_rack(rng, k))
                } else {
                    self.in_rack(rng, k).or_else(|| self.across(rng, k))
                }
            }
        };
        chosen.expect("checked when built")
    }
}

/// A generator as it runs.
#[derive(Debug, Clone)]
pub struct Generator {
    pub sources: Vec<u32>,
    sizes: Sizes,
    gaps: Gaps,
    dests: Destinations,
    pub start: Time,
    /// No arrival at or after this time.
    pub stop: Time,
    pub cc: CcKind,
    pub rcv_buffer: Option<u64>,
    pub class: u8,
    rng: ChaCha8Rng,
}

/// What a new flow is.
pub struct Arrival {
    pub src: u32,
    pub dst: u32,
    pub bytes: u64,
}

/// What the generators need to know of the network.
pub struct HostView<'a> {
    /// Per host: its rack.
    pub rack: &'a [u32],
    /// Per host: its link's rate, bits/s, and the bytes each packet carries besides payload
    /// on the wire (TCP/IP header and link framing).
    pub rate_bps: &'a [f64],
    pub per_packet: &'a [f64],
    pub mss: f64,
    /// No flow arrives at or after this time (the run's end less `sim.drain_s`).
    pub end: Time,
}

impl Generator {
    /// Generator `field` (`traffic[g]`) of `plan` on the network `net`; refuses a source
    /// that has no destination its rule allows.
    pub fn new(field: &str, plan: GeneratorPlan, net: &HostView, rng: ChaCha8Rng) -> Result<Generator, ConfigError> {
        let sources: Vec<u32> = if plan.sources.is_empty() {
            (0..net.rack.len() as u32).collect()
        } else {
            plan.sources
        };
        let sizes = plan.sizes;
        // The mean gap that offers `load` of each source's link.
        let gap_for_load = |load: f64| -> Vec<f64> {
            sources
                .iter()
                .map(|&h| sizes.mean_wire_bytes(net.mss, net.per_packet[h as usize]) * 8.0 / (load * net.rate_bps[h as usize]))
                .collect()
        };
        let gaps = match plan.arrival {
            ArrivalPlan::Poisson { mean_gap_s, load } => Gaps::Poisson(match (mean_gap_s, load) {
                (Some(s), _) => vec![s; sources.len()],
                (None, Some(load)) => gap_for_load(load),
                (None, None) => unreachable!("checked: one of them"),
            }),
            ArrivalPlan::Cdf { cdf, load } => {
                let scale = match load {
                    None => vec![1.0; sources.len()],
                    Some(load) => {
                        let mean_s = cdf.mean() / 1e3;
                        gap_for_load(load).into_iter().map(|g| g / mean_s).collect()
                    }
                };
                Gaps::Cdf(cdf, scale)
            }
        };
        let dests = Destinations::new(field, &plan.destinations, plan.rule, &sources, net.rack)?;
        Ok(Generator {
            sizes,
            gaps,
            dests,
            start: plan.start,
            stop: plan.stop.unwrap_or(net.end).min(net.end),
            cc: plan.cc,
            rcv_buffer: plan.rcv_buffer,
            class: plan.class,
            sources,
            rng,
        })
    }

    /// The gap before source number `k`'s next arrival, seconds.
    fn gap_s(&mut self, k: usize) -> f64 {
        let u: f64 = self.rng.gen();
        match &self.gaps {
            // Inverse transform of the exponential; 1 − u is in (0, 1].
            Gaps::Poisson(mean) => -mean[k] * (1.0 - u).ln(),
            Gaps::Cdf(cdf, scale) => cdf.quantile(u) / 1e3 * scale[k],
        }
    }

    /// Source number `k`'s next arrival after `now`, if it comes before the stop.
    pub fn next_arrival(&mut self, k: usize, now: Time) -> Option<Time> {
        let t = now.as_secs_f64() + self.gap_s(k);
        // Compared as seconds first: a gap far past the stop must not reach `Time`'s range.
        (t < self.stop.as_secs_f64())
            .then(|| Time::from_secs_f64(t))
            .filter(|&t| t < self.stop)
    }

    /// A new flow from source number `k`.
    pub fn arrival(&mut self, k: usize) -> Arrival {
        let bytes = self.sizes.draw(&mut self.rng);
        let dst = self.dests.pick(&mut self.rng, k);
        Arrival {
            src: self.sources[k],
            dst,
            bytes,
        }
    }

    /// Flows this generator is expected to start over the run (for the memory estimate).
    pub fn expected_flows(&self) -> f64 {
        let span = (self.stop.as_secs_f64() - self.start.as_secs_f64()).max(0.0);
        let mean_gaps: Vec<f64> = match &self.gaps {
            Gaps::Poisson(m) => m.clone(),
            Gaps::Cdf(cdf, scale) => scale.iter().map(|s| cdf.mean() / 1e3 * s).collect(),
        };
        mean_gaps.iter().map(|g| if *g > 0.0 { span / g } else { f64::INFINITY }).sum()
    }
}

#[cfg(test)]
#[path = "traffic_tests.rs"]
mod tests;
