//! TCP: the connection end state machine, RTO computation, congestion control, and the
//! receive-window policies that run beside the stack on a host's interface.

pub mod cc;
pub mod endpoint;
#[cfg(test)]
mod endpoint_tests;
#[cfg(test)]
mod frto_tests;
pub mod ictcp;
#[cfg(test)]
mod ictcp_tests;
pub mod options;
pub mod ranges;
pub mod receive_window;
mod receiver;
#[cfg(test)]
mod recovery_tests;
pub mod rtt;
#[cfg(test)]
mod sack_tests;
mod sender;
#[cfg(test)]
mod stack_tests;
#[cfg(test)]
mod test_support;

pub use endpoint::{Endpoint, State, TcpParams, Timer};
