#!/usr/bin/env bash
# Submit the shard Job, wait for every index to complete, then merge.
set -euo pipefail
cd "$(dirname "$0")"
kubectl apply -f job.yaml
kubectl wait --for=condition=complete --timeout=24h job/membench-shards
kubectl apply -f merge.yaml
kubectl wait --for=condition=complete --timeout=1h job/membench-merge
kubectl logs job/membench-merge
