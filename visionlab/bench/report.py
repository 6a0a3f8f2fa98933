"""The benchmark's text report: the per-domain headline table and the figures table."""

from __future__ import annotations

from typing import Any

from .speed import dice_count

HEADLINE = (
    ("hands-free", "hands_free"), ("sure-and-wrong", "sure_wrong_rate"), ("recall", "recall"),
    ("false det.", "false_detection_rate"), ("value", "value_accuracy"), ("colour", "colour_accuracy"),
    ("no-tap photos", "no_tap_images"),
)


def format_domains(domains: dict[str, Any]) -> str:
    """The per-domain headline table: domains the model never trained on first."""
    if not domains:
        return ""
    names = sorted(domains, key=lambda n: (domains[n].get("trained_on", False), n))
    head = ["domain".ljust(28), "trained on".rjust(11), "dice".rjust(6)] + [h.rjust(15) for h, _ in HEADLINE]
    lines = ["".join(head)]
    for n in names:
        s = domains[n]
        cells = [n.ljust(28), ("yes" if s.get("trained_on") else "NO").rjust(11), str(s.get("dice", 0)).rjust(6)]
        cells += [_pct(s.get(k)).rjust(15) for _, k in HEADLINE]
        lines.append("".join(cells))
    return "\n".join(lines)


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.2f}%"


def format_table(report: dict[str, Any]) -> str:
    rows = [
        ("images", lambda s: str(s["images"])),
        ("dice scored", lambda s: str(s["dice"])),
        ("recall", lambda s: _pct(s["recall"])),
        ("false detections", lambda s: f"{s['false_detections']} ({_pct(s['false_detection_rate'])})"),
        ("value accuracy", lambda s: _pct(s["value_accuracy"])),
        ("colour accuracy", lambda s: _pct(s["colour_accuracy"])),
        ("read right (colour+value)", lambda s: _pct(s["read_right"])),
        ("all dice right, per image", lambda s: _pct(s["all_dice_right_images"])),
        ("photos needing no tap", lambda s: _pct(s.get("no_tap_images"))),
        ("confident reads", lambda s: str(s["confident_reads"])),
        ("wrong among confident", lambda s: str(s["confident_wrong"])),
        ("unsure share", lambda s: _pct(s["unsure_share"])),
        ("median ms per image", lambda s: "-" if s["median_ms"] is None else f"{s['median_ms']:.1f}"),
    ]
    columns: list[tuple[str, dict]] = []
    if report.get("synthetic"):
        s = report["synthetic"]
        columns.append((f"synthetic seed {s['seed']} ({s['sizes']})", s))
    for split, s in (report.get("real") or {}).items():
        columns.append((f"real {split}", s))
    lines = []
    if columns:
        width = max(len(r[0]) for r in rows) + 2
        colw = [max(len(name), 12) + 2 for name, _ in columns]
        lines.append("".ljust(width) + "".join(name.rjust(w) for (name, _), w in zip(columns, colw)))
        for label, fn in rows:
            cells = []
            for (_, s), w in zip(columns, colw):
                try:
                    cells.append(fn(s).rjust(w))
                except (KeyError, TypeError):
                    cells.append("-".rjust(w))
            lines.append(label.ljust(width) + "".join(cells))
    if report.get("real_skipped"):
        lines.append(f"real photos: skipped ({report['real_skipped']})")
    sp = report.get("speed")
    if sp:
        lines.append(
            f"speed: median {sp['median_ms']:.1f} ms (p90 {sp['p90_ms']:.1f}) per {sp['image']} with "
            f"{dice_count(sp)}, {sp['runs']} runs, one thread, {sp['cpu']}"
        )
    ms = report.get("model_size")
    if ms:
        files = ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in ms["files"].items()) or "no .onnx files"
        lines.append(f"model size: {ms['total_mb']:.2f} MB ({files})")
    for name, r in (report.get("awkward") or {}).items():
        what = f"error: {r['error']}" if r["error"] else f"{r['dice']} dice"
        lines.append(f"awkward input {name}: {r['ms']:.0f} ms, {what}")
    for label, s in columns:
        sweep = s.get("threshold_sweep")
        if sweep:
            cells = ", ".join(
                f"{x['unsure_below']:.2f}: {100 * x['sure_share']:.1f}% sure, {x['sure_wrong']} wrong" for x in sweep
            )
            lines.append(f"unsure_below sweep, {label}: {cells}")
    for label, s in columns:
        for group, b in (s.get("breakdown") or {}).items():
            lines.append(f"{label}, {group}: {b['dice']} dice, recall {_pct(b['recall'])}, "
                         f"read right {_pct(b['read_right'])}")
    lines.append(f"backend: {report.get('backend')}")
    for ex in (report.get("synthetic") or {}).get("confident_wrong_examples", [])[:10]:
        lines.append(f"  confident wrong: {ex['image']}: read {ex['read']} truth {ex['truth']}")
    return "\n".join(lines)
