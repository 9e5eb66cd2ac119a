#!/usr/bin/env python3
"""Render a campaign over a segment on Apache Spark: `pushliquid batch` on every partition.

    spark-submit [--master ...] deploy/spark/render_campaign.py \\
        --binary .build/release/pushliquid --workspace . --campaign learning-progress \\
        --input segment.ndjson --output results/ [--platform ios] [--partitions N] \\
        [--input-format json|parquet] [--output-format json|parquet] [--ledger DIR] \\
        [--campaign-info KEY=VALUE ...]

What it does:
- Reads the segment's render context documents: JSON lines (one document a line, as `pushliquid
  batch` reads them) or Parquet (each row becomes its JSON document). Every document gets its
  line number in the segment (from 1, in input order) before anything is split.
- Ships the binary and the campaign's workspace (Templates/, and Profiles/, Catalogs/,
  PromotionCodes/ when there) to the executors the way Spark ships files
  (`SparkContext.addFile`; `--binary`/`--workspace` may be local paths or anything Hadoop reads).
- Runs `pushliquid batch` once per partition (a subprocess fed the partition's documents on
  standard input) and maps each result line back to the document's line number in the segment.
- Writes one result per recipient: JSON lines (`{"line": N, "external_id", "status",
  "payload"|"reason"|"error", ...}`, exactly `pushliquid batch`'s result lines with the segment's
  line numbers) or Parquet (`line`, `external_id`, `status`, `result` holding that JSON).
- Each `pushliquid` renders with as many threads as a task has cores (`spark.task.cpus`).
- Prints the summary counts, read back from the committed output.

Exactly once: a partition whose `pushliquid` dies (a killed process, a lost executor) fails its
task, and Spark retries it; results are written through Spark's output commit protocol, so only
the attempt that succeeds is in the output, and each recipient's result is there once (the line
numbers say which). Promotion codes: every executor records the codes it hands out in `--ledger`
(a folder all of them share: a shared file system on a cluster, with working `flock`), and a
retried recipient is given the code it already has, so none is handed out twice.

For tests, `--fail-partition P --fail-after K` kills partition P's `pushliquid` after K results on
its first attempt (Spark then retries the task), and `--fail-marker FILE` records that it did.
"""
import argparse
import json
import re
import time
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from pyspark import SparkFiles, TaskContext
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

RESULT_SCHEMA = StructType([
    StructField("line", LongType(), False),
    StructField("result", StringType(), False),
])

# The start of every `pushliquid batch` result line.
LINE_FIELD = re.compile(rb'\{"line":(\d+),')


def parse_arguments(argv):
    p = argparse.ArgumentParser(description="Render a campaign over a segment with pushliquid batch on Spark.")
    p.add_argument("--binary", required=True, help="the pushliquid binary (a release build: scripts/run.sh builds one, statically linked)")
    p.add_argument("--workspace", required=True, help="the campaign's workspace: a folder with Templates/ (and Profiles/, Catalogs/, PromotionCodes/)")
    p.add_argument("--campaign", required=True, help="the campaign's name in Templates/")
    p.add_argument("--input", required=True, help="the segment: JSON lines, or Parquet with --input-format parquet")
    p.add_argument("--output", required=True, help="the results' folder (replaced)")
    p.add_argument("--platform", default="ios", choices=["ios", "android"])
    p.add_argument("--partitions", type=int, default=0, help="partitions to render (default: Spark's default parallelism)")
    p.add_argument("--input-format", default="json", choices=["json", "parquet"])
    p.add_argument("--output-format", default="json", choices=["json", "parquet"])
    p.add_argument("--ledger", default=None, help="the shared folder of promotion codes handed out (default: OUTPUT.ledger)")
    p.add_argument("--campaign-info", action="append", default=[], metavar="KEY=VALUE", help="a campaign attribute of this send (dispatch_id=...)")
    p.add_argument("--fail-partition", type=int, default=-1, help=argparse.SUPPRESS)
    p.add_argument("--fail-after", type=int, default=100, help=argparse.SUPPRESS)
    p.add_argument("--fail-marker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.partitions < 0:
        p.error("--partitions must be 0 or more")
    if args.ledger is None:
        args.ledger = args.output.rstrip("/") + ".ledger"
    return args


def render_partition(settings):
    """The function each task runs: `pushliquid batch` over the partition's documents."""

    def run(partition, rows):
        context = TaskContext.get()
        attempt = context.attemptNumber() if context else 0
        binary = SparkFiles.get(os.path.basename(settings["binary"].rstrip("/")))
        os.chmod(binary, 0o755)
        workspace = SparkFiles.get(os.path.basename(settings["workspace"].rstrip("/")))
        command = [binary, "batch", settings["campaign"], "--templates", os.path.join(workspace, "Templates"),
                   "--platform", settings["platform"], "--allow-failures", "--promotion-ledger", settings["ledger"],
                   "--workers", str(settings["workers"])]
        for pair in settings["campaign_info"]:
            command += ["--campaign-info", pair]
        if not os.path.isdir(os.path.join(workspace, "Templates")):
            raise RuntimeError(f"the shipped workspace has no Templates/ ({workspace})")
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   cwd=workspace, bufsize=1 << 20)
        numbers = []
        feed_error = []

        def feed():
            # The partition's documents on standard input; each one's line number kept in order.
            try:
                for document, index in rows:
                    numbers.append(index + 1)
                    process.stdin.write(document.encode("utf-8") + b"\n")
                process.stdin.close()
            except BrokenPipeError:
                pass  # the process died; its exit status says why
            except Exception as e:  # noqa: BLE001 - reported as the task's failure
                feed_error.append(e)
                try:
                    process.kill()
                except ProcessLookupError:
                    pass

        errors = []
        threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True).start()
        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        kill = settings["fail_partition"] == partition and attempt == 0
        produced = 0
        for raw in process.stdout:
            # `{"line":N,...`: N is the document's place in the partition; it becomes its place in
            # the segment (the rest of the result is passed on as pushliquid wrote it).
            head = LINE_FIELD.match(raw)
            if head is None:
                raise RuntimeError(f"partition {partition}: not a batch result: {raw[:200]!r}")
            number = numbers[int(head.group(1)) - 1]
            produced += 1
            if kill and produced >= settings["fail_after"]:
                # A process killed midway (fault injection for tests): the task fails, Spark retries it.
                process.kill()
                if settings["fail_marker"]:
                    with open(settings["fail_marker"], "a", encoding="utf-8") as marker:
                        marker.write(f"partition {partition} attempt {attempt} killed after {produced} results\n")
                break
            yield (number, b'{"line":%d,' % number + raw[head.end():].rstrip(b"\n"))
        status = process.wait()
        feeder.join()
        if feed_error:
            raise RuntimeError(f"partition {partition}: reading its documents failed: {feed_error[0]}")
        if status != 0 or produced != len(numbers):
            tail = (errors[0] if errors else b"").decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"partition {partition} attempt {attempt}: pushliquid batch exited {status} after "
                               f"{produced} of {len(numbers)} results: {tail}")

    return run


WORKSPACE_FOLDERS = ["Templates", "Profiles", "Catalogs", "PromotionCodes"]


def remove_output(sc, path):
    """Deletes the output folder of an earlier run (any file system Hadoop reaches)."""
    jvm = sc._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
    fs = hadoop_path.getFileSystem(sc._jsc.hadoopConfiguration())
    if fs.exists(hadoop_path):
        fs.delete(hadoop_path, True)


def stage_workspace(workspace):
    """The folder shipped to the executors as `workspace`: a local workspace's campaign folders
    only (not whatever else its folder holds), or a remote path as it is."""
    if "://" in workspace and not workspace.startswith("file:"):
        return workspace.rstrip("/")
    source = workspace[len("file:"):] if workspace.startswith("file:") else workspace
    if not os.path.isdir(os.path.join(source, "Templates")):
        sys.exit(f"render_campaign: {workspace} has no Templates/ folder")
    staged = os.path.join(tempfile.mkdtemp(prefix="pushliquid-spark-"), "workspace")
    os.makedirs(staged)
    for folder in WORKSPACE_FOLDERS:
        if os.path.isdir(os.path.join(source, folder)):
            # (A record of promotion codes handed out is not shipped: --ledger is the shared one.)
            shutil.copytree(os.path.join(source, folder), os.path.join(staged, folder), ignore=shutil.ignore_patterns("*.used"))
    return staged


def main(argv):
    args = parse_arguments(argv)
    spark = SparkSession.builder.appName(f"pushliquid render {args.campaign}").getOrCreate()
    sc = spark.sparkContext
    sc.addFile(args.binary)
    shipped = stage_workspace(args.workspace)
    sc.addFile(shipped, recursive=True)
    settings_workspace = os.path.basename(shipped.rstrip("/"))
    if not args.ledger.startswith(("hdfs:", "s3:", "s3a:", "gs:")):
        os.makedirs(args.ledger, exist_ok=True)

    if args.input_format == "json":
        partitions = args.partitions or sc.defaultParallelism
        documents = sc.textFile(args.input, minPartitions=partitions)
    else:
        frame = spark.read.parquet(args.input)
        documents = frame.select(F.to_json(F.struct(*frame.columns)).alias("document")).rdd.map(lambda r: r.document)
    # Every document's place in the segment, before anything moves.
    numbered = documents.zipWithIndex()
    if args.partitions and numbered.getNumPartitions() != args.partitions:
        numbered = numbered.repartition(args.partitions)
    settings = {"binary": args.binary, "workspace": settings_workspace, "campaign": args.campaign, "platform": args.platform,
                "ledger": os.path.abspath(args.ledger), "campaign_info": args.campaign_info,
                "workers": int(sc.getConf().get("spark.task.cpus", "1")),
                "fail_partition": args.fail_partition, "fail_after": args.fail_after, "fail_marker": args.fail_marker}
    rendered = numbered.mapPartitionsWithIndex(render_partition(settings))
    started = time.monotonic()
    if args.output_format == "json":
        # Text straight from the RDD (no DataFrame rows made of it), through the same commit
        # protocol: only each partition's successful attempt is in the output.
        remove_output(sc, args.output)
        rendered.map(lambda r: r[1].decode("utf-8")).saveAsTextFile(args.output)
        written = spark.read.text(args.output).select(F.get_json_object("value", "$.status").alias("status"))
    else:
        results = spark.createDataFrame(rendered.map(lambda r: (r[0], r[1].decode("utf-8"))), RESULT_SCHEMA)
        results.select("line", F.get_json_object("result", "$.external_id").alias("external_id"),
                       F.get_json_object("result", "$.status").alias("status"), "result").write.mode("overwrite").parquet(args.output)
        written = spark.read.parquet(args.output).select("status")
    seconds = time.monotonic() - started
    counts = {row["status"]: row["count"] for row in written.groupBy("status").count().collect()}
    total = sum(counts.values())
    summary = {"lines": total, **{k: counts.get(k, 0) for k in ["rendered", "aborted", "failed", "skipped"]},
               "render_seconds": round(seconds, 3)}
    print("render_campaign: %d lines: %d rendered, %d aborted, %d failed, %d skipped; rendered and written in %.3f s (%.0f lines/s)" %
          (total, summary["rendered"], summary["aborted"], summary["failed"], summary["skipped"], seconds, total / max(seconds, 1e-9)),
          file=sys.stderr)
    print(json.dumps(summary))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
