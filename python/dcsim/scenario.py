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

# A parameter's place in a scenario: dotted table names, a list indexed as `flows[0]`.
PARAMETER_PATH = re.compile(r"^[A-Za-z_]\w*(\[\d+\])?(\.[A-Za-z_]\w*(\[\d+\])?)*$")

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
        # The problems an error of several problems stands for (itself when one).
        self.parts: list[ScenarioError] = [self]

    def __str__(self) -> str:
        return ": ".join(part for part in (self.source, self.field, self.reason) if part)

    def named(self, source: str) -> ScenarioError:
        """This error naming `source` (a file, a scenario's name) where it names none: the
        engine raises it with the field and the reason, and the caller knows the source."""
        return self if self.source else ScenarioError(source, self.field, self.reason)


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read a TOML scenario file and check it; return it as a dict.

    Raises ScenarioError for a missing or unreadable file, bad TOML (naming the line) and
    anything the engine rejects (naming the field).
    """
    scenario = read_scenario(path)
    validate(scenario, str(path))
    return scenario


def read_scenario(path: str | Path) -> dict[str, Any]:
    """Read a TOML scenario file and the CDF files it names, without checking it: for a
    caller that hands it to the engine at once, which checks it then (`dcsim.run`)."""
    scenario = read_toml(path)
    load_cdf_files(scenario, Path(path).parent, str(path))
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


# Problems of one scenario reported at most, beyond which the user fixes what was found first.
MAX_PROBLEMS = 20


class Problems:
    """A scenario's or a plan's problems, gathered so that the user fixes them in one pass:
    raised as one ScenarioError, whose field is the problem's when there is only one."""

    def __init__(self, source: str):
        self.source = source
        self.found: list[ScenarioError] = []

    def add(self, field: str, reason: str) -> None:
        self.found.append(ScenarioError(self.source, field, reason))

    def add_error(self, error: ScenarioError) -> None:
        # An error of several problems (a plan's base file) as each of them.
        self.found.extend(error.parts)

    def raise_any(self) -> None:
        if len(self.found) == 1:
            raise self.found[0]
        if self.found:
            raise _joined(self.source, self.found)


def validate(scenario: dict[str, Any], source: str = "<scenario>") -> None:
    """Check a scenario dict with the engine, without running it. ScenarioError names every
    problem found (`problems`), not only the first."""
    text = to_json(scenario, source)
    try:
        _core.validate_json(text)
    except ScenarioError as e:
        raise all_problems(scenario, e.named(source)) from None


def all_problems(scenario: dict[str, Any], first: ScenarioError) -> ScenarioError:
    """One ScenarioError naming every problem of `scenario`, whose first the engine reported
    as `first` (`first` itself when it is the only one)."""
    found = problems(scenario, first)
    if len(found) == 1:
        return first
    return _joined(first.source, found)


def _joined(source: str, found: list[ScenarioError]) -> ScenarioError:
    """Several problems as one error of `source`: each without that name again (a problem of
    another file, such as a plan's base scenario, keeps its own)."""
    parts = [str(e).removeprefix(f"{source}: ") for e in found]
    joined = ScenarioError(source, "", f"{len(parts)} problems: " + "; ".join(parts))
    joined.parts = found
    return joined


def problems(scenario: dict[str, Any], first: ScenarioError) -> list[ScenarioError]:
    """The problems of a scenario whose first the engine reported as `first`: the engine
    stops at one, so each field found wrong is set aside (left out, so that it takes its
    default) and the rest checked again, up to `MAX_PROBLEMS`. The search stops where setting
    a field aside is itself a problem (a required field, an element of a list, whose removal
    would renumber the rest, a problem of no field). Once a field that others are checked
    against is set aside (`ANCHORS`: a default in its place could make a sound field look
    wrong), it goes on only through problems of a value's form. So every problem reported is
    one of the file's."""
    found = [first]
    trial = json.loads(json.dumps(scenario, default=json_default))
    anchor_aside = False
    while len(found) < MAX_PROBLEMS:
        field = found[-1].field
        anchor_aside = anchor_aside or _is_anchor(field)
        if not _remove(trial, field):
            break
        try:
            _core.validate_json(to_json(trial, first.source))
        except ScenarioError as e:
            e = e.named(first.source)
            # A problem at or above a field set aside is of the setting aside, not the file's;
            # past an anchor set aside, only a problem of a value's form is surely the file's.
            if not e.field or any(f.field == e.field or f.field.startswith((f"{e.field}.", f"{e.field}[")) for f in found):
                break
            if anchor_aside and not e.reason.startswith(FORM_PROBLEMS):
                break
            found.append(e)
            continue
        break
    return found


# Fields the engine checks others against: the run's length (warm-up, drain, stops), the
# network (hosts that flows name), a start (its stop), the segment and packet sizes (buffers,
# windows), a lower threshold or gain (the upper), the classes (what classifies into them).
ANCHORS = ("sim.duration_s", "topology", "switch.classes", "tcp.mss", "tcp.mtu_bytes", "tcp.header_bytes")
ANCHOR_NAMES = ("start_s", "min_th", "gamma2", "rcv_autotune_initial_bytes", "segment_bytes", "classes")


# How the engine's reading of the file begins a problem of a value's form (its type, a name it
# does not know), which no other field's value can cause.
FORM_PROBLEMS = ("unknown field", "unknown variant", "invalid type", "invalid value", "invalid length", "missing field")


def _is_anchor(field: str) -> bool:
    last = re.sub(r"\[\d+\]$", "", field.rsplit(".", 1)[-1])
    return field.startswith(ANCHORS) or last in ANCHOR_NAMES


def _remove(d: dict[str, Any], path: str) -> bool:
    """Leaves out the table field at `path` (`a.b[2].c`); false if `path` is not one (a list
    element, a top-level table, a field that is not there)."""
    if not path or not PARAMETER_PATH.match(path):
        return False
    parts = path.split(".")
    if len(parts) < 2 or "[" in parts[-1]:
        return False
    node: Any = d
    for part in parts[:-1]:
        name, _, index = part.partition("[")
        node = node.get(name) if isinstance(node, dict) else None
        if index:
            i = int(index.rstrip("]"))
            node = node[i] if isinstance(node, list) and i < len(node) else None
        if node is None:
            return False
    if not isinstance(node, dict) or parts[-1] not in node:
        return False
    del node[parts[-1]]
    return True


def resolved(scenario: dict[str, Any], source: str = "<scenario>") -> dict[str, Any]:
    """The scenario as the engine reads it: its `tcp.profile`'s fields filled in
    (docs/stacks.md) and every default present, so what a run uses can be read off it."""
    try:
        return json.loads(_core.resolve_json(to_json(scenario, source)))
    except ScenarioError as e:
        raise e.named(source) from None


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
    except ScenarioError as e:
        raise e.named(source) from None


def set_path(d: dict[str, Any], path: str, value: Any) -> None:
    """Set `a.b[2].c` in nested dicts and lists, creating missing tables."""
    parts = path.split(".")
    node: Any = d
    for i, part in enumerate(parts):
        name, _, index = part.partition("[")
        last = i == len(parts) - 1
        if index:
            node = node.setdefault(name, [])[int(index.rstrip("]"))]
            if last:
                raise ValueError(f"{path}: a list element cannot be replaced whole")
        elif last:
            node[name] = value
        else:
            node = node.setdefault(name, {})


class OverrideError(ValueError):
    """An override (`KEY=VALUE`) that cannot be applied: its key and why."""

    def __init__(self, key: str, reason: str):
        super().__init__(key, reason)
        self.key = key
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.key}: {self.reason}" if self.key else self.reason


def parse_override(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as a parameter path and a value. The value is read as a TOML value
    (``10``, ``0.5``, ``true``, ``"x"``, ``[1, 2]``, ``{ kind = "red" }``); anything TOML
    does not read is a string, so ``tcp.cc=newreno`` needs no quotes."""
    key, eq, value = text.partition("=")
    key = key.strip()
    if not eq:
        raise OverrideError("", f"{text!r} is not KEY=VALUE (e.g. tcp.cc=newreno)")
    if not PARAMETER_PATH.match(key):
        raise OverrideError(key, "not a parameter path like switch.aqm.k_packets or flows[0].cc")
    value = value.strip()
    if not value:
        raise OverrideError(key, "no value after '='")
    try:
        return key, tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return key, value


def apply_overrides(scenario: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Sets each ``KEY=VALUE`` of ``overrides`` in ``scenario`` (in place, in order: a later
    one wins); returns them as ``{key: value}``. OverrideError names a key that cannot be
    set (an index past its list's end, a key inside a value that is not a table). The values
    are checked with the rest of the scenario (`validate`)."""
    applied: dict[str, Any] = {}
    for text in overrides:
        key, value = parse_override(text)
        try:
            set_path(scenario, key, value)
        except IndexError:
            raise OverrideError(key, "the list has no such element") from None
        except ValueError as e:
            raise OverrideError(key, str(e).removeprefix(f"{key}: ")) from None
        except (TypeError, AttributeError, KeyError):
            raise OverrideError(key, "cannot be set: part of the path is a value, not a table or a list") from None
        # As JSON has it (a TOML date as its text), for the run's summary.json.
        applied[key] = json.loads(json.dumps(value, default=json_default))
    return applied


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
