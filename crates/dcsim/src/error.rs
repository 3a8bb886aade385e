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
    /// The reason is kept to one line: control characters it quotes from the input (a key
    /// with a newline in it, say) are written as escapes.
    pub fn new(field: String, reason: String) -> Self {
        if !reason.contains(char::is_control) {
            return Self { field, reason };
        }
        let mut one_line = String::with_capacity(reason.len());
        for c in reason.chars() {
            if c.is_control() {
                one_line.extend(c.escape_default());
            } else {
                one_line.push(c);
            }
        }
        Self { field, reason: one_line }
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

#[cfg(test)]
mod tests {
    use super::ConfigError;

    #[test]
    fn a_reason_quoting_control_characters_stays_on_one_line() {
        // Found by fuzzing: serde quotes an unknown key as it is, newline included.
        let e = ConfigError::new("queries[0].\"a\\nb\"".into(), "unknown field `a\nb`, expected `c`".into());
        assert_eq!(e.to_string(), "queries[0].\"a\\nb\": unknown field `a\\nb`, expected `c`");
        assert_eq!(ConfigError::new(String::new(), "tab\there".into()).reason, "tab\\there");
    }
}
