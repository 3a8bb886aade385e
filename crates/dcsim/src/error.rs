//! Errors a user can cause. The engine never panics on user input: bad scenarios become a
//! `ConfigError` naming the field and the reason.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted path of the offending field, e.g. `flows[2].dst` (empty for the whole file).
    pub field: String,
    pub reason: String,
}

impl ConfigError {
    pub fn new(field: String, reason: String) -> Self {
        Self { field, reason }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // serde_path_to_error writes "." for the root.
        if self.field.is_empty() || self.field == "." {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}

impl std::error::Error for ConfigError {}
