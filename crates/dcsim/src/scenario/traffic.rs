//! Open-loop traffic: flows that arrive on their own, with sizes and gaps drawn from
//! distributions (DCTCP §2.2 and §4.3). The generators themselves
//! run in `sim::traffic`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{limits, real, Bound, CcKind};
use crate::error::ConfigError;

/// The smallest factor of `scale_above_bytes`: 1, flows left as they are (it never shrinks them).
const MIN_SCALE_FACTOR: f64 = 1.0;
/// The largest factor of `scale_above_bytes`: 1000 (DCTCP §4.3's scaled benchmark uses 10).
const MAX_SCALE_FACTOR: f64 = 1000.0;
/// The largest offered load, as a fraction of the source's link rate: 10, ten times what the
/// link can carry (loads above 1 overload it on purpose).
const MAX_LOAD: f64 = 10.0;

/// An open-loop flow generator. On each source host, flows arrive one after another by
/// `arrival`, whether or not earlier ones have finished; each has a size drawn from `size` and
/// a destination chosen by `destination` among `destinations`. Every generated flow is a row of
/// `flows` with its size, completion time and slowdown.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// Hosts that start flows (default: every host).
    #[serde(default)]
    pub sources: Vec<u32>,
    /// Hosts flows may go to (default: every host); `destination` chooses among them.
    #[serde(default)]
    pub destinations: Vec<u32>,
    /// How a flow's destination is chosen.
    #[serde(default)]
    pub destination: DestinationRule,
    /// Flow sizes, bytes.
    pub size: SizeDist,
    /// Flows larger than this are made `scale_factor` times larger (DCTCP §4.3's scaled
    /// benchmark: update flows over 1 MB × 10). Default: no flow is scaled.
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BYTES"))]
    pub scale_above_bytes: Option<u64>,
    /// The factor of `scale_above_bytes`, in [1, 1000].
    #[serde(default = "one")]
    #[schemars(range(min = "MIN_SCALE_FACTOR", max = "MAX_SCALE_FACTOR"))]
    pub scale_factor: f64,
    /// When flows arrive, on each source separately.
    pub arrival: FlowArrival,
    /// When the sources start drawing arrivals, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub start_s: f64,
    /// No flow arrives at or after this time, seconds (default: the end of the run).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub stop_s: Option<f64>,
    /// Congestion control of the generated flows (default: `tcp.cc`).
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// Receive buffer of the generated flows, bytes (default: `tcp.rcv_buffer_bytes`).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_buffer_bytes: Option<u64>,
    /// Traffic class of the generated flows' packets, 0-7 (see `flows[].class`).
    #[serde(default)]
    #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
    pub class: u8,
}

fn one() -> f64 {
    1.0
}

/// A distribution of flow sizes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    /// Every flow has the same size.
    Fixed {
        #[schemars(range(min = 1, max = "limits::MAX_BYTES"))]
        bytes: u64,
    },
    /// An empirical distribution: a piecewise-linear CDF through `points`, each
    /// `[bytes, cumulative probability]` with bytes in [1, 2^50], sorted, ending at
    /// probability 1; at most 100,000 points. A first point with probability p > 0 is a point
    /// mass p at its size, and two points at one size a point mass between their
    /// probabilities.
    Cdf {
        #[serde(default)]
        points: Vec<[f64; 2]>,
        /// A CSV (`bytes,cdf` per line) or TOML (`points = [[bytes, cdf], ...]`) file of
        /// points, relative to the scenario file. The `dcsim` front end reads it into `points`.
        #[serde(default)]
        file: Option<String>,
    },
    /// The "web search" flow sizes (DCTCP §2.2 as distributed with pFabric, Alizadeh et al. 2013):
    /// `data/web_search.csv`.
    WebSearch,
    /// The "data mining" flow sizes (VL2, Greenberg et al. 2009, Fig. 2): `data/data_mining.csv`.
    DataMining,
}

/// When a source's flows arrive.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowArrival {
    /// A Poisson process: exponential gaps. Give the mean gap, or the load it should offer.
    Poisson {
        /// Mean gap between a source's flows, ms.
        #[serde(default)]
        #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
        mean_interval_ms: Option<f64>,
        /// Offered load as a fraction of the source's link rate, in (0, 10]: the mean gap is
        /// the mean flow's bytes on the wire (payload, headers, framing, SYN and handshake
        /// ACK) over `load` × the link rate.
        #[serde(default)]
        #[schemars(range(min = 0.0, max = "MAX_LOAD"))]
        load: Option<f64>,
    },
    /// Gaps drawn from an empirical CDF: `points` of `[ms, cumulative probability]` with ms in
    /// [0, 3,600,000], as for sizes (a first point at 0 ms with probability p gives
    /// back-to-back arrivals p of the time). With `load`, every gap is scaled so that the mean offers that load.
    Cdf {
        #[serde(default)]
        points: Vec<[f64; 2]>,
        /// A file of points, as for sizes.
        #[serde(default)]
        file: Option<String>,
        #[serde(default)]
        #[schemars(range(min = 0.0, max = "MAX_LOAD"))]
        load: Option<f64>,
    },
}

/// How a flow's destination is chosen among `destinations` (never its own source). A rack is
/// the hosts under one switch; the stand-in hosts of a `rack` topology are each a rack of
/// their own (the rest of the datacenter).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DestinationRule {
    /// Any of them, uniformly.
    #[default]
    Uniform,
    /// One in the source's rack.
    InRack,
    /// One in another rack.
    AcrossRacks,
    /// Another rack with probability `across_racks`, else the source's rack (a host with no
    /// choice on one side takes the other).
    Mixed {
        #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
        across_racks: f64,
    },
}

/// Points of a CDF: at most this many.
pub const MAX_CDF_POINTS: usize = 100_000;

/// Checks a CDF's points: sorted values in [lo, hi], probabilities rising to exactly 1.
pub(crate) fn check_cdf(field: &str, points: &[[f64; 2]], file: &Option<String>, lo: f64, hi: f64, unit: &str) -> Result<(), ConfigError> {
    let err = |f: String, reason: String| Err(ConfigError::new(f, reason));
    if let Some(path) = file {
        if points.is_empty() {
            return err(
                format!("{field}.file"),
                format!("{path:?} is read by the dcsim front end (Python); the engine needs its `points`"),
            );
        }
    }
    if points.is_empty() || points.len() > MAX_CDF_POINTS {
        return err(
            format!("{field}.points"),
            format!("must have 1 to {MAX_CDF_POINTS} [value, probability] points, got {}", points.len()),
        );
    }
    let mut prev = [lo, 0.0];
    for (i, &[x, p]) in points.iter().enumerate() {
        let at = format!("{field}.points[{i}]");
        real(&format!("{at}[0]"), x, Bound::From(lo), hi, unit)?;
        real(&format!("{at}[1]"), p, Bound::From(0.0), 1.0, "")?;
        if x < prev[0] || p < prev[1] {
            return err(
                at,
                format!("points must be sorted: [{x}, {p}] comes after [{}, {}]", prev[0], prev[1]),
            );
        }
        prev = [x, p];
    }
    if prev[1] != 1.0 {
        return err(
            format!("{field}.points[{}][1]", points.len() - 1),
            format!("the last probability must be 1, got {}", prev[1]),
        );
    }
    Ok(())
}

impl TrafficSpec {
    /// Bounds and cross references; `hosts`: hosts of the network.
    pub(crate) fn check(&self, field: &str, hosts: u32, mss: u32) -> Result<(), ConfigError> {
        use limits::*;
        let at = |name: &str| format!("{field}.{name}");
        let err = |f: String, reason: String| Err(ConfigError::new(f, reason));
        for (name, list) in [("sources", &self.sources), ("destinations", &self.destinations)] {
            if list.len() > hosts as usize {
                return err(at(name), format!("{} hosts listed, the network has {hosts}", list.len()));
            }
            for (j, &h) in list.iter().enumerate() {
                if h >= hosts {
                    return err(
                        at(&format!("{name}[{j}]")),
                        format!("host {h} does not exist (hosts are 0 to {})", hosts - 1),
                    );
                }
            }
        }
        match &self.size {
            SizeDist::Fixed { bytes } => whole(&at("size.bytes"), *bytes, 1, MAX_BYTES, "bytes")?,
            SizeDist::Cdf { points, file } => check_cdf(&at("size"), points, file, 1.0, MAX_BYTES as f64, "bytes")?,
            SizeDist::WebSearch | SizeDist::DataMining => {}
        }
        if let Some(b) = self.scale_above_bytes {
            whole(&at("scale_above_bytes"), b, 1, MAX_BYTES, "bytes")?;
        }
        real(
            &at("scale_factor"),
            self.scale_factor,
            Bound::From(MIN_SCALE_FACTOR),
            MAX_SCALE_FACTOR,
            "",
        )?;
        let load = |l: Option<f64>| match l {
            Some(l) => real(&at("arrival.load"), l, Bound::Above(0.0), MAX_LOAD, ""),
            None => Ok(()),
        };
        match &self.arrival {
            FlowArrival::Poisson { mean_interval_ms, load: l } => {
                match (mean_interval_ms, l) {
                    (Some(_), Some(_)) | (None, None) => {
                        return err(at("arrival"), "give exactly one of mean_interval_ms and load".to_string());
                    }
                    _ => {}
                }
                if let Some(m) = mean_interval_ms {
                    real(&at("arrival.mean_interval_ms"), *m, Bound::Above(0.0), MAX_TIMER_MS, "ms")?;
                }
                load(*l)?;
            }
            FlowArrival::Cdf { points, file, load: l } => {
                check_cdf(&at("arrival"), points, file, 0.0, MAX_TIMER_MS, "ms")?;
                if points.last().is_some_and(|p| p[0] == 0.0) {
                    return err(at("arrival.points"), "every gap would be 0 ms".to_string());
                }
                load(*l)?;
            }
        }
        real(&at("start_s"), self.start_s, Bound::From(0.0), MAX_TIME_S, "s")?;
        stop_after(&at("stop_s"), self.stop_s, self.start_s)?;
        if let Some(b) = self.rcv_buffer_bytes {
            super::check_rcv_buffer(&at("rcv_buffer_bytes"), b, mss)?;
        }
        traffic_class(&at("class"), self.class)?;
        if let DestinationRule::Mixed { across_racks } = self.destination {
            real(&at("destination.across_racks"), across_racks, Bound::From(0.0), MAX_FRACTION, "")?;
        }
        Ok(())
    }
}

/// The generators: how many, and each one's table; `hosts`: hosts of the network, `mss`: the
/// segment size.
pub(super) fn check_traffic(traffic: &[TrafficSpec], hosts: u32, mss: u32) -> Result<(), ConfigError> {
    limits::at_most("traffic", traffic.len(), limits::MAX_QUERY_WORKLOADS, "generators")?;
    for (i, g) in traffic.iter().enumerate() {
        g.check(&format!("traffic[{i}]"), hosts, mss)?;
    }
    Ok(())
}
