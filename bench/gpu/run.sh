#!/usr/bin/env bash
# oar on a GPU: the prepared run (bench/gpu/__main__.py) under a time limit of 8 minutes.
# Needs CuPy with a CUDA device (pip install 'oar[gpu]') and torch with CUDA as the oracle.
# Writes bench/gpu/RESULTS.md; extra arguments go to it (e.g. --fake for a dry run).
set -u
cd "$(dirname "$0")/../.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
timeout 470 python -m bench.gpu "$@"
status=$?
[ $status -eq 124 ] && echo "bench/gpu: stopped at the 8-minute limit" >&2
exit $status
