"""Writing result files so that a reader (or an interrupted run) never sees half of one:
each file is written under a temporary name beside it and renamed into place."""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np


@contextlib.contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed to ``path`` when the block ends
    without error, removed otherwise. ``path`` is thus whole, or as it was before."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, streamed to the file (a 200,000-port summary would
    otherwise be held twice more in memory, as text and as bytes)."""
    with atomic(path) as tmp, tmp.open("w", encoding="utf-8") as out:
        json.dump(plain(data), out, indent=2, ensure_ascii=False)
        out.write("\n")


def write_csv(path: Path, table: Any) -> None:
    """A pandas table as CSV."""
    with atomic(path) as tmp:
        table.to_csv(tmp, index=False)


def write_columns_csv(path: Path, columns: Mapping[str, np.ndarray]) -> None:
    """Columns of one length as CSV, byte for byte as pandas' ``DataFrame.to_csv(index=False)``
    writes the frame of them (floats in NumPy's shortest round-trip form, NaN as an empty
    cell, text quoted only where it must be), without importing pandas."""
    cells = [_csv_cells(values) for values in columns.values()]
    with atomic(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(zip(*cells, strict=True))


def write_columns_parquet(path: Path, columns: Mapping[str, np.ndarray]) -> None:
    """Columns of one length as a Parquet file (pyarrow, no pandas): numbers keep their NumPy
    types (NaN stays NaN in a float column, where CSV leaves the cell empty); text columns are
    strings."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {
        name: pa.array(values.tolist(), type=pa.string()) if values.dtype.kind == "O" else pa.array(values)
        for name, values in columns.items()
    }
    table = pa.table(arrays) if arrays else pa.table({})
    with atomic(path) as tmp:
        pq.write_table(table, tmp)


def _csv_cells(values: np.ndarray) -> list[Any]:
    """A column's cells for the csv module: floats as the text pandas gives them (NumPy's
    ``astype(str)``), NaN as empty; whole numbers, booleans and text as Python values."""
    if values.dtype.kind == "f":
        text = values.astype(str).astype(object)
        text[np.isnan(values)] = ""
        return text.tolist()
    return values.tolist()


def plain(value: Any) -> Any:
    """JSON-ready: numpy scalars to Python numbers, NaN and infinity to null (strict JSON)."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
