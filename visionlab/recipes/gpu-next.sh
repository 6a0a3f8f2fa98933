#!/bin/bash
# The next GPU call, prepared in stop 33 (no GPU that stop): two candidates side by side, one call.
#
#   A  v21's classifier trained further (classifier only), as v21's G5 but 8 minutes at lr 5e-4
#   B  v21's detector AND classifier trained further together, more touching dice in the scenes
#      (the misses on the hard LuxCore sets are mostly two touching dice under one box: the
#      detector's training, not post-processing, can separate them)
#
# Both start from the shipped ONNX files (visionlab.train.warmstart), so no torch checkpoint has to
# be kept between sessions. Inputs, made here first (CPU, this repository's root):
#   python -m visionlab.train real-crops --model-dir models --out $D/real_train_v21.npz          # ~20 s
#   python -m visionlab.train real-mosaic $D/real_train_v21.npz .gpu/real.jpg --quality 90
#   # the Blender and Mitsuba training scenes of the v16/v20 recipes (stop 34 on a bare machine: 916 of
#   # the 1 400 scenes in 87 minutes of both cores, 12 629 crops):
#   .venv-bpy/bin/python -m visionlab.render.blender render --seed 6073 --count 300 --size 640x480 --threads 1 --out data/pbr-train-6073
#   .venv-bpy/bin/python -m visionlab.render.blender render --seed 6074 --count 300 --hard --size 640x480 --threads 1 --out data/pbr-train-6074
#   .venv-mts/bin/python -m visionlab.render.mitsuba render --seed 778004 --count 400 --spp 16 --threads 1 --out data/mts-train-778004
#   .venv-mts/bin/python -m visionlab.render.mitsuba render --seed 778005 --count 400 --hard --spp 16 --threads 1 --out data/mts-train-778005
#   python -m visionlab.train domain-cache --src data/pbr-train-6073 data/pbr-train-6074 --workers 2 --negatives-from models --out $D/pbr_v21n
#   python -m visionlab.train domain-cache --src data/mts-train-778004 data/mts-train-778005 --workers 2 --negatives-from models --out $D/mts_v21n
#   python -m visionlab.train real-mosaic $D/pbr_v21n $D/mts_v21n .gpu/domain.jpg --negatives-keep 0.6 --seed 1 --quality 92
#   mkdir -p .git/info; echo /.gpu/ >> .git/info/exclude   # the crops travel with the call (carry: [".gpu"]), never into the repository
# On a bare machine, start the LuxCore sets the choice reads first, in the background (about 80 minutes
# of two cores for the decision scenes and the pool, beside the renders above):
#   nohup bash visionlab/recipes/lux-sets.sh > lux-sets.log 2>&1 &
# Then, with .gpu carried, one call (timeout_s 600; MINUTES=8 leaves about a minute for start-up and saving):
#   MINUTES=8 bash visionlab/recipes/gpu-next.sh   # writes $OUT/a (cls_ema.pt) and $OUT/b (det_ema.pt, cls_ema.pt), log.json each
# and back here (the candidates; the choice is the rule in docs/vision-history.md, "Stop 33"; verbatim: git show 1567b46:models/tried/rules-2026-11-26.md):
#   python -m visionlab.train export --detector models/dice_detector.onnx --classifier a/cls_ema.pt --out $M/A
#   python -m visionlab.train export --detector b/det_ema.pt --classifier b/cls_ema.pt --out $M/B
#   python visionlab/bench/choose.py --pool data/lux-train-889001 data/lux-train-889002 data/lux-train-889017 \
#       data/lux-train-889018 --decide data/lux-train-889019 data/lux-train-889020 \
#       --candidate v21=models --candidate A=$M/A --candidate B=$M/B --out choose.json     # about 10 min of one core
#
# Smoke test on the CPU (both runs train, save and can be exported; a few minutes; run in stop 33 with
# the mosaics above, 10 885 domain crops from 797 of the 1 400 scenes):
#   OUT=/tmp/smoke DEVICE=cpu MINUTES=1.5 WA=1 WB=1 EXTRA="--min-scenes 32 --cls-batch 64 --det-batch 8 \
#     --cls-capacity 50000 --det-capacity 2000 --log-every 5" bash visionlab/recipes/gpu-next.sh
set -euo pipefail
OUT=${OUT:-runs}
MINUTES=${MINUTES:-8}
DEVICE=${DEVICE:-cuda}
WA=${WA:-6}; WB=${WB:-8}      # render workers (16 cores on the GPU machine, two trainers beside them)
EXTRA=${EXTRA:-}               # appended to both runs (the CPU smoke test shrinks batches and buffers with it)
export PYTHONUNBUFFERED=1
S="--device $DEVICE --minutes $MINUTES --ema-only --photo-aug
 --cls-init models/dice_classifier.onnx --cls-lr 5e-4 --cls-capacity 400000
 --real .gpu/real.jpg --real-share 0.06 --domain .gpu/domain.jpg --domain-share 0.4
 --styles random random random classic --steep-shares 0.2 0.4 0.7 --other-shares 0.3 0.6
 --coloured-other-rates 0.0 0.5 1.0 --mining-model models --max-reuse 24 --cls-batch 512
 --save-every 1.0 --log-every 1000"
mkdir -p "$OUT"
python3 -m visionlab.train online --out "$OUT/a" --seed 33100 --workers $WA --classifier-only \
  --touching-rates 0.15 0.3 0.4 $S $EXTRA > "$OUT/a.log" 2>&1 &
python3 -m visionlab.train online --out "$OUT/b" --seed 33200 --workers $WB \
  --det-init models/dice_detector.onnx --det-lr 5e-4 --det-capacity 20000 --det-batch 64 \
  --touching-rates 0.3 0.4 0.5 $S $EXTRA > "$OUT/b.log" 2>&1 &
wait
tail -n 3 "$OUT/a.log" "$OUT/b.log"
