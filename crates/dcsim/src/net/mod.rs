//! Forwarding elements: packets, egress ports (queue + AQM + link), queue disciplines,
//! topologies and routing.

pub mod aqm;
pub mod buffer;
pub mod packet;
pub mod port;
pub mod qdisc;
pub mod routing;
pub mod rx_moderation;
pub mod topology;

#[cfg(test)]
mod model_tests;
