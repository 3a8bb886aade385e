//! Receive-window policies: a filter between a host's TCP stack and its NIC that watches
//! every packet the interface receives and may lower the window field of every segment the
//! host sends (as ICTCP's driver does, ICTCP paper §VI-A). A policy is not part of a TCP end:
//! it sees all of its host's connections at once, and the senders' congestion control is
//! untouched, so any policy composes with every controller.
//!
//! A new policy is a type implementing [`ReceiveWindowPolicy`] and one line in the
//! `policies!` registry below; the simulation calls every policy through [`HostPolicy`], a
//! `match` over the registered types (no dynamic dispatch on the packet path).

use crate::net::packet::Segment;
use crate::units::Time;

/// A receive-window policy on one host's interface. Connections are known by the key the
/// policy gave them in [`ReceiveWindowPolicy::add_conn`].
pub trait ReceiveWindowPolicy: Clone + std::fmt::Debug {
    /// A connection end on this host opens (at `now`, its connection's start): its key.
    fn add_conn(&mut self, now: Time) -> u32;

    /// The connection `key` ended (its FIN or RST, ICTCP §VI-A): it leaves the policy's table.
    fn remove_conn(&mut self, key: u32);

    /// A packet of `size` bytes arrives on the interface, with `payload` bytes of data and
    /// echoing `ts_ecr` (0: no echo); `conn` is the key of the connection end on this host it
    /// belongs to, None for packets of no TCP connection here (UDP).
    fn on_receive(&mut self, now: Time, size: u32, conn: Option<u32>, payload: u32, ts_ecr: Time);

    /// A segment of connection `conn` leaves the host: the policy may lower `pkt.rwnd`, and
    /// never raises it above the stack's own window.
    fn on_send(&mut self, now: Time, conn: u32, pkt: &mut Segment);

    /// Connections in its table.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The registry: generates `HostPolicy`, the enum of the registered policies, and its
/// dispatch. Each entry is `Variant(Type)`.
macro_rules! policies {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)+) => {
        /// A host's receive-window policy, one of the registered types.
        #[derive(Debug, Clone)]
        pub enum HostPolicy {
            $($(#[$doc])* $variant($ty),)+
        }

        impl HostPolicy {
            pub fn add_conn(&mut self, now: Time) -> u32 {
                match self {
                    $(HostPolicy::$variant(p) => ReceiveWindowPolicy::add_conn(p, now),)+
                }
            }

            pub fn remove_conn(&mut self, key: u32) {
                match self {
                    $(HostPolicy::$variant(p) => ReceiveWindowPolicy::remove_conn(p, key),)+
                }
            }

            #[inline]
            pub fn on_receive(&mut self, now: Time, size: u32, conn: Option<u32>, payload: u32, ts_ecr: Time) {
                match self {
                    $(HostPolicy::$variant(p) => ReceiveWindowPolicy::on_receive(p, now, size, conn, payload, ts_ecr),)+
                }
            }

            #[inline]
            pub fn on_send(&mut self, now: Time, conn: u32, pkt: &mut Segment) {
                match self {
                    $(HostPolicy::$variant(p) => ReceiveWindowPolicy::on_send(p, now, conn, pkt),)+
                }
            }

            pub fn len(&self) -> usize {
                match self {
                    $(HostPolicy::$variant(p) => ReceiveWindowPolicy::len(p),)+
                }
            }

            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }
    };
}

policies! {
    /// ICTCP (ICTCP paper §IV), on the hosts in `ictcp.hosts`.
    Ictcp(super::ictcp::Interface),
}

impl HostPolicy {
    /// ICTCP's state, for its own measurements (the flow samples' ICTCP columns).
    pub fn ictcp(&self) -> Option<&super::ictcp::Interface> {
        match self {
            HostPolicy::Ictcp(i) => Some(i),
        }
    }

    pub fn ictcp_mut(&mut self) -> Option<&mut super::ictcp::Interface> {
        match self {
            HostPolicy::Ictcp(i) => Some(i),
        }
    }
}
