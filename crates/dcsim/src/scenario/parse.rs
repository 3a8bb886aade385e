//! Reading a scenario document: field paths as messages name them, TOML's syntax errors and
//! its non-finite floats.

use crate::error::ConfigError;

/// Refuses a NaN or infinite float anywhere in a TOML document, naming its field.
pub(super) fn finite_floats(v: &toml::Value, path: &mut String) -> Result<(), ConfigError> {
    let child = |path: &mut String, part: String, v: &toml::Value| {
        let len = path.len();
        path.push_str(&part);
        let r = finite_floats(v, path);
        path.truncate(len);
        r
    };
    match v {
        toml::Value::Float(x) if !x.is_finite() => Err(ConfigError::new(path.clone(), format!("{x} is not a finite number"))),
        toml::Value::Table(t) => t.iter().try_for_each(|(k, v)| {
            let key = path_key(k);
            let part = if path.is_empty() { key } else { format!(".{key}") };
            child(path, part, v)
        }),
        toml::Value::Array(a) => a.iter().enumerate().try_for_each(|(i, v)| child(path, format!("[{i}]"), v)),
        _ => Ok(()),
    }
}

/// A field's path as messages name it (`flows[0].bytes`), with a key that is not a plain name
/// quoted as JSON (`flows[0]."a b"`), so that the path always ends before the first ": ".
pub(super) fn field_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&path_key(key));
            }
            Segment::Unknown => out.push_str(if out.is_empty() { "?" } else { ".?" }),
        }
    }
    out
}

/// A key as a field path names it: a plain name as it is, any other quoted as JSON (which
/// also escapes control characters).
pub(super) fn path_key(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        key.to_string()
    } else {
        serde_json::to_string(key).expect("a string serialises")
    }
}

/// A TOML syntax error on one line, with where it is (toml's own message spans lines).
pub(super) fn toml_syntax(text: &str, e: &toml::de::Error) -> String {
    let reason = e.message().trim().lines().map(str::trim).collect::<Vec<_>>().join("; ");
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("TOML syntax at line {line}, column {column}: {reason}")
        }
        None => format!("TOML syntax: {reason}"),
    }
}
