#!/usr/bin/env bash
# Issue 5's measurement on one device call: an engine over the full level with a cold cache
# (Triton / Inductor compile everything the plan needs, capped at COLD_CAP_S), then every level
# again warm, each timed on its own (levels are cumulative: full holds all 585 cases).
# Usage: ENGINE=triton WORKERS=16 COLD_CAP_S=330 DEADLINE_S=540 bash tools/device_levels.sh "$OUT"
# Writes into $OUT as it goes (a call stopped by the device's limit keeps what finished):
# <engine>-full-cold.json, <engine>-<level>-warm.json, timings.tsv, log.txt.
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=${SRC:-src} PYTHONUNBUFFERED=1 COLUMNS=160
engine=${ENGINE:-triton}; workers=${WORKERS:-16}; deadline=${DEADLINE_S:-540}
levels=${LEVELS:-"full quick standard nightly"}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
timed_run() {  # name cap level: one run, its wall time appended to timings.tsv
  local name=$1 cap=$2 level=$3 t0 t1 code
  t0=$EPOCHREALTIME
  timeout -k 10 "$cap" python3 -m sdpa_bwd.cli run --no-progress --engine "$engine" --level "$level" \
    --workers "$workers" --replay-limit "${REPLAY_LIMIT:-8}" --json "$out/$engine-$name.json" \
    > "$out/$engine-$name.txt" 2>&1
  code=$?; t1=$EPOCHREALTIME
  printf '%s\t%s\t%s\t%.1f\t%s\n' "$engine" "$name" "$workers" "$(awk "BEGIN{print $t1 - $t0}")" "$code" >> "$out/timings.tsv"
  echo "$engine $name: exit $code, $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s: $(grep -E 'passed|stopped' "$out/$engine-$name.txt" | tail -n 3 | tr '\n' ' ')"
}
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  printf 'engine\trun\tworkers\twall_s\texit\n' > "$out/timings.tsv"
  if [ "${COLD_CAP_S:-330}" -gt 0 ]; then timed_run full-cold "${COLD_CAP_S:-330}" full; fi
  for level in $levels; do
    [ "$(left)" -gt 20 ] || { echo "no time left for $level warm"; break; }
    timed_run "$level-warm" "$(left)" "$level"
  done
  cat "$out/timings.tsv"
} 2>&1 | tee "$out/log.txt"
