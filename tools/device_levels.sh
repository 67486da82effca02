#!/usr/bin/env bash
# Issue 5's measurement in one device call: an engine over plan levels, each run timed on its own.
# RUNS is a list of level:tag:workers[:cap_s]; a run gets cap_s seconds or what is left of
# DEADLINE_S. Levels are cumulative (full holds all 585 cases), so "full:cold" compiles what the
# plan needs and "full:warm" right after is the warm figure.
# Usage: ENGINE=triton RUNS="full:cold:16:330 full:warm:16 quick:warm:4" DEADLINE_S=540 \
#          bash tools/device_levels.sh "$OUT"
# Writes into $OUT as it goes (a call stopped by the device's limit keeps what finished):
# <engine>-<level>-<tag>.json and .txt, timings.tsv, log.txt. PACK=file.tgz also packs them
# into one archive at the end (the device returns at most 8 files a call). TIMINGS="report ..." passes
# each as --timings: earlier measured seconds balance the workers instead of the cost model.
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=${SRC:-src} PYTHONUNBUFFERED=1 COLUMNS=160
engine=${ENGINE:-triton}; deadline=${DEADLINE_S:-540}
runs=${RUNS:-"full:cold:16:330 full:warm:16 quick:warm:4 standard:warm:8 nightly:warm:16"}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
[ -f "$out/timings.tsv" ] || printf 'engine\trun\tworkers\twall_s\texit\n' > "$out/timings.tsv"
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  for item in $runs; do
    IFS=: read -r level tag workers cap <<< "$item"
    cap=${cap:-$(left)}; [ "$cap" -le "$(left)" ] || cap=$(left)
    [ "$cap" -gt 20 ] || { echo "no time left for $level $tag"; break; }
    name="$level-$tag"; t0=$EPOCHREALTIME
    timings=(); for t in ${TIMINGS:-}; do timings+=(--timings "$t"); done
    timeout -k 10 "$cap" python3 -m sdpa_bwd.cli run --no-progress --engine "$engine" --level "$level" \
      --workers "$workers" --replay-limit "${REPLAY_LIMIT:-8}" --json "$out/$engine-$name.json" "${timings[@]}" \
      > "$out/$engine-$name.txt" 2>&1
    code=$?; t1=$EPOCHREALTIME
    wall=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
    printf '%s\t%s\t%s\t%s\t%s\n' "$engine" "$name" "$workers" "$wall" "$code" >> "$out/timings.tsv"
    echo "$engine $name ($workers workers): exit $code, $wall s: $(grep -E '^[0-9]+ (passed|failed|error)|stopped|cases .* s' "$out/$engine-$name.txt" | tail -n 3 | tr '\n' ' ')"
  done
  cat "$out/timings.tsv"
} 2>&1 | tee -a "$out/log.txt"
[ -z "${PACK:-}" ] || tar czf "$PACK" -C "$out" .
