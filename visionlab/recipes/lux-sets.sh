#!/bin/bash
# The LuxCore sets the next GPU call's rule reads (docs/vision-history.md, "Stop 33"; verbatim: `git show 1567b46:models/tried/rules-2026-11-26.md`),
# rendered again on a bare machine, most needed first: the decision scenes (889019, 889020),
# then the calibration pool (889001, 889002, 889017, 889018), then the held-out sets of record
# (lux-888003, lux-hard-888004, lux-1280-888005; read once, after the choice). The seeds and
# options are docs/vision-lux.md's table. A scene whose .json exists is skipped, so a stopped
# run resumes where it stopped. JOBS processes of one thread each (default 2: this machine's
# cores); each set goes to one process.
#
#   python3.11 -m venv .venv-lux && .venv-lux/bin/pip install "pyluxcore==2.11.2" opencv-python-headless numpy
#   nohup bash visionlab/recipes/lux-sets.sh > lux-sets.log 2>&1 &
#
# Time on this machine (one core each): about 14 s a 640x480 scene at 16 samples, 20 s at 24, 90 s
# a 1280x960 one; the decision scenes and the pool (680 scenes) take about 80 minutes of two cores,
# the held-out sets (144 scenes) about 40 more.
set -euo pipefail
PY=${PY:-.venv-lux/bin/python}
JOBS=${JOBS:-2}
SETS=(
  "--seed 889019 --count 140 --spp 16 --out data/lux-train-889019"
  "--seed 889020 --count 90 --hard --spp 16 --out data/lux-train-889020"
  "--seed 889001 --count 140 --spp 16 --out data/lux-train-889001"
  "--seed 889002 --count 80 --hard --spp 16 --out data/lux-train-889002"
  "--seed 889017 --count 140 --spp 16 --out data/lux-train-889017"
  "--seed 889018 --count 90 --hard --spp 16 --out data/lux-train-889018"
  "--seed 888003 --count 80 --out data/domains/lux-888003"
  "--seed 888004 --count 40 --hard --out data/domains/lux-hard-888004"
  "--seed 888005 --count 24 --size 1280x960 --out data/domains/lux-1280-888005"
)
if [ "${1:-}" = "--list" ]; then printf '%s\n' "${SETS[@]}"; exit 0; fi
export PYTHONPATH=.
printf '%s\n' "${SETS[@]}" | xargs -P "$JOBS" -I{} sh -c "$PY -m visionlab.render.luxcore render --threads 1 {}"
