"""The http round's picture: each server's latency percentiles, one panel
per load."""

from __future__ import annotations

from pathlib import Path

from ...results import charts

PERCENTILES = [("p50-ns", "p50"), ("p90-ns", "p90"), ("p99-ns", "p99"), ("p999-ns", "p99.9"), ("max-ns", "max")]


def latency(sizes: dict, out_dir: Path) -> list:
    panels = []
    for size, cells in sizes.items():
        lines = []
        for c in cells.values():
            vals = [c.median_of(u) for u, _ in PERCENTILES]
            if all(v is not None and v > 0 for v in vals):
                lines.append((c.impl, [v / 1e6 for v in vals]))
        if lines:
            panels.append((size, lines))
    if not panels:
        return []
    plt = charts.pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 0.8, 4.2), squeeze=False)
    for ax, (size, lines) in zip(axes[0], panels):
        for i, (impl, vals) in enumerate(lines):
            ax.plot(range(len(PERCENTILES)), vals, marker=charts.MARKERS[i % len(charts.MARKERS)], label=impl)
        ax.set_xticks(range(len(PERCENTILES)))
        ax.set_xticklabels([name for _, name in PERCENTILES])
        every = [v for _, vals in lines for v in vals]
        charts.log_axis(ax, "y", max(every) / min(every))
        ax.set_xlabel("latency percentile")
        ax.set_ylabel("latency, ms (lower is better)")
        params = dict(size)
        how = "fixed rate" if params.get("rate", "0") not in ("0", "") else "full speed"
        if params.get("load"):
            how = f"load {params['load']}"
        ax.set_title(f"{charts.size_label(size)}\n({how})", fontsize=8)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("http: latency percentiles per server (median over runs): lower is better", fontsize=10)
    fig.tight_layout()
    return [
        charts.figure(
            plt,
            fig,
            out_dir,
            "http-latency",
            "http: latency percentiles per server",
            "Each server's latency percentiles, p50 to the slowest request, median over runs, one panel per load; "
            "lower is better.",
        )
    ]
