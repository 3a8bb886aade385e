//! Forwarding elements: packets, egress ports (queue + AQM + link) and the topology builder.

pub mod aqm;
pub mod buffer;
pub mod packet;
pub mod port;
pub mod rx_moderation;
pub mod topology;
