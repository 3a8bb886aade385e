//! Typed ids: a port, a node, a host, a connection, a query workload and a UDP source are each
//! named by their own type, so
//! that one cannot be passed for another, and each indexes the vectors of its kind
//! (`ports[p]` with `p: PortId`). All are 32-bit: a scenario's counts are bounded far below
//! 2^32 (`scenario::limits`), and the ids of packets on the wire stay small.

use std::fmt;
use std::ops::{Index, IndexMut};

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)+) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The position it names in a vector of its kind.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The id of position `i` (a vector of its kind holds fewer than 2^32 elements:
            /// the scenario's bounds).
            #[inline(always)]
            pub fn at(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize, "{} {i} is beyond 32 bits", stringify!($name));
                $name(i as u32)
            }

            /// The ids `0..n`.
            pub fn all(n: usize) -> impl DoubleEndedIterator<Item = Self> + ExactSizeIterator {
                (0..n).map(Self::at)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl<T> Index<$name> for [T] {
            type Output = T;
            #[inline(always)]
            fn index(&self, id: $name) -> &T {
                &self[id.index()]
            }
        }

        impl<T> IndexMut<$name> for [T] {
            #[inline(always)]
            fn index_mut(&mut self, id: $name) -> &mut T {
                &mut self[id.index()]
            }
        }

        impl<T> Index<$name> for Vec<T> {
            type Output = T;
            #[inline(always)]
            fn index(&self, id: $name) -> &T {
                &self[id.index()]
            }
        }

        impl<T> IndexMut<$name> for Vec<T> {
            #[inline(always)]
            fn index_mut(&mut self, id: $name) -> &mut T {
                &mut self[id.index()]
            }
        }
    )+};
}

ids! {
    /// An egress port: a switch port or a host's NIC, with its link (port order is the
    /// network's build order, as `port_names` lists them).
    PortId;
    /// A node: hosts first (node h is host h), then switches.
    NodeId;
    /// A host (`h0`, `h1`, ...): also its node id.
    HostId;
    /// A connection, in order of creation (a flow's id is its index in `flows`).
    ConnId;
    /// A query workload: its index in `queries`.
    WorkloadId;
    /// A UDP source: its index in `udp` (its packets carry it where a TCP segment carries its
    /// connection).
    UdpId;
}

impl HostId {
    /// The node a host is (hosts are the first nodes).
    #[inline(always)]
    pub const fn node(self) -> NodeId {
        NodeId(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_indexes_its_vectors_and_a_host_is_its_node() {
        let mut v: Vec<char> = "abc".chars().collect();
        assert_eq!(v[PortId(2)], 'c');
        v[ConnId(1)] = 'x';
        assert_eq!(v[..][NodeId(1)], 'x');
        assert_eq!(HostId(1).node(), NodeId(1));
        assert_eq!(ConnId::all(3).collect::<Vec<_>>(), [ConnId(0), ConnId(1), ConnId(2)]);
        assert_eq!(PortId::at(7).index(), 7);
        assert_eq!(format!("{}", ConnId(42)), "42");
    }
}
