"""Writing a domain directory (visionlab.render.domaindir), shared by the renderers' CLIs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from visionlab.bench import load_domain_dir
from visionlab.render.domaindir import add_path_tracer_options, add_render_arguments, render_domain, render_main, render_sampled


def _one(index: int, jpg: Path) -> tuple[dict, str]:
    jpg.write_bytes(b"\xff\xd8 not really a jpeg")
    return {"image": jpg.name, "width": 640, "height": 480,
            "dice": [{"colour": "red", "value": index % 6 + 1, "box": [1, 2, 30, 30], "partial": False}]}, "one die"


def test_render_domain_writes_resumes_and_reads_back(tmp_path: Path, capsys) -> None:
    out = tmp_path / "dom"
    assert render_domain(out, {"domain": "test", "seed": 5}, range(3, 6), _one) == 3
    assert json.loads((out / "domain.json").read_text()) == {"domain": "test", "seed": 5}
    assert sorted(p.name for p in out.iterdir()) == ["00003.jpg", "00003.json", "00004.jpg", "00004.json",
                                                    "00005.jpg", "00005.json", "domain.json"]
    assert "00004 one die" in capsys.readouterr().out
    calls = []
    # a second run skips every scene whose .json is there, and renders the missing one
    (out / "00004.json").unlink()
    assert render_domain(out, {"domain": "test", "seed": 5}, range(3, 6), lambda i, p: calls.append(i) or _one(i, p)) == 1
    assert calls == [4]
    info, scenes = load_domain_dir(out)
    assert info["domain"] == "test" and [truths[0].value for _, truths in scenes] == [4, 5, 6]


def test_render_arguments() -> None:
    ap = argparse.ArgumentParser()
    add_render_arguments(ap, "harder")
    a = ap.parse_args(["--seed", "7", "--count", "2", "--out", "x", "--hard"])
    assert (a.seed, a.count, a.start, a.out, a.size, a.hard) == (7, 2, 0, "x", "640x480", True)
    assert ap.parse_args(["--seed", "7", "--count", "2", "--out", "x", "--size", "640x640"]).size == "640x640"
    assert ap.parse_args(["--seed", "7", "--count", "2", "--out", "x", "--size", "480x640"]).size == "480x640"


def test_render_main_parses_common_and_own_options() -> None:
    seen = []

    def own(r: argparse.ArgumentParser) -> None:
        r.add_argument("--spp", type=int, default=3)

    assert render_main(["render", "--seed", "1", "--count", "4", "--out", "o", "--spp", "9"], "prog", "doc", "hard",
                       own, lambda a: seen.append(a) or 0) == 0
    assert (seen[0].command, seen[0].seed, seen[0].count, seen[0].spp, seen[0].hard) == ("render", 1, 4, 9, False)


def test_render_sampled_writes_the_record_of_each_sampled_scene(tmp_path: Path) -> None:
    """The ``render`` command of the path-tracing renderers (mts, lux): one sampled scene per index,
    its truth from the render function, the source line naming seed, index, size and samples."""
    sampled = []

    def sample(seed: int, index: int, hard: bool, size: str) -> dict:
        sampled.append((seed, index, hard, size))
        return {"size": size, "width": 640, "height": 640, "dice": [{}, {}]}

    def render(scene: dict, jpg: Path) -> list[dict]:
        jpg.write_bytes(b"\xff\xd8 not really a jpeg")
        return [{"colour": "blue", "value": 3, "box": [5, 6, 40, 41], "partial": False}]

    ap = argparse.ArgumentParser()
    add_render_arguments(ap, "harder")
    add_path_tracer_options(ap, default_spp=24)
    out = tmp_path / "dom"
    args = ap.parse_args(["--seed", "31", "--count", "2", "--start", "4", "--out", str(out), "--size", "640x640"])
    assert (args.spp, args.threads) == (24, 1)
    assert render_sampled(args, "lux", "luxcorerender test", sample, render) == 0
    assert sampled == [(31, 4, False, "640x640"), (31, 5, False, "640x640")]
    assert json.loads((out / "domain.json").read_text()) == {"domain": "lux", "renderer": "luxcorerender test", "seed": 31,
                                                           "hard": False, "size": "640x640", "spp": 24}
    rec = json.loads((out / "00005.json").read_text())
    assert rec["source"] == "vision.lux seed 31 index 5 hard False size 640x640 spp 24"
    assert (rec["image"], rec["width"], rec["height"], rec["dice"][0]["value"]) == ("00005.jpg", 640, 640, 3)
    # resumed: nothing is sampled again
    assert render_sampled(args, "lux", "luxcorerender test", sample, render) == 0 and len(sampled) == 2
