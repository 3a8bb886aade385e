"""Scenarios: load them from TOML, check them, and build them in Python.

A scenario is a plain dict with the structure of `crates/dcsim/src/scenario/mod.rs` (published
as `schema/scenario.schema.json`); TOML files and dicts are the same thing. Every field the
scenario leaves out takes the engine's default, so a small dict is a complete scenario::

    sc = star(3)
    sc["switch"] = {"aqm": {"kind": "threshold", "k_packets": 20}}
    sc["flows"] = long_flows([1, 2], dst=0, cc="dctcp")
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

from . import _core

# A field path as the engine writes it: `flows[2].dst`, `switch.buffer.limit_packets`.
# A field's path in an engine message: names, [indices], and keys that are not plain names
# quoted as JSON strings (`flows[0]."a b"`), then ": " and the reason.
_FIELD_PATH = re.compile(r'(?:[A-Za-z0-9_.\[\]?]|"(?:[^"\\]|\\.)*")+')
_ENGINE_MESSAGE = re.compile(rf"({_FIELD_PATH.pattern}): (.*)", re.DOTALL)
# tomllib ends its messages with the position of the problem.
_TOML_POSITION = re.compile(r"\s*\((at line \d+, column \d+|at end of document)\)$")


class ScenarioError(ValueError):
    """A scenario that cannot run: which file (or dict), which field, and why.

    `str()` is one line, `SOURCE: FIELD: REASON`, with the empty parts left out.
    """

    def __init__(self, source: str, field: str, reason: str):
        # Passing every part to ValueError keeps the error picklable across processes.
        super().__init__(source, field, reason)
        self.source = source
        self.field = field
        self.reason = " ".join(reason.split())

    def __str__(self) -> str:
        return ": ".join(part for part in (self.source, self.field, self.reason) if part)

    @classmethod
    def from_engine(cls, source: str, error: ValueError) -> ScenarioError:
        """Wrap the engine's `ValueError("FIELD: REASON")`."""
        message = str(error)
        m = _ENGINE_MESSAGE.fullmatch(message)
        if m:
            return cls(source, m[1].strip("."), m[2])
        if message.startswith(": "):  # the whole scenario: no field
            return cls(source, "", message[2:])
        return cls(source, "", message)


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read a TOML scenario file and check it; return it as a dict.

    Raises ScenarioError for a missing or unreadable file, bad TOML (naming the line) and
    anything the engine rejects (naming the field).
    """
    scenario = read_toml(path)
    load_cdf_files(scenario, Path(path).parent, str(path))
    validate(scenario, str(path))
    return scenario


def _cdf_tables(scenario: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each traffic generator's size and arrival tables, with their field paths."""
    for i, generator in enumerate(scenario.get("traffic") or []):
        if isinstance(generator, dict):
            for part in ("size", "arrival"):
                if isinstance(generator.get(part), dict):
                    yield f"traffic[{i}].{part}", generator[part]


def _cdf_files_unread(scenario: dict[str, Any]) -> bool:
    return any(t.get("file") and not t.get("points") for _, t in _cdf_tables(scenario))


def load_cdf_files(scenario: dict[str, Any], base: Path, source: str) -> None:
    """Read the CDF files a scenario's traffic generators name (``size.file``,
    ``arrival.file``, relative to ``base``) into their ``points``, in place; tables that
    already have points are left alone."""
    for field, table in _cdf_tables(scenario):
        if table.get("file") and not table.get("points"):
            table["points"] = read_cdf(base / str(table["file"]), source, f"{field}.file")


def read_cdf(path: str | Path, source: str = "", field: str = "") -> list[list[float]]:
    """The points ``[value, cdf]`` of a CDF file: CSV (``value,cdf`` per line, ``#``
    comments and a header line allowed) or TOML (``points = [[value, cdf], ...]``). The
    engine checks them (sorted, ending at 1) when the scenario is validated."""
    path = Path(path)
    if path.suffix == ".toml":
        data = read_toml(path)
        points = data.get("points")
        if not isinstance(points, list):
            raise ScenarioError(source or str(path), field, f"{path} has no `points = [[value, cdf], ...]`")
        return points
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(source or str(path), field, f"{path}: file does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(source or str(path), field, f"{path}: cannot read the file: {e}") from None
    try:
        return [list(p) for p in _core.cdf_from_csv(text)]
    except ValueError as e:
        raise ScenarioError(source or str(path), field, f"{path}: {e}") from None


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file (a scenario or a sweep plan) as a dict; ScenarioError names the file
    and, for bad TOML, the line."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ScenarioError(source, "", "file does not exist") from None
    except OSError as e:
        raise ScenarioError(source, "", f"cannot read the file: {e.strerror}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ScenarioError(source, "", "not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as e:
        message = str(e)
        position = _TOML_POSITION.search(message)
        where = position.group(1).removeprefix("at ") if position else ""
        reason = message[: position.start()] if position else message
        raise ScenarioError(source, where, f"invalid TOML: {reason}") from None


def validate(scenario: dict[str, Any], source: str = "<scenario>") -> None:
    """Check a scenario dict with the engine, without running it."""
    text = to_json(scenario, source)
    try:
        _core.validate_json(text)
    except ValueError as e:
        raise engine_error(scenario, source, e) from None


def resolved(scenario: dict[str, Any], source: str = "<scenario>") -> dict[str, Any]:
    """The scenario as the engine reads it: its `tcp.profile`'s fields filled in
    (docs/stacks.md) and every default present, so what a run uses can be read off it."""
    try:
        return json.loads(_core.resolve_json(to_json(scenario, source)))
    except ValueError as e:
        raise engine_error(scenario, source, e) from None


def port_names(scenario: dict[str, Any] | str | Path, source: str | None = None) -> list[str]:
    """The names of a scenario's ports in port order (`s0->h0`, `h0->s0`, ...), from its
    network alone: nothing runs. These are the names `measure.queue_ports`,
    `measure.trace_ports`, `dcsim run --trace-ports` and sweep metrics (`ports[NAME].COLUMN`)
    take; the scenario reference lists each topology's names."""
    if isinstance(scenario, (str, Path)):
        source = source or str(scenario)
        scenario = load_scenario(scenario)
    source = source or scenario.get("name") or "<scenario>"
    try:
        return list(_core.port_names(to_json(scenario, source)))
    except ValueError as e:
        raise engine_error(scenario, source, e) from None


def engine_error(scenario: dict[str, Any], source: str, error: ValueError) -> ScenarioError:
    """The engine's rejection of `scenario` as a ScenarioError, its field found exactly where
    the engine could only name the enclosing table. A ScenarioError found before the engine
    saw the scenario (a non-finite number, an unreadable CDF file) is returned as it is."""
    if isinstance(error, ScenarioError):
        return error
    wrapped = ScenarioError.from_engine(source, error)
    return _pinpoint(scenario, wrapped) or wrapped


# Engine messages from inside a `kind = "..."` table, where serde loses the field's path.
_VAGUE = re.compile(r"expected (u8|u16|u32|u64|i32|i64|f64)\b|unknown field|unknown variant|missing field")


def _pinpoint(scenario: dict[str, Any], error: ScenarioError) -> ScenarioError | None:
    """For an error the engine could only place at a `kind = "..."` table (serde reads such
    tables whole), find the exact field with the published JSON Schema; None if it cannot."""
    if not _VAGUE.search(error.reason) or not _is_kind_table(scenario, error.field):
        return None
    import jsonschema

    validator = jsonschema.Draft7Validator(json.loads(_core.scenario_schema()))
    found = [_deepest(e) for e in validator.iter_errors(scenario)]
    if not found:
        return None
    e = max(found, key=lambda e: len(e.absolute_path))
    path = ".".join(f"[{p}]" if isinstance(p, int) else p for p in e.absolute_path).replace(".[", "[")
    field, reason = _explain(path, e)
    return ScenarioError(error.source, field, reason)


def _is_kind_table(scenario: dict[str, Any], field: str) -> bool:
    """Whether `field` (engine path syntax) names a table with a `kind`."""
    node: Any = scenario
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", field):
        try:
            node = node[int(index)] if index else node[name]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(node, dict) and "kind" in node


def _deepest(error: Any) -> Any:
    """Within a choice of tables (`oneOf`), the error of the variant the table names by its
    `kind`, recursively; else the error itself."""
    if error.validator != "oneOf" or not error.context:
        return error
    by_variant: dict[Any, list[Any]] = {}
    for sub in error.context:
        by_variant.setdefault(sub.schema_path[0], []).append(sub)
    named = [
        errs
        for errs in by_variant.values()
        if not any(list(x.relative_path)[:1] == ["kind"] or x.validator == "required" and "'kind'" in x.message for x in errs)
    ]
    if len(named) != 1:
        return error  # the kind itself is unknown: report the table
    return max((_deepest(x) for x in named[0]), key=lambda x: len(x.absolute_path))


def _explain(path: str, e: Any) -> tuple[str, str]:
    if e.validator == "additionalProperties":
        extra = sorted(set(e.instance) - set(e.schema.get("properties", {})))
        allowed = ", ".join(sorted(e.schema.get("properties", {})))
        return f"{path}.{extra[0]}" if extra else path, f"unknown field (expected one of {allowed})"
    if e.validator == "required":
        missing = [name for name in e.validator_value if name not in e.instance]
        return f"{path}.{missing[0]}" if missing else path, "missing field"
    if e.validator == "minimum":
        return path, f"must be ≥ {e.validator_value:g}, got {e.instance!r}"
    if e.validator == "type":
        return path, f"must be of type {e.validator_value}, got {e.instance!r}"
    if e.validator == "oneOf" and isinstance(e.instance, dict):
        kinds = [s.get("properties", {}).get("kind", {}).get("enum", [None])[0] for s in e.validator_value]
        kinds = [k for k in kinds if k]
        if kinds:
            return f"{path}.kind", f"must be one of {', '.join(kinds)}, got {e.instance.get('kind')!r}"
    return path, e.message


def to_json(scenario: dict[str, Any], source: str = "<scenario>") -> str:
    """The JSON text the engine reads.

    JSON has no NaN or infinity, and TOML has both: reject them here, naming the field,
    rather than let the engine report a syntax error at a position the user never wrote.
    TOML dates and times become strings, which the engine then rejects with a field name.
    """
    _check_finite(scenario, source, "")
    if _cdf_files_unread(scenario):
        # A dict built in Python: its CDF files are relative to the working directory.
        scenario = json.loads(json.dumps(scenario, default=json_default))
        load_cdf_files(scenario, Path.cwd(), source)
    return json.dumps(scenario, default=json_default)


def json_default(value: Any) -> Any:
    """What ``json.dumps`` writes for a value it does not know: numpy numbers and arrays as
    the Python numbers and lists they hold (a sweep over ``np.arange`` is a list of numpy
    integers); anything else (TOML dates) as text."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def _check_finite(value: Any, source: str, field: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(source, field, f"must be a finite number, got {value}")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, source, f"{field}.{key}" if field else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_finite(item, source, f"{field}[{i}]")


def star(hosts: int, rate_gbps: float = 1.0, delay_us: float = 25.0, framing_bytes: int | None = None) -> dict[str, Any]:
    """A scenario with `hosts` hosts on one switch; host `i` sits on switch port `i`. Every
    link runs at `rate_gbps` with `delay_us` one way (and `framing_bytes` of framing per
    packet, when given; 38, Ethernet's, otherwise)."""
    link: dict[str, Any] = {"rate_gbps": rate_gbps, "delay_us": delay_us}
    if framing_bytes is not None:
        link["framing_bytes"] = framing_bytes
    return {"topology": {"kind": "star", "hosts": hosts, "link": link}}


def long_flows(
    srcs: Iterable[int],
    dst: int,
    cc: str | None = None,
    start_s: float | None = None,
    start_jitter_us: float | None = None,
) -> list[dict[str, Any]]:
    """Long-lived bulk flows from each of `srcs` to `dst` that send as fast as they can, all
    opening at t = 0 (or `start_s`), each within `start_jitter_us` of it when given."""
    flows = []
    for src in srcs:
        flow: dict[str, Any] = {"src": src, "dst": dst}
        if start_s is not None:
            flow["start_s"] = start_s
        if start_jitter_us:
            flow["start_jitter_us"] = start_jitter_us
        if cc:
            flow["cc"] = cc
        flows.append(flow)
    return flows
