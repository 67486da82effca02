#!/usr/bin/env bash
# Stop 40, run 5: one consumer's first product issued a tile ahead (consumer 0's dP, or consumer 1's S; stop 39's
# forms/ahead.diff issued both), against the working tree's kernel: tools/device_s40c.sh's probes with PREFIX "ahead".
#   bash tools/device_s40e.sh $OUT
exec bash "$(dirname "$0")/device_s40c.sh" "${1:-/tmp/out}" ahead
