//! Forwarding elements: packets, egress ports (queue + AQM + link) topologies and routing.

pub mod aqm;
pub mod buffer;
pub mod packet;
pub mod port;
pub mod routing;
pub mod rx_moderation;
pub mod topology;
