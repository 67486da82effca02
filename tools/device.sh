#!/usr/bin/env bash
# The GPU jobs of this repository, run from the repository root on a GPU machine (the project's device machine:
# torch and Triton preinstalled, no install step, so everything runs with PYTHONPATH=src).
#
#   bash tools/device.sh tests [PYTEST ARGS...]      # the GPU tests: python3 -m pytest -q -m gpu tests [ARGS]
#                                                    # (test files among ARGS: those instead of tests/)
#   bash tools/device.sh plan LEVEL [ENGINE...]      # sdpa-bwd run --level LEVEL, one process per engine
#                                                    # (default: triton), then the support matrix of the reports
#   bash tools/device.sh cold [LEVEL]                # the main job as a newcomer runs it (sdpa-bwd run --level
#                                                    # LEVEL, default quick, both doors), Triton's cache emptied
#                                                    # first, then the same again warm: the two wall times
#   bash tools/device.sh bench [ARGS...]             # benchmarks/bench_backward.py --peers cudnn [ARGS]
#   bash tools/device.sh bench-forward [ARGS...]     # benchmarks/bench_forward.py --peers cudnn [ARGS]
#   bash tools/device.sh before REV [ARGS...]        # the backward benchmark [ARGS] from REV's tree, then from
#                                                    # the working tree, each with a Triton cache of its own, and
#                                                    # tools/ptx_diff.py --caches on the two: a change's speed
#                                                    # before / after on one card, and its kernels' PTX compared
#   bash tools/device.sh sweep-before REV [ARGS...]  # benchmarks/sweep.py [ARGS] from REV's tree, then from the
#                                                    # working tree: a change's ratios and launcher times on the
#                                                    # sweep's rows, before / after on one card (e.g. --split tuning
#                                                    # --only tuning-009 ... --no-mem)
#   bash tools/device.sh ab TABLE [ARGS...]          # tools/ab_perf.py --table TABLE, its compiles spread first
#   bash tools/device.sh py SCRIPT [ARGS...]         # any script (tools/det_perf.py, tools/ab192.py ...)
#   bash tools/device.sh repros DIR REPORT...        # sdpa-bwd repros REPORT... --out DIR --keep --run: every
#                                                    # failing cell's file (written earlier, here or on a CPU
#                                                    # machine) run alone, beside its triton twin; DIR/index.md
#
# Several jobs in one call: separate them with ' + ', e.g.
#   bash tools/device.sh tests -k split_form + bench --rows D192 + plan full triton torch-cudnn
#
# Output goes to $OUT (the device tool's folder; /tmp/sdpa-bwd-out elsewhere): log.txt (every job's exit status
# and wall time, after the card and versions), and results.tar.gz holding per job its stdout (tests.txt, bench/,
# plan-LEVEL/...). A job
# gets at most CAP_S seconds (default 560) and what is left of DEADLINE_S (default 580) for the whole call, so a
# call stopped by its limit still returns what finished (the runner writes its --json for the cases it finished).
# Env: WORKERS (plan: our engine's worker processes, default 16), PEER_WORKERS (the adapters', default 4),
# TEST_WORKERS (pytest -n, default 12; 0 for no xdist), REPLAY_S (plan: seconds of replays alone after the cases,
# default 45; every failure in the plan's order until then, where a count of 8 left a full level's ~100 unreplayed).
set -u
out=${OUT:-/tmp/sdpa-bwd-out}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
deadline=${DEADLINE_S:-580}
cap_s=${CAP_S:-560}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }

step() {  # step NAME LOGFILE CMD...: CMD under the smaller of CAP_S and the time left; its exit and wall to log.txt
  local name=$1 log=$2; shift 2
  local cap=$cap_s; [ "$cap" -le "$(left)" ] || cap=$(left)
  if [ "$cap" -le 15 ]; then echo "$name: no time left" | tee -a "$out/log.txt"; return 0; fi
  local t0=$EPOCHREALTIME
  timeout -k 10 "$cap" "$@" > "$log" 2>&1
  local rc=$?
  local wall; wall=$(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $t0}")
  echo "$name: exit $rc$([ $rc = 124 ] && echo " (stopped after $cap s)"), $wall s: $(tail -n 1 "$log")" \
    | tee -a "$out/log.txt"
}

job() {  # job KIND ARGS...
  local kind=$1; shift
  case $kind in
    tests)
      local xdist=() where=(tests) a
      [ "${TEST_WORKERS:-12}" = 0 ] || xdist=(-n "${TEST_WORKERS:-12}")
      for a in "$@"; do [ -e "${a%%::*}" ] && where=(); done  # test files named: those, not the whole tree
      step "gpu tests $*" "$out/tests.txt" python3 -m pytest -q -m gpu "${xdist[@]}" -p no:cacheprovider \
        "${where[@]}" "$@" ;;
    plan)
      local level=${1:?plan needs a level: quick, standard, nightly or full}; shift
      local engines=("$@"); [ ${#engines[@]} -gt 0 ] || engines=(triton)
      local dir="$out/plan-$level" reports=()
      mkdir -p "$dir"
      for engine in "${engines[@]}"; do  # one process each: a fault that poisons one engine's context stays there
        local workers=${PEER_WORKERS:-4}; [ "$engine" = triton ] && workers=${WORKERS:-16}
        step "$engine $level ($workers workers)" "$dir/$engine.txt" python3 -m sdpa_bwd.cli run --no-progress \
          --engine "$engine" --level "$level" --workers "$workers" --replay-limit 1000 \
          --replay-budget "${REPLAY_S:-45}" --json "$dir/$engine.json"
        [ -s "$dir/$engine.json" ] && reports+=("$dir/$engine.json")
      done
      [ ${#reports[@]} -eq 0 ] || python3 -m sdpa_bwd.cli matrix "${reports[@]}" \
        --markdown "$dir/matrix.md" --html "$dir/matrix.html" >> "$out/log.txt" 2>&1 ;;
    cold)
      local level=${1:-quick} dir="$out/cold-${1:-quick}"
      mkdir -p "$dir"
      local cache; cache=$(mktemp -d)  # empty: every kernel compiles, as on a fresh machine
      TRITON_CACHE_DIR=$cache step "main job $level, Triton cache empty" "$dir/cold.txt" \
        python3 -m sdpa_bwd.cli run --no-progress --level "$level" --json "$dir/cold.json"
      TRITON_CACHE_DIR=$cache step "main job $level, warm" "$dir/warm.txt" \
        python3 -m sdpa_bwd.cli run --no-progress --level "$level" --json "$dir/warm.json"
      rm -rf "$cache" ;;
    bench)
      mkdir -p "$out/bench"
      step "bench_backward $*" "$out/bench/bench_backward.txt" \
        python3 benchmarks/bench_backward.py --peers cudnn "$@" --out "$out/bench" ;;
    bench-forward)
      mkdir -p "$out/bench"
      step "bench_forward $*" "$out/bench/bench_forward.txt" \
        python3 benchmarks/bench_forward.py --peers cudnn "$@" --out "$out/bench" ;;
    before)
      local rev=${1:?before needs a revision}; shift
      local dir="$out/before-$rev" tree; tree=$(mktemp -d)
      mkdir -p "$dir"
      git archive "$rev" src benchmarks | tar -x -C "$tree" || { echo "before: no tree at $rev" | tee -a "$out/log.txt"; return 0; }
      mkdir -p "$tree/cache" "$dir/cache-after"
      ( cd "$tree" && TRITON_CACHE_DIR="$tree/cache" step "bench_backward at $rev $*" "$dir/before.txt" \
          python3 benchmarks/bench_backward.py --peers cudnn "$@" --out "$dir/before" )
      TRITON_CACHE_DIR="$dir/cache-after" step "bench_backward, working tree $*" "$dir/after.txt" \
        python3 benchmarks/bench_backward.py --peers cudnn "$@" --out "$dir/after"
      step "ptx_diff --caches $rev working-tree" "$dir/ptx_diff.txt" \
        python3 tools/ptx_diff.py --caches "$tree/cache" "$dir/cache-after"
      rm -rf "$tree" "$dir/cache-after" ;;
    sweep-before)
      local rev=${1:?sweep-before needs a revision}; shift
      local dir="$out/sweep-before-$rev" tree; tree=$(mktemp -d)
      mkdir -p "$dir"
      git archive "$rev" src benchmarks | tar -x -C "$tree" || { echo "sweep-before: no tree at $rev" | tee -a "$out/log.txt"; return 0; }
      ( cd "$tree" && step "sweep at $rev $*" "$dir/before.txt" python3 benchmarks/sweep.py "$@" --out "$dir/before" )
      step "sweep, working tree $*" "$dir/after.txt" python3 benchmarks/sweep.py "$@" --out "$dir/after"
      rm -rf "$tree" ;;
    ab)
      local table=${1:?ab needs a table name (tools/ab_perf.py --help lists them)}; shift
      local dir="$out/ab-$table" warm=${WARM:-8}
      mkdir -p "$dir"
      # compile first, WARM processes side by side each taking its share of the variants, so the timed run is warm
      for i in $(seq 1 "$warm"); do
        timeout -k 5 "$(left)" python3 tools/ab_perf.py --table "$table" --warm-only --shard "$i/$warm" \
          --out "$dir" > "$dir/warm_$i.log" 2>&1 &
      done
      wait
      echo "ab $table warm-up ($warm processes): $(grep -l Error "$dir"/warm_*.log | wc -l) with errors" \
        | tee -a "$out/log.txt"
      step "ab_perf --table $table $*" "$dir/ab.txt" python3 tools/ab_perf.py --table "$table" "$@" --out "$dir" ;;
    repros)
      local dir=${1:?repros needs a folder, then run reports}; shift
      mkdir -p "$out/repros"
      step "repros $dir ($# reports)" "$out/repros/repros.txt" python3 -m sdpa_bwd.cli repros "$@" --out "$dir" \
        --keep --run --jobs "${REPRO_JOBS:-12}" --deadline "$(( $(left) - 40 > 10 ? $(left) - 40 : 10 ))"
      cp "$dir/index.md" "$dir/index.json" "$out/repros/" 2>/dev/null ;;
    py)
      local script=${1:?py needs a script}
      local name; name=$(basename "$script" .py)
      step "$*" "$out/$name.txt" python3 "$@" ;;
    *)
      echo "unknown job '$kind': tests, plan, cold, bench, bench-forward, before, sweep-before, ab, repros or py (see the head of tools/device.sh)" >&2
      exit 2 ;;
  esac
}

[ $# -gt 0 ] || { sed -n '2,21p' "$0"; exit 2; }
{
  nvidia-smi -L 2>/dev/null
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" 2>&1
  git log -1 --format='code: %h %s' 2>/dev/null; git status --short src 2>/dev/null | head -n 5
} >> "$out/log.txt"
args=()
for a in "$@" +; do
  if [ "$a" = + ]; then
    [ ${#args[@]} -eq 0 ] || job "${args[@]}"
    args=()
  else
    args+=("$a")
  fi
done
echo "total: $SECONDS s" | tee -a "$out/log.txt"
# The device tool returns at most 8 files, 2 folders down: everything but log.txt goes back as one archive
# (unpack with tar xzf results.tar.gz). A call of 2026-12-06 lost its reports to that limit.
# A second invocation in one call writes results-2.tar.gz (and so on), so it never overwrites the first's (2026-12-07:
# a call running tools/device.sh three times kept only the last's).
archive=results.tar.gz n=1
while [ -e "$out/$archive" ]; do n=$((n + 1)); archive=results-$n.tar.gz; done
( cd "$out" && find . -mindepth 1 -maxdepth 1 ! -name log.txt ! -name 'results*.tar.gz' -printf '%P\n' \
    | tar czf "$archive" -T - --remove-files ) 2>&1 | tail -n 2 >> "$out/log.txt"
