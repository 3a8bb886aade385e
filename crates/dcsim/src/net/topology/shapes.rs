//! Every topology kind as one graph: hosts, named switches and the links between them, in the
//! order their ports are created. Builders give node, link and path counts in closed form,
//! checked by the tests against the built network.

use std::collections::HashMap;

use crate::error::ConfigError;
use crate::scenario::{limits, LinkConfig, Topology};

/// A network as nodes and links. Hosts are nodes `0..hosts`, switch `i` is node `hosts + i`.
#[derive(Debug)]
pub struct Graph {
    pub hosts: u32,
    pub switches: Vec<String>,
    pub links: Vec<Link>,
}

/// A link between two nodes; it makes two egress ports, `a->b` first, then `b->a`.
#[derive(Debug)]
pub struct Link {
    pub a: u32,
    pub b: u32,
    pub config: LinkConfig,
    /// 0 for the first link between `a` and `b`, 1 for the second, ... (names `a->b#1`).
    pub parallel: u32,
}

/// What a topology creates, computed before anything is built (for bounds and the memory
/// estimate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub hosts: u64,
    pub switches: u64,
    pub links: u64,
}

impl Size {
    /// Two egress ports per link.
    pub fn ports(&self) -> u64 {
        2 * self.links
    }
}

impl Graph {
    fn new(hosts: u32) -> Self {
        Graph {
            hosts,
            switches: Vec::new(),
            links: Vec::with_capacity(hosts as usize),
        }
    }

    fn switch(&mut self, name: String) -> u32 {
        self.switches.push(name);
        self.hosts + self.switches.len() as u32 - 1
    }

    fn link(&mut self, a: u32, b: u32, config: &LinkConfig) {
        self.links.push(Link {
            a,
            b,
            config: config.clone(),
            parallel: 0,
        });
    }
}

impl Topology {
    /// Node and link counts of the topology (closed forms; for `graph`, as listed).
    pub fn size(&self) -> Size {
        let (hosts, switches, links) = match self {
            Topology::Star { hosts, .. } => (*hosts as u64, 1, *hosts as u64),
            Topology::Dumbbell { left, right, .. } => {
                let h = *left as u64 + *right as u64;
                (h, 2, h + 1)
            }
            Topology::MultiBottleneck { s1, s2, s3, r2, .. } => {
                let h = *s1 as u64 + *s2 as u64 + *s3 as u64 + 1 + *r2 as u64;
                (h, 3, h + 2)
            }
            Topology::Rack { hosts, uplinks, .. } => {
                let h = *hosts as u64 + *uplinks as u64;
                (h, 1, h)
            }
            Topology::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
                ..
            } => {
                let (l, s, n) = (*leaves as u64, *spines as u64, *hosts_per_leaf as u64);
                (l * n, l + s, l * n + l * s)
            }
            Topology::FatTree { k, .. } => {
                // Al-Fares et al.: k³/4 hosts, 5k²/4 switches, k³/4 links in each of three tiers.
                let k = *k as u64;
                (k * k * k / 4, 5 * k * k / 4, 3 * k * k * k / 4)
            }
            Topology::Graph {
                hosts, switches, links, ..
            } => (*hosts as u64, switches.len() as u64, links.len() as u64),
        };
        Size { hosts, switches, links }
    }

    /// Number of hosts the topology creates.
    pub fn host_count(&self) -> u32 {
        // `check` bounds the count to `limits::MAX_HOSTS`.
        self.size().hosts.min(u32::MAX as u64) as u32
    }

    /// The links each topology uses, with the field names they go by.
    pub fn links(&self) -> Vec<(String, &LinkConfig)> {
        let one = |name: &str, l| vec![(format!("topology.{name}"), l)];
        match self {
            Topology::Star { link, host_links, .. } => {
                let mut v = one("link", link);
                v.extend(host_links.iter().enumerate().map(|(i, l)| (format!("topology.host_links[{i}]"), l)));
                v
            }
            Topology::Dumbbell { host_link, core_link, .. } | Topology::MultiBottleneck { host_link, core_link, .. } => {
                [one("host_link", host_link), one("core_link", core_link)].concat()
            }
            Topology::Rack { host_link, uplink, .. } | Topology::LeafSpine { host_link, uplink, .. } => {
                [one("host_link", host_link), one("uplink", uplink)].concat()
            }
            Topology::FatTree {
                link,
                host_link,
                edge_link,
                core_link,
                ..
            } => {
                let mut v = one("link", link);
                for (name, l) in [("host_link", host_link), ("edge_link", edge_link), ("core_link", core_link)] {
                    if let Some(l) = l {
                        v.extend(one(name, l));
                    }
                }
                v
            }
            Topology::Graph { link, .. } => one("link", link),
        }
    }

    /// Checks the shape's counts against their bounds (links are checked by the caller).
    pub fn check(&self) -> Result<(), ConfigError> {
        let err = |field: &str, reason: String| Err(ConfigError::new(format!("topology.{field}"), reason));
        let at_least = |field: &str, v: u32, min: u32| {
            if v < min {
                return err(field, format!("must be at least {min}, got {v}"));
            }
            Ok(())
        };
        match self {
            Topology::Star { hosts, host_links, .. } => {
                if *hosts < limits::MIN_HOSTS {
                    return err("hosts", format!("a star needs at least {} hosts, got {hosts}", limits::MIN_HOSTS));
                }
                if host_links.len() > *hosts as usize {
                    return err("host_links", format!("{} entries for {} hosts", host_links.len(), hosts));
                }
            }
            Topology::Dumbbell { left, right, .. } => {
                if *left == 0 || *right == 0 {
                    return Err(ConfigError::new(
                        "topology".into(),
                        "a dumbbell needs at least one host on each side".into(),
                    ));
                }
            }
            Topology::MultiBottleneck { .. } => {
                // R1 is always there; any group may be empty, but not all of them.
                if self.size().hosts < limits::MIN_HOSTS as u64 {
                    return err("s1", "the groups S1, S2, S3 and R2 are all empty".into());
                }
            }
            Topology::Rack { hosts, .. } => at_least("hosts", *hosts, 1)?,
            Topology::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
                oversubscription,
                ..
            } => {
                at_least("leaves", *leaves, 1)?;
                at_least("spines", *spines, 1)?;
                at_least("hosts_per_leaf", *hosts_per_leaf, 1)?;
                if let Some(o) = oversubscription {
                    let (min, max) = (limits::MIN_OVERSUBSCRIPTION, limits::MAX_OVERSUBSCRIPTION);
                    if !(o.is_finite() && (min..=max).contains(o)) {
                        return err("oversubscription", format!("must be in [{min}, {max}], got {o}"));
                    }
                }
            }
            Topology::FatTree { k, .. } => {
                let (min, max) = (limits::MIN_FAT_TREE_K, limits::MAX_FAT_TREE_K);
                if *k < min || *k > max || k % 2 != 0 {
                    return err("k", format!("must be an even number in [{min}, {max}], got {k}"));
                }
            }
            Topology::Graph { hosts, switches, .. } => {
                at_least("hosts", *hosts, limits::MIN_HOSTS)?;
                at_least("switches", switches.len().min(u32::MAX as usize) as u32, 1)
                    .or_else(|_| err("switches", "a graph needs at least one switch".into()))?;
            }
        }
        let size = self.size();
        let field = match self {
            Topology::Star { .. } | Topology::Rack { .. } | Topology::Graph { .. } => "hosts",
            Topology::LeafSpine { .. } => "hosts_per_leaf",
            Topology::FatTree { .. } => "k",
            Topology::Dumbbell { .. } => "right",
            Topology::MultiBottleneck { .. } => "r2",
        };
        for (field, what, n, max) in [
            (field, "hosts", size.hosts, limits::MAX_HOSTS),
            ("switches", "switches", size.switches, limits::MAX_SWITCHES),
            ("links", "links", size.links, limits::MAX_LINKS),
        ] {
            if n > max as u64 {
                return err(field, format!("the network would have {n} {what}; at most {max} are allowed"));
            }
        }
        Ok(())
    }

    /// The network as a graph. `check` has passed.
    pub fn graph(&self) -> Result<Graph, ConfigError> {
        let mut g;
        match self {
            Topology::Star { hosts, link, host_links } => {
                g = Graph::new(*hosts);
                let s0 = g.switch("s0".into());
                for h in 0..*hosts {
                    g.link(h, s0, host_links.get(h as usize).unwrap_or(link));
                }
            }
            Topology::Dumbbell {
                left,
                right,
                host_link,
                core_link,
            } => {
                g = Graph::new(left + right);
                let s0 = g.switch("s0".into());
                let s1 = g.switch("s1".into());
                for h in 0..left + right {
                    g.link(h, if h < *left { s0 } else { s1 }, host_link);
                }
                g.link(s0, s1, core_link);
            }
            Topology::MultiBottleneck {
                s1,
                s2,
                s3,
                r2,
                host_link,
                core_link,
            } => {
                g = Graph::new(s1 + s2 + s3 + 1 + r2);
                let t1 = g.switch("triumph1".into());
                let sc = g.switch("scorpion".into());
                let t2 = g.switch("triumph2".into());
                for h in 0..g.hosts {
                    g.link(h, if h < s1 + s2 { t1 } else { t2 }, host_link);
                }
                g.link(t1, sc, core_link);
                g.link(sc, t2, core_link);
            }
            Topology::Rack {
                hosts,
                uplinks,
                host_link,
                uplink,
            } => {
                g = Graph::new(hosts + uplinks);
                let tor = g.switch("tor".into());
                for h in 0..hosts + uplinks {
                    g.link(h, tor, if h < *hosts { host_link } else { uplink });
                }
            }
            Topology::LeafSpine {
                leaves,
                spines,
                hosts_per_leaf,
                host_link,
                uplink,
                oversubscription,
            } => {
                g = Graph::new(leaves * hosts_per_leaf);
                let leaf: Vec<u32> = (0..*leaves).map(|i| g.switch(format!("leaf{i}"))).collect();
                let spine: Vec<u32> = (0..*spines).map(|i| g.switch(format!("spine{i}"))).collect();
                for h in 0..g.hosts {
                    g.link(h, leaf[(h / hosts_per_leaf) as usize], host_link);
                }
                let mut up = uplink.clone();
                if let Some(o) = oversubscription {
                    up.rate_gbps = *hosts_per_leaf as f64 * host_link.rate_gbps / (*spines as f64 * o);
                    check_rate("topology.oversubscription", up.rate_gbps)?;
                }
                for &l in &leaf {
                    for &s in &spine {
                        g.link(l, s, &up);
                    }
                }
            }
            Topology::FatTree {
                k,
                link,
                host_link,
                edge_link,
                core_link,
            } => {
                let half = k / 2;
                g = Graph::new(k * half * half);
                let edge: Vec<u32> = (0..k * half).map(|i| g.switch(format!("edge{}_{}", i / half, i % half))).collect();
                let agg: Vec<u32> = (0..k * half).map(|i| g.switch(format!("agg{}_{}", i / half, i % half))).collect();
                let core: Vec<u32> = (0..half * half).map(|i| g.switch(format!("core{i}"))).collect();
                for h in 0..g.hosts {
                    g.link(h, edge[(h / half) as usize], host_link.as_ref().unwrap_or(link));
                }
                for pod in 0..*k {
                    for e in 0..half {
                        for a in 0..half {
                            let (e, a) = (edge[(pod * half + e) as usize], agg[(pod * half + a) as usize]);
                            g.link(e, a, edge_link.as_ref().unwrap_or(link));
                        }
                    }
                }
                for pod in 0..*k {
                    for a in 0..half {
                        for c in 0..half {
                            g.link(
                                agg[(pod * half + a) as usize],
                                core[(a * half + c) as usize],
                                core_link.as_ref().unwrap_or(link),
                            );
                        }
                    }
                }
            }
            Topology::Graph {
                hosts,
                switches,
                link,
                links,
                ..
            } => return explicit_graph(*hosts, switches, link, links),
        }
        Ok(g)
    }
}

/// The most partitions a network may be cut into (`topology.partitions`; a leaf-spine with
/// more leaves stays whole): every window, each partition looks at a mailbox from each other.
pub const MAX_PARTITIONS: usize = 1024;

impl Topology {
    /// The partition of each node of `g` (hosts first, then switches, as `graph` numbers
    /// them) when the network can be cut for a parallel run: a fat-tree per pod (its edge
    /// and aggregation switches with their hosts; core switch `j` with pod `j mod k`, which
    /// spreads the cores evenly), a leaf-spine per leaf (spine `j` with leaf `j mod leaves`),
    /// a `graph` as its `partitions` list. None for the other kinds, or one partition.
    pub fn partitions(&self, g: &Graph) -> Result<Option<Vec<u16>>, ConfigError> {
        let nodes = (g.hosts as usize) + g.switches.len();
        let part: Vec<u16> = match self {
            Topology::FatTree { k, .. } => {
                let (k, half) = (*k, *k / 2);
                let hosts_per_pod = half * half;
                let hosts = (0..g.hosts).map(|h| h / hosts_per_pod);
                // Switches in `graph`'s order: k·half edges, k·half aggregations, half² cores.
                let pods = (0..2 * k * half).map(|i| (i % (k * half)) / half);
                let cores = (0..half * half).map(|c| c % k);
                hosts.chain(pods).chain(cores).map(|p| p as u16).collect()
            }
            Topology::LeafSpine {
                leaves,
                hosts_per_leaf,
                spines,
                ..
            } => {
                let hosts = (0..g.hosts).map(|h| h / hosts_per_leaf);
                let leaf = 0..*leaves;
                let spine = (0..*spines).map(|j| j % leaves);
                hosts.chain(leaf).chain(spine).map(|p| p as u16).collect()
            }
            Topology::Graph { partitions, switches, .. } if !partitions.is_empty() => graph_partitions(g, switches, partitions)?,
            _ => return Ok(None),
        };
        debug_assert_eq!(part.len(), nodes);
        let parts = part.iter().map(|&p| p as usize + 1).max().unwrap_or(1);
        Ok((parts > 1 && parts <= MAX_PARTITIONS).then_some(part))
    }
}

/// `topology.partitions` of an explicit graph, checked: each switch in exactly one list,
/// each host with its switch.
fn graph_partitions(g: &Graph, switches: &[String], lists: &[Vec<String>]) -> Result<Vec<u16>, ConfigError> {
    if lists.len() > MAX_PARTITIONS {
        return Err(ConfigError::new(
            "topology.partitions".into(),
            format!("at most {MAX_PARTITIONS} partitions, got {}", lists.len()),
        ));
    }
    let index: HashMap<&str, usize> = switches.iter().enumerate().map(|(i, s)| (s.as_str(), i)).collect();
    let mut of_switch: Vec<Option<u16>> = vec![None; switches.len()];
    for (p, list) in lists.iter().enumerate() {
        if list.is_empty() {
            return Err(ConfigError::new(
                format!("topology.partitions[{p}]"),
                "a partition needs a switch".into(),
            ));
        }
        for (j, name) in list.iter().enumerate() {
            let field = format!("topology.partitions[{p}][{j}]");
            let Some(&i) = index.get(name.as_str()) else {
                return Err(ConfigError::new(field, format!("no switch named {name:?}")));
            };
            if let Some(q) = of_switch[i].replace(p as u16) {
                return Err(ConfigError::new(field, format!("{name:?} is in partition {q} already")));
            }
        }
    }
    if let Some(i) = of_switch.iter().position(Option::is_none) {
        return Err(ConfigError::new(
            "topology.partitions".into(),
            format!("switch {:?} is in no partition (list every switch once)", switches[i]),
        ));
    }
    let mut part: Vec<u16> = vec![0; g.hosts as usize];
    for l in &g.links {
        let (host, switch) = if l.a < g.hosts { (l.a, l.b) } else { (l.b, l.a) };
        if host < g.hosts {
            part[host as usize] = of_switch[(switch - g.hosts) as usize].expect("every switch listed");
        }
    }
    part.extend(of_switch.into_iter().map(|p| p.expect("every switch listed")));
    Ok(part)
}

/// Checks a link rate derived from other fields.
fn check_rate(field: &str, gbps: f64) -> Result<(), ConfigError> {
    if !(gbps.is_finite() && (limits::MIN_RATE_GBPS..=limits::MAX_RATE_GBPS).contains(&gbps)) {
        return Err(ConfigError::new(
            field.into(),
            format!(
                "gives an uplink rate of {gbps} Gbit/s, outside [{}, {}]",
                limits::MIN_RATE_GBPS,
                limits::MAX_RATE_GBPS
            ),
        ));
    }
    Ok(())
}

/// An explicit list of switches and links: names resolved, every host on exactly one link to
/// a switch.
fn explicit_graph(hosts: u32, switches: &[String], base: &LinkConfig, links: &[crate::scenario::GraphLink]) -> Result<Graph, ConfigError> {
    let mut g = Graph::new(hosts);
    let mut ids: HashMap<&str, u32> = HashMap::with_capacity(switches.len());
    for (i, name) in switches.iter().enumerate() {
        let field = format!("topology.switches[{i}]");
        let valid = !name.is_empty()
            && name.len() <= 64
            && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
            && host_number(name).is_none();
        if !valid {
            return Err(ConfigError::new(
                field,
                format!("{name:?} is not a switch name (1-64 letters, digits, '_', '.', '-'; not h<number>)"),
            ));
        }
        if ids.insert(name, g.switch(name.clone())).is_some() {
            return Err(ConfigError::new(field, format!("{name:?} is named twice")));
        }
    }
    let node = |field: String, name: &str| -> Result<u32, ConfigError> {
        match host_number(name) {
            Some(h) if h < hosts => Ok(h),
            Some(_) => Err(ConfigError::new(
                field,
                format!("host {name} does not exist (hosts are h0..h{})", hosts - 1),
            )),
            None => ids
                .get(name)
                .copied()
                .ok_or_else(|| ConfigError::new(field, format!("no node named {name:?} (a host h<number> or a listed switch)"))),
        }
    };
    let mut host_link: Vec<Option<usize>> = vec![None; hosts as usize];
    let mut seen: HashMap<(u32, u32), u32> = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        let field = |f: &str| format!("topology.links[{i}].{f}");
        let (a, b) = (node(field("a"), &l.a)?, node(field("b"), &l.b)?);
        if a == b {
            return Err(ConfigError::new(field("b"), "a link needs two different nodes".into()));
        }
        for (end, n) in [("a", a), ("b", b)] {
            if n < hosts {
                let other = if n == a { b } else { a };
                if other < hosts {
                    return Err(ConfigError::new(field(end), "a host links to a switch, not to another host".into()));
                }
                if let Some(j) = host_link[n as usize].replace(i) {
                    return Err(ConfigError::new(
                        field(end),
                        format!("host h{n} already has a link (links[{j}]); a host has one NIC"),
                    ));
                }
            }
        }
        let parallel = seen.entry((a.min(b), a.max(b))).or_insert(0);
        g.links.push(Link {
            a,
            b,
            config: l.resolve(base),
            parallel: *parallel,
        });
        *parallel += 1;
    }
    if let Some(h) = host_link.iter().position(Option::is_none) {
        return Err(ConfigError::new("topology.links".into(), format!("host h{h} has no link")));
    }
    Ok(g)
}

/// `Some(n)` for a host name `h<n>`.
pub fn host_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix('h')?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    digits.parse().ok()
}
