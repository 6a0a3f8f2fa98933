#!/bin/bash
# v21's classifier (models/README.md, "Reproducing v21"; its history: docs/vision-history.md, "v21"): the part that ran on a GPU machine, as one script.
#
# Here, once (the caches of the v16 and v20 recipes in $D, v16's classifier checkpoint in $R):
#   python -m visionlab.train real-mosaic $D/tune_replay_v15 $D/mts_v16n $D/pbr_v16n .gpu/domain.jpg \
#       --negatives-keep 0.6 --seed 1 --quality 92
#   python -m visionlab.train real-mosaic $D/real_train_v16.npz .gpu/real.jpg --quality 90
#   cp $R/cls_v16d_ema.pt .gpu/
#   echo /.gpu/ >> .git/info/exclude      # the crops travel with the call, never into the repository
# Then on the GPU machine, in the repository's root, with .gpu carried:
#   bash models/recipes/v21-gpu.sh         # writes $OUT/g4 and $OUT/g5 (cls_ema.pt, log.json)
# and back here:
#   python -m visionlab.train export --detector models/dice_detector.onnx --classifier g5/cls_ema.pt --out models
#
# The run is bounded by minutes, and scenes reach the trainer in the order the workers finish
# them: a rerun gives a network of the same recipe, not the same bytes. G4 (a width-1 classifier
# from scratch) ran beside G5 and shared the machine; it was a candidate, not shipped.
set -euo pipefail
OUT=${OUT:-runs}
export PYTHONUNBUFFERED=1
C="--device cuda --minutes 4.6 --workers 6 --classifier-only --ema-only --photo-aug
 --real .gpu/real.jpg --real-share 0.06 --domain .gpu/domain.jpg --domain-share 0.4
 --styles random random random classic --steep-shares 0.2 0.4 0.7 --other-shares 0.3 0.6
 --coloured-other-rates 0.0 0.5 1.0 --touching-rates 0.15 0.3 0.4
 --mining-model models --cls-capacity 400000 --max-reuse 24 --cls-batch 512 --save-every 1.0 --log-every 1000"
python3 -m visionlab.train online --out "$OUT/g4" --seed 31400 --cls-lr 2e-3 $C > /tmp/g4.log 2>&1 &
python3 -m visionlab.train online --out "$OUT/g5" --seed 31500 --cls-init .gpu/cls_v16d_ema.pt --cls-lr 1e-3 $C > /tmp/g5.log 2>&1 &
wait
tail -n 4 /tmp/g4.log /tmp/g5.log
