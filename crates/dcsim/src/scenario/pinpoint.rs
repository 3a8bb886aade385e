//! The exact field of a mistake inside a `kind = "..."` table. serde reads such a table whole
//! (an internally tagged enum buffers its content before it knows the variant), so its error
//! names the table, not the field. The table is then walked against the scenario's JSON
//! Schema, which is generated from the same types, to name the field and say what it takes.

use serde_json::{Map, Value};

use super::{parse::path_key, Scenario};
use crate::error::ConfigError;

/// A more precise error than serde's for a mistake at `at` (a path into `doc`) when that is a
/// `kind` table; None when it is not, or when the schema finds nothing more precise.
pub(super) fn pinpoint(doc: &Value, at: &serde_path_to_error::Path, field: &str) -> Option<ConfigError> {
    use serde_path_to_error::Segment;
    let schema = serde_json::to_value(schemars::schema_for!(Scenario)).ok()?;
    let defs = schema.get("definitions").and_then(Value::as_object)?;
    let (mut node, mut s) = (doc, &schema);
    for segment in at.iter() {
        s = resolve(defs, s, node);
        match segment {
            Segment::Seq { index } => (node, s) = (node.get(*index)?, s.get("items")?),
            Segment::Map { key } => (node, s) = (node.get(key)?, s.get("properties")?.get(key)?),
            Segment::Enum { .. } | Segment::Unknown => return None,
        }
    }
    let table = resolve(defs, s, node);
    let variants = table.get("oneOf").and_then(Value::as_array);
    let kind_table = variant_kind(table).is_some() || variants.is_some_and(|v| v.iter().any(|x| variant_kind(x).is_some()));
    if !node.is_object() || !kind_table {
        return None;
    }
    check(defs, s, node, field).err()
}

/// The schema `s` stands for at the value `v`: references followed, a single `allOf` opened,
/// an optional value's alternative (`anyOf` with null) chosen by whether `v` is null, and a
/// `kind` table's variant chosen by its `kind` (left as the `oneOf` when none matches).
pub(super) fn resolve<'a>(defs: &'a Map<String, Value>, mut s: &'a Value, v: &Value) -> &'a Value {
    loop {
        if let Some(name) = s.get("$ref").and_then(Value::as_str) {
            match name.strip_prefix("#/definitions/").and_then(|n| defs.get(n)) {
                Some(target) => s = target,
                None => return s,
            }
        } else if let Some([only]) = s.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
            s = only;
        } else if let Some(alternatives) = s.get("anyOf").and_then(Value::as_array) {
            let is_null = |a: &Value| a.get("type").and_then(Value::as_str) == Some("null");
            match alternatives.iter().find(|a| is_null(a) == v.is_null()) {
                Some(a) => s = a,
                None => return s,
            }
        } else if let (Some(variants), Some(kind)) = (s.get("oneOf").and_then(Value::as_array), v.get("kind")) {
            match variants.iter().find(|x| variant_kind(x) == Some(kind)) {
                Some(x) => s = x,
                None => return s,
            }
        } else {
            return s;
        }
    }
}

/// The `kind` a variant of a `kind` table takes.
fn variant_kind(variant: &Value) -> Option<&Value> {
    variant.get("properties")?.get("kind")?.get("enum")?.get(0)
}

/// The first mistake of `v` against `s`, outermost first, named by its path from `field`.
fn check(defs: &Map<String, Value>, s: &Value, v: &Value, field: &str) -> Result<(), ConfigError> {
    let s = resolve(defs, s, v);
    let fail = |f: String, reason: String| Err(ConfigError::new(f, reason));
    if let Some(variants) = s.get("oneOf").and_then(Value::as_array) {
        // resolve() found no variant: the kind is missing or unknown, or a string that is
        // none of an enum's documented values.
        let kinds: Vec<&str> = variants.iter().filter_map(variant_kind).filter_map(Value::as_str).collect();
        if v.is_object() && !kinds.is_empty() {
            let got = v.get("kind").map_or("none".to_string(), Value::to_string);
            return fail(child(field, "kind"), format!("must be one of {}, got {got}", kinds.join(", ")));
        }
        let values: Vec<&Value> = variants.iter().filter_map(|x| x.get("enum")?.as_array()).flatten().collect();
        if !values.is_empty() && !values.contains(&v) {
            return fail(field.to_string(), one_of(&values, v));
        }
        return Ok(());
    }
    if let Some(types) = s.get("type") {
        let types: Vec<&str> = match types {
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            t => t.as_str().into_iter().collect(),
        };
        if !types.iter().any(|t| has_type(v, t)) {
            return fail(field.to_string(), format!("must be of type {}, got {v}", types.join(" or ")));
        }
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        if !values.contains(v) {
            return fail(field.to_string(), one_of(&values.iter().collect::<Vec<_>>(), v));
        }
    }
    if let Some(x) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64).filter(|&min| x < min) {
            return fail(field.to_string(), format!("must be ≥ {}, got {v}", number(min)));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64).filter(|&max| x > max) {
            return fail(field.to_string(), format!("must be ≤ {}, got {v}", number(max)));
        }
    }
    if let (Some(table), Some(properties)) = (v.as_object(), s.get("properties").and_then(Value::as_object)) {
        if s.get("additionalProperties") == Some(&Value::Bool(false)) {
            if let Some(unknown) = table.keys().find(|k| !properties.contains_key(*k)) {
                let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
                names.sort_unstable();
                return fail(
                    child(field, unknown),
                    format!("unknown field (expected one of {})", names.join(", ")),
                );
            }
        }
        let required = s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str);
        if let Some(missing) = required.into_iter().find(|r| !table.contains_key(*r)) {
            return fail(child(field, missing), "missing field".to_string());
        }
        for (k, x) in table {
            if let Some(p) = properties.get(k) {
                check(defs, p, x, &child(field, k))?;
            }
        }
    }
    if let (Some(items), Some(list)) = (s.get("items").filter(|i| i.is_object()), v.as_array()) {
        for (i, x) in list.iter().enumerate() {
            check(defs, items, x, &format!("{field}[{i}]"))?;
        }
    }
    Ok(())
}

pub(super) fn child(field: &str, key: &str) -> String {
    let key = path_key(key);
    if field.is_empty() {
        key
    } else {
        format!("{field}.{key}")
    }
}

/// Whether `v` is of the JSON Schema type `t`.
fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn one_of(values: &[&Value], v: &Value) -> String {
    let names: Vec<String> = values
        .iter()
        .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
        .collect();
    format!("must be one of {}, got {v}", names.join(", "))
}

/// A bound as people write it: 0, not 0.0.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    const STAR: &str = "[sim]\nduration_s = 0.01\n[topology]\nkind = \"star\"\nhosts = 3\n";

    fn refusal(extra: &str) -> (String, String) {
        let e = Scenario::from_toml(&format!("{STAR}{extra}")).expect_err("refused");
        (e.field, e.reason)
    }

    #[test]
    fn a_mistake_inside_a_kind_table_is_named_by_its_field() {
        let aqm = |body: &str| refusal(&format!("[switch.aqm]\nkind = \"threshold\"\n{body}\n"));
        assert_eq!(
            aqm("k_packets = -20"),
            ("switch.aqm.k_packets".into(), "must be ≥ 0, got -20".into())
        );
        assert_eq!(aqm("k_packets = 5000000000").1, "must be ≤ 16777216, got 5000000000");
        assert_eq!(aqm("k_packets = 2.5").1, "must be of type integer or null, got 2.5");
        let (field, reason) = aqm("k_packet = 20");
        assert_eq!(field, "switch.aqm.k_packet");
        assert!(
            reason.starts_with("unknown field (expected one of at, count_in_service, k_packets, kind"),
            "{reason}"
        );
        assert_eq!(aqm("at = \"later\"").0, "switch.aqm.at");
        let (field, reason) = refusal("[switch.aqm]\nkind = \"codel\"\n");
        assert_eq!(field, "switch.aqm.kind");
        assert!(reason.contains("codel") && reason.contains("drop_tail"), "{reason}");
        let (field, reason) = refusal("[switch.aqm]\nk_packets = 20\n");
        assert_eq!(field, "switch.aqm.kind", "{reason}");
    }

    #[test]
    fn nested_tables_and_lists_inside_a_kind_table_are_followed() {
        let graph = "[topology]\nkind = \"graph\"\nswitches = [\"s0\"]\nhosts = 2\n\
                     links = [{ a = \"h0\", b = \"s0\" }, { a = \"h1\", b = \"s0\", rate_gbps = \"fast\" }]\n";
        let e = Scenario::from_toml(&format!("[sim]\nduration_s = 0.01\n{graph}")).expect_err("refused");
        assert_eq!(e.field, "topology.links[1].rate_gbps", "{e}");
    }
}
