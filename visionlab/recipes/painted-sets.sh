#!/bin/bash
# The painted real photos of stops 69-74 (fifteen sets) (docs/vision-history.md, "Stop 69"; docs/vision.md, the learning
# curve's domains): ../shared/datasets/real-dice/matteo-white with every die painted in a game colour
# by visionlab.render.realcolour, into data/realcol/ (git-ignored; the public photos are never copied
# into the repository). Each set takes 10-60 s of one core; the shipped reader boxes the dice.
#
#   bash visionlab/recipes/painted-sets.sh            # all of them
#   bash visionlab/recipes/painted-sets.sh --list     # the commands' arguments, one set a line
set -euo pipefail
PY=${PY:-python}
SETS=(
  "--split valid --pips dark --seed 1 --out data/realcol/real-painted-valid-dark-1"
  "--split valid --pips light --seed 1 --out data/realcol/real-painted-valid-light-1"
  "--split valid --pips mixed --seed 3 --out data/realcol/real-painted-valid-mixed-3"
  "--split train --pips dark --seed 2 --out data/realcol/real-painted-train-dark-2"
  "--split train --pips mixed --seed 4 --out data/realcol/real-painted-train-mixed-4"
  "--split train --pips light --seed 6 --out data/realcol/real-painted-train-light-6"
  "--split valid --pips light --colours blue --mosaic 4 --seed 5 --out data/realcol/real-painted-valid-blue-mosaic4-5"
  "--split train --pips light --colours blue --mosaic 4 --seed 5 --out data/realcol/real-painted-train-blue-mosaic4-5"
  "--split valid --pips mixed --seed 7 --out data/realcol/real-painted-valid-mixed-7"
  "--split valid --pips light --seed 8 --out data/realcol/real-painted-valid-light-8"
  "--split valid --pips dark --seed 9 --out data/realcol/real-painted-valid-dark-9"
  "--split train --pips mixed --seed 10 --out data/realcol/real-painted-train-mixed-10"
  "--split valid --pips light --seed 11 --out data/realcol/real-painted-valid-light-11"
  "--split valid --pips light --seed 12 --out data/realcol/real-painted-valid-light-12"
  "--split valid --pips mixed --seed 13 --out data/realcol/real-painted-valid-mixed-13"
)
if [ "${1:-}" = "--list" ]; then printf '%s\n' "${SETS[@]}"; exit 0; fi
for s in "${SETS[@]}"; do
  # shellcheck disable=SC2086
  $PY -m visionlab.render.realcolour render $s
done
