//! TCP: the connection end state machine, RTO computation and congestion control.

pub mod cc;
pub mod endpoint;
pub mod ranges;
pub mod rtt;

pub use endpoint::{Endpoint, State, TcpParams};
