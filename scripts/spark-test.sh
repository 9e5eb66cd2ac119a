#!/usr/bin/env bash
# The Spark job's test (deploy/spark/test_render_campaign.py): Spark in local mode over 100,000
# generated contexts, against one `pushliquid batch` run, with and without a killed partition; on
# a local pseudo-cluster (local-cluster) over a segment with bad lines; Parquet in and out;
# promotion codes across executors; bad input; the job's check of its output. Installs pyspark from PyPI (and
# Java 17 from Debian) when missing; with CI=true a Spark that cannot be had is a failure,
# elsewhere the test is skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh

missing() {
    command -v java >/dev/null 2>&1 && command -v spark-submit >/dev/null 2>&1 && python3 -c "import pyspark" >/dev/null 2>&1 && return 1
    return 0
}
if missing; then
    echo "spark-test: installing pyspark (PyPI) and Java (Debian) where missing..." >&2
    command -v java >/dev/null 2>&1 || apt_install openjdk-17-jre-headless || true
    python3 -c "import pyspark" >/dev/null 2>&1 || python3 -m pip install -q pyspark >&2 || true
    hash -r
fi
if missing; then
    if [ "${CI:-}" = "true" ]; then
        echo "spark-test: FAILED: Spark (pyspark, spark-submit, java) is missing and could not be installed (CI=true: no skipping)" >&2
        exit 1
    fi
    echo "spark-test: SKIPPED: Spark (pyspark, spark-submit, java) is missing and could not be installed" >&2
    exit 0
fi
if [ ! -f ../shared/bench/gen_contexts.py ]; then
    if [ "${CI:-}" = "true" ]; then echo "spark-test: FAILED: ../shared/bench/gen_contexts.py is missing" >&2; exit 1; fi
    echo "spark-test: SKIPPED: ../shared/bench/gen_contexts.py is missing" >&2
    exit 0
fi
swift build --product pushliquid >&2
start=$(date +%s)
python3 deploy/spark/test_render_campaign.py .build/debug/pushliquid
echo "spark-test: $(( $(date +%s) - start )) s ($(spark-submit --version 2>&1 | grep -m1 -o 'version [0-9.]*'), $(java -version 2>&1 | head -1))" >&2
