#!/bin/bash
# stop 31: the candidates G1-G3 (not shipped; models/README.md, "v21"), three runs side by side on one GPU
# machine, with .gpu prepared and carried as in v21-gpu.sh. env: DEV (cuda), MIN (7.5 was used), W (4), CAP, O ($OUT).
# env: DEV (cuda), MIN (minutes per run), W (render workers per run), CAP, O (output dir)
DEV=${DEV:-cuda}; MIN=${MIN:-7.0}; W=${W:-4}; CAP=${CAP:-400000}; O=${O:-$OUT}; PY=${PY:-python3}
export PYTHONUNBUFFERED=1
mkdir -p $O /tmp/glogs
(nvidia-smi -L; $PY -c "import torch, numpy, cv2, onnxruntime; print(torch.__version__, numpy.__version__, cv2.__version__, onnxruntime.__version__)") > /tmp/glogs/env.log 2>&1
COMMON="--device $DEV --minutes $MIN --workers $W --classifier-only --ema-only --photo-aug
 --real .gpu/real.jpg --real-share 0.06 --domain .gpu/domain.jpg --domain-share 0.3
 --styles random random random classic --steep-shares 0.2 0.4 0.7 --other-shares 0.3 0.6
 --coloured-other-rates 0.0 0.5 1.0 --touching-rates 0.15 0.3 0.4
 --mining-model models --cls-capacity $CAP --max-reuse 16 --cls-batch 512 --save-every 1.0 --log-every 400"
$PY -m vision.train online --out $O/g1 --seed 31100 --cls-init .gpu/cls_v16d_ema.pt --cls-lr 3e-4 $COMMON > /tmp/glogs/g1.log 2>&1 &
$PY -m vision.train online --out $O/g2 --seed 31200 --cls-lr 2e-3 $COMMON > /tmp/glogs/g2.log 2>&1 &
$PY -m vision.train online --out $O/g3 --seed 31300 --cls-width 1.5 --cls-lr 2e-3 $COMMON > /tmp/glogs/g3.log 2>&1 &
wait
nvidia-smi 2>/dev/null | head -20 >> /tmp/glogs/env.log
for f in /tmp/glogs/*.log; do echo "=== $f"; cat $f; done > $O/all.log
tail -c 6000 $O/all.log
