//! `[switch]`: the switch ports' buffers, AQM, ECMP and class queues.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{default_true, limits, TcpConfig};
use crate::error::ConfigError;
pub use crate::net::aqm::{MarkAt, NonEctPolicy};
pub use crate::net::routing::Ecmp;

/// The most class queues a switch port has: one per traffic class.
const MAX_CLASS_QUEUES: usize = limits::MAX_TRAFFIC_CLASS as usize + 1;
/// The largest DRR weight: 1000, a class served a thousand times another's share.
const MAX_DRR_WEIGHT: u32 = 1000;
/// The largest multiplier α of a dynamic threshold: 10^6, where a queue may take all the free
/// memory there is anyway (the presets' α are 0.03 and 0.21).
const MAX_THRESHOLD_ALPHA: f64 = 1e6;
/// PI's largest gains a and b: 1, a change of the marking probability by 1 for each packet
/// of queue error at one sample (the paper's design example has about 1.8e-5).
const MAX_PI_GAIN: f64 = 1.0;
/// PI's slowest sampling, Hz: once in 1000 s.
const MIN_PI_SAMPLE_HZ: f64 = 1e-3;
/// PI's fastest sampling, Hz: once a nanosecond.
const MAX_PI_SAMPLE_HZ: f64 = 1e9;
/// RED's largest weight exponent: w_q = 2^-30, an average that takes about 10^9 arrivals to
/// follow the queue (DCTCP paper §4.1 uses 9).
const MAX_RED_WEIGHT_LOG2: u32 = 30;

/// Switch egress ports: buffer limit and active queue management.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchConfig {
    pub buffer: BufferConfig,
    /// The AQM of every switch port's queue (of every class queue without its own `aqm`).
    pub aqm: AqmConfig,
    /// How a switch chooses among equal-cost next hops.
    pub ecmp: Ecmp,
    /// Several class queues per switch port (DCTCP paper §1; none: one FIFO queue per port).
    pub classes: Option<ClassesConfig>,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        Self {
            buffer: BufferConfig::default(),
            aqm: AqmConfig::DropTail,
            ecmp: Ecmp::PerFlow,
            classes: None,
        }
    }
}

/// Class queues on every switch port (DCTCP paper §1: "Ethernet priorities (Class of
/// Service)"). A packet is classified on arrival, joins its class queue (the class's limit
/// and AQM apply, within the port's buffer or the switch's shared memory), and the scheduler
/// picks the class the link serves next.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassesConfig {
    /// Which class the link serves next.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// How a packet's class is chosen.
    #[serde(default)]
    pub classify: ClassifyConfig,
    /// DRR: bytes a class of weight 1 may send per round (default: one full-size packet,
    /// `tcp.mss + tcp.header_bytes`).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
    pub quantum_bytes: Option<u64>,
    /// The class queues, class 0 first (strict priority: the highest). 1 to 8.
    pub queues: Vec<ClassQueueConfig>,
}

/// Which backlogged class the link serves next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Deficit round robin by `weight` (Shreedhar and Varghese 1995); equal weights by
    /// default (our choice; the papers name no scheduler).
    #[default]
    Drr,
    /// Always the lowest-numbered backlogged class (IEEE 802.1Q strict priority).
    StrictPriority,
}

/// How a switch port chooses a packet's class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClassifyConfig {
    /// The class its host gave the flow (`flows[].class`, `queries[].class`: a DSCP).
    #[default]
    Flow,
    /// ECN-capable (ECT or CE) packets to class `ect`, the others to class `not_ect`.
    Ecn {
        #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
        ect: u8,
        #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
        not_ect: u8,
    },
    /// SYN and SYN-ACK to class `syn`, pure ACKs to class `ack`, data to class `data`.
    PacketType {
        #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
        syn: u8,
        #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
        ack: u8,
        #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
        data: u8,
    },
}

/// One class queue of a switch port.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassQueueConfig {
    /// DRR weight: the class's quantum is `weight × quantum_bytes`.
    #[serde(default = "default_weight")]
    #[schemars(range(min = 1, max = "MAX_DRR_WEIGHT"))]
    pub weight: u32,
    /// Packets this class may hold (default: only the port's limit).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
    pub limit_packets: Option<u32>,
    /// Bytes this class may hold (default: only the port's limit).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
    pub limit_bytes: Option<u64>,
    /// Share the port's buffer dynamically: the class may hold up to `alpha` × the bytes the
    /// port still has free (needs a port byte limit). Default: a static limit only.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "MAX_THRESHOLD_ALPHA"))]
    pub alpha: Option<f64>,
    /// The class's AQM (default: `switch.aqm`).
    #[serde(default)]
    pub aqm: Option<AqmConfig>,
}

fn default_weight() -> u32 {
    1
}

/// How much a port may hold (DCTCP paper §2.3.1). A packet that does not fit is dropped.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BufferConfig {
    /// A fixed allocation per port, in packets and/or bytes (whichever is hit first) (DCTCP §4.2.1).
    PerPort {
        /// Packets a port may hold (none = no packet limit).
        #[serde(default)]
        #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
        limit_packets: Option<u32>,
        /// Bytes a port may hold (none = no byte limit).
        #[serde(default)]
        #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
        limit_bytes: Option<u64>,
    },
    /// One memory shared by all ports of a switch, with dynamic per-port thresholds (DCTCP §2.3.1;
    /// Choudhury–Hahne): a packet of s bytes joins port p iff q_p + s ≤ alpha·(B − Σq) and
    /// Σq + s ≤ B, where B = `total_bytes` and Σq is what all ports hold.
    Shared {
        /// B: the shared memory, bytes.
        #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
        total_bytes: u64,
        /// The dynamic threshold's multiplier.
        #[schemars(range(min = 0.0, max = "MAX_THRESHOLD_ALPHA"))]
        alpha: f64,
        /// Optional static cap per port as well, packets.
        #[serde(default)]
        #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
        limit_packets: Option<u32>,
    },
    /// A switch of the papers' testbeds (see `SwitchPreset`).
    Preset { name: SwitchPreset },
}

impl Default for BufferConfig {
    fn default() -> Self {
        // The DCTCP testbed's switch (DCTCP paper §4: "the switches used their default
        // dynamic buffer allocation policy").
        BufferConfig::Preset {
            name: SwitchPreset::Triumph,
        }
    }
}

/// Switches of the papers' testbeds. Each is a shared buffer with a dynamic threshold; the
/// allocation policy is not given in the papers, so α comes from calibrating the
/// Choudhury–Hahne model to the one number given for each (below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SwitchPreset {
    /// Broadcom Triumph, 48 × 1 Gbps + 4 × 10 Gbps, 4 MB shared (DCTCP Table 1); one busy
    /// port gets "up to ~700KB" (DCTCP §4.1): α = 700/3300 = 0.212 with B = 4,000,000 B.
    Triumph,
    /// Broadcom Scorpion, 24 × 10 Gbps, 4 MB shared (DCTCP Table 1); α as the Triumph
    /// (our choice, the papers do not say: same vendor MMU).
    Scorpion,
    /// Cisco CAT4948, 48 × 1 Gbps + 2 × 10 Gbps, 16 MB, no ECN (DCTCP Table 1, footnote 12);
    /// α as the Triumph (our choice, the papers do not say): one busy port gets ≈ 2.8 MB.
    Cat4948,
    /// Quanta LB4G, 48 × 1 Gbps, 4 MB (ICTCP §II-C), "dynamic buffer management to allocate a
    /// buffer pool shared by all ports" (ICTCP §V). Our choice: one busy port holds 128.5 kB,
    /// α = 128,500/3,871,500 = 0.0332. §V gives 85 kB as the equal split (the limit when every
    /// port incasts at once: ≤ 32 senders at 2 MSS) and 128.5 kB as what its own 47-server
    /// experiment needs at 2 MSS; the shared pool is what lets its Figs. 8-9 run up to 46
    /// senders with ≤ 6% timeouts. The Triumph's 700 KB would not let TCP collapse (Fig. 3).
    QuantaLb4g,
}

impl SwitchPreset {
    /// (B bytes, α) of the preset.
    pub fn shared_buffer(self) -> (u64, f64) {
        const ALPHA_TRIUMPH: f64 = 700.0 / 3300.0;
        const ALPHA_LB4G: f64 = 128.5 / 3871.5;
        match self {
            SwitchPreset::Triumph | SwitchPreset::Scorpion => (4_000_000, ALPHA_TRIUMPH),
            SwitchPreset::Cat4948 => (16_000_000, ALPHA_TRIUMPH),
            SwitchPreset::QuantaLb4g => (4_000_000, ALPHA_LB4G),
        }
    }
}

/// What an egress port does on arrival besides the buffer check (DCTCP paper §3.1).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// No marking; drop only when the buffer is full (DCTCP paper §4.1, TCP runs).
    DropTail,
    /// DCTCP marking: CE if the instantaneous queue exceeds K packets on arrival (DCTCP §3.1).
    Threshold {
        /// K in packets. Default: 20 on ports up to 1 Gbps, 65 above (DCTCP paper §3.5).
        #[serde(default)]
        #[schemars(range(max = "limits::MAX_PACKETS"))]
        k_packets: Option<u32>,
        /// What a non-ECT packet meets above K: `drop` (RED-ECN hardware) or `enqueue`.
        #[serde(default)]
        nonect: NonEctPolicy,
        /// Whether the packet being serialised counts in the occupancy (ns-2 does not).
        #[serde(default = "default_true")]
        count_in_service: bool,
        /// `enqueue`: a packet is marked if more than K packets are ahead of it when it
        /// arrives (DCTCP §3.1). `dequeue`: if more than K stay behind it when it leaves the
        /// queue for the link (the mark reaches the sender a queueing delay sooner).
        #[serde(default)]
        at: MarkAt,
    },
    /// The proportional-integral controller of Hollot, Misra, Towsley and Gong (INFOCOM
    /// 2001): every 1/`sample_hz` s, p += a·(q − q_ref) − b·(q_old − q_ref); a packet leaving
    /// the queue is marked (ECT) or dropped with probability p. Defaults: the paper's design
    /// example (a = 1.822e-5, b = 1.816e-5, 160 Hz, q_ref = 200 packets), tuned for a 15 Mb/s
    /// link with 60 flows; a datacenter port needs its own (DCTCP §3.5 gives none).
    Pi {
        #[serde(default = "default_pi_a")]
        #[schemars(range(min = 0.0, max = "MAX_PI_GAIN"))]
        a: f64,
        #[serde(default = "default_pi_b")]
        #[schemars(range(min = 0.0, max = "MAX_PI_GAIN"))]
        b: f64,
        /// q_ref, packets.
        #[serde(default = "default_pi_q_ref")]
        #[schemars(range(min = 0.0, max = "limits::MAX_PACKETS"))]
        q_ref_packets: f64,
        /// Sampling frequency, Hz.
        #[serde(default = "default_pi_hz")]
        #[schemars(range(min = "MIN_PI_SAMPLE_HZ", max = "MAX_PI_SAMPLE_HZ"))]
        sample_hz: f64,
        /// Mark ECT packets instead of dropping them.
        #[serde(default = "default_true")]
        ecn: bool,
    },
    /// Random Early Detection on the average queue, marking ECT packets (Floyd & Jacobson).
    Red {
        /// Lower threshold, packets.
        #[schemars(range(min = 0.0, max = "limits::MAX_PACKETS"))]
        min_th: f64,
        /// Upper threshold, packets.
        #[schemars(range(min = 0.0, max = "limits::MAX_PACKETS"))]
        max_th: f64,
        /// Marking (or drop) probability at `max_th`.
        #[serde(default = "default_max_p")]
        #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
        max_p: f64,
        /// EWMA weight w_q = 2^-weight_log2 ("weight = 9", DCTCP paper §4.1).
        #[serde(default = "default_weight_log2")]
        #[schemars(range(max = "MAX_RED_WEIGHT_LOG2"))]
        weight_log2: u32,
        /// Mark ECT packets instead of dropping them (DCTCP paper footnote 5).
        #[serde(default = "default_true")]
        ecn: bool,
        /// Gentle RED: probability ramps from max_p to 1 between max_th and 2·max_th.
        #[serde(default)]
        gentle: bool,
    },
}

fn default_pi_a() -> f64 {
    1.822e-5
}
fn default_pi_b() -> f64 {
    1.816e-5
}
fn default_pi_q_ref() -> f64 {
    200.0
}
fn default_pi_hz() -> f64 {
    160.0
}

fn default_max_p() -> f64 {
    0.1
}
fn default_weight_log2() -> u32 {
    9
}

impl SwitchConfig {
    /// The buffer, AQM and class queues. `tcp` sizes a full packet; `classes` is the class
    /// each source's packets carry, with its field (for `classify = { by = "flow" }`).
    pub(super) fn check(&self, tcp: &TcpConfig, classes: impl Iterator<Item = (String, u8)>) -> Result<(), ConfigError> {
        use limits::*;
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        match &self.buffer {
            BufferConfig::PerPort {
                limit_packets,
                limit_bytes,
            } => {
                if limit_packets.is_none() && limit_bytes.is_none() {
                    return err("switch.buffer", "give limit_packets or limit_bytes".to_string());
                }
                if let Some(p) = limit_packets {
                    whole(&"switch.buffer.limit_packets", *p as u64, 1, MAX_PACKETS as u64, "packets")?;
                }
                if let Some(b) = limit_bytes {
                    let pkt = tcp.packet_bytes() as u64;
                    if *b < pkt {
                        return err("switch.buffer.limit_bytes", format!("{b} B cannot hold one {pkt}-B packet"));
                    }
                    whole(&"switch.buffer.limit_bytes", *b, 1, MAX_BUFFER_BYTES, "B")?;
                }
            }
            BufferConfig::Shared {
                total_bytes,
                alpha,
                limit_packets,
            } => {
                let pkt = tcp.packet_bytes() as u64;
                if *total_bytes < pkt {
                    return err(
                        "switch.buffer.total_bytes",
                        format!("{total_bytes} B cannot hold one {pkt}-B packet"),
                    );
                }
                whole(&"switch.buffer.total_bytes", *total_bytes, 1, MAX_BUFFER_BYTES, "B")?;
                real(&"switch.buffer.alpha", *alpha, Bound::Above(0.0), MAX_THRESHOLD_ALPHA, "")?;
                if let Some(p) = limit_packets {
                    whole(&"switch.buffer.limit_packets", *p as u64, 1, MAX_PACKETS as u64, "packets")?;
                }
            }
            BufferConfig::Preset { .. } => {}
        }
        check_aqm("switch.aqm", &self.aqm)?;
        if let Some(c) = &self.classes {
            check_classes(c, &self.buffer, classes)?;
        }
        Ok(())
    }
}

/// The class queues; `buffer`: the port buffer (a class's `alpha` shares its bytes), `classes`:
/// as for `SwitchConfig::check`.
fn check_classes(c: &ClassesConfig, buffer: &BufferConfig, classes: impl Iterator<Item = (String, u8)>) -> Result<(), ConfigError> {
    use limits::*;
    let n = c.queues.len();
    if !(1..=MAX_CLASS_QUEUES).contains(&n) {
        return Err(ConfigError::new(
            "switch.classes.queues".into(),
            format!("must list 1 to {MAX_CLASS_QUEUES} class queues, got {n}"),
        ));
    }
    let class = |field: &str, v: u8| -> Result<(), ConfigError> {
        if (v as usize) < n {
            return Ok(());
        }
        Err(ConfigError::new(
            field.into(),
            format!("class {v} does not exist: the ports have {n} class queues (0 to {})", n - 1),
        ))
    };
    match c.classify {
        ClassifyConfig::Flow => {
            for (field, v) in classes {
                class(&field, v)?;
            }
        }
        ClassifyConfig::Ecn { ect, not_ect } => {
            class("switch.classes.classify.ect", ect)?;
            class("switch.classes.classify.not_ect", not_ect)?;
        }
        ClassifyConfig::PacketType { syn, ack, data } => {
            class("switch.classes.classify.syn", syn)?;
            class("switch.classes.classify.ack", ack)?;
            class("switch.classes.classify.data", data)?;
        }
    }
    if let Some(q) = c.quantum_bytes {
        whole(&"switch.classes.quantum_bytes", q, 1, MAX_BUFFER_BYTES, "bytes")?;
    }
    let drr_only = |field: String| {
        Err(ConfigError::new(
            field,
            format!(
                "applies to scheduler = \"drr\" only, not {}",
                serde_json::to_string(&c.scheduler).unwrap_or_default()
            ),
        ))
    };
    if c.scheduler != SchedulerKind::Drr {
        if c.quantum_bytes.is_some() {
            return drr_only("switch.classes.quantum_bytes".into());
        }
        if let Some(i) = c.queues.iter().position(|q| q.weight != 1) {
            return drr_only(format!("switch.classes.queues[{i}].weight"));
        }
    }
    for (i, q) in c.queues.iter().enumerate() {
        let f = |name: &str| format!("switch.classes.queues[{i}].{name}");
        whole(&f("weight"), q.weight as u64, 1, MAX_DRR_WEIGHT as u64, "")?;
        if let Some(p) = q.limit_packets {
            whole(&f("limit_packets"), p as u64, 1, MAX_PACKETS as u64, "packets")?;
        }
        if let Some(b) = q.limit_bytes {
            whole(&f("limit_bytes"), b, 1, MAX_BUFFER_BYTES, "bytes")?;
        }
        if let Some(alpha) = q.alpha {
            real(&f("alpha"), alpha, Bound::Above(0.0), MAX_THRESHOLD_ALPHA, "")?;
            if !matches!(buffer, BufferConfig::PerPort { limit_bytes: Some(_), .. }) {
                return Err(ConfigError::new(
                    f("alpha"),
                    "a dynamic share of the port's buffer needs switch.buffer = { kind = \"per_port\", limit_bytes = ... } (on a shared-memory switch the switch's own dynamic threshold applies to each class queue)".into(),
                ));
            }
        }
        if let Some(aqm) = &q.aqm {
            check_aqm(&f("aqm"), aqm)?;
        }
    }
    Ok(())
}

fn check_aqm(field: &str, aqm: &AqmConfig) -> Result<(), ConfigError> {
    use limits::*;
    let f = |name: &str| format!("{field}.{name}");
    match aqm {
        AqmConfig::Red {
            min_th,
            max_th,
            max_p,
            weight_log2,
            ..
        } => {
            real(&f("min_th"), *min_th, Bound::From(0.0), MAX_PACKETS as f64, "packets")?;
            real(&f("max_th"), *max_th, Bound::From(0.0), MAX_PACKETS as f64, "packets")?;
            if !(*min_th >= 0.0 && max_th > min_th) {
                return Err(ConfigError::new(
                    f("max_th"),
                    format!("need 0 ≤ min_th < max_th, got {min_th} and {max_th}"),
                ));
            }
            real(&f("max_p"), *max_p, Bound::Above(0.0), MAX_FRACTION, "")?;
            whole(&f("weight_log2"), *weight_log2 as u64, 0, MAX_RED_WEIGHT_LOG2 as u64, "")?;
        }
        AqmConfig::Threshold { k_packets: Some(k), .. } => {
            // K = 0 is legal (mark whenever anything is queued).
            whole(&f("k_packets"), *k as u64, 0, MAX_PACKETS as u64, "packets")?;
        }
        AqmConfig::Pi {
            a,
            b,
            q_ref_packets,
            sample_hz,
            ..
        } => {
            real(&f("a"), *a, Bound::From(0.0), MAX_PI_GAIN, "")?;
            real(&f("b"), *b, Bound::From(0.0), MAX_PI_GAIN, "")?;
            real(&f("q_ref_packets"), *q_ref_packets, Bound::From(0.0), MAX_PACKETS as f64, "packets")?;
            real(&f("sample_hz"), *sample_hz, Bound::From(MIN_PI_SAMPLE_HZ), MAX_PI_SAMPLE_HZ, "Hz")?;
        }
        // Every variant is listed, so a new one is not left unchecked by accident.
        AqmConfig::DropTail | AqmConfig::Threshold { k_packets: None, .. } => {}
    }
    Ok(())
}
