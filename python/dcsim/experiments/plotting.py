"""Drawing the experiments' figures: matplotlib on its file-only backend, the paper's value
boxed beside our curves, each figure saved as PNG and SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def figure(nrows: int = 1, ncols: int = 1, size: tuple[float, float] = (6.4, 4.0), **kw: Any) -> Any:
    """``(figure, axes)`` of a new matplotlib figure on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt.subplots(nrows, ncols, figsize=size, **kw)


def save_figure(fig: Any, out_dir: Path, stem: str) -> list[str]:
    """Write ``stem.png`` and ``stem.svg`` into ``out_dir``; close the figure; return the file names."""
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    names = []
    for ext in ("png", "svg"):
        fig.savefig(out / f"{stem}.{ext}", dpi=130)
        names.append(f"{stem}.{ext}")
    plt.close(fig)
    return names


def note(ax: Any, text: str, loc: str = "upper right") -> None:
    """The paper's value, boxed inside the axes beside our curves."""
    xy = {
        "upper right": (0.98, 0.97, "right", "top"),
        "upper left": (0.02, 0.97, "left", "top"),
        "lower right": (0.98, 0.03, "right", "bottom"),
        "lower left": (0.02, 0.03, "left", "bottom"),
        "center right": (0.98, 0.5, "right", "center"),
    }[loc]
    ax.text(
        xy[0],
        xy[1],
        text,
        transform=ax.transAxes,
        ha=xy[2],
        va=xy[3],
        fontsize=7.5,
        bbox={"boxstyle": "round,pad=0.3", "fc": "#fff8e0", "ec": "#c9a227", "alpha": 0.9},
    )
