#!/usr/bin/env python3
"""Render a campaign over a segment on Apache Spark: `pushliquid batch` on every partition.

    spark-submit [--master ...] deploy/spark/render_campaign.py \\
        --binary .build/release/pushliquid --workspace . --campaign learning-progress \\
        --input segment.ndjson --output results/ [--platform ios] [--partitions N] \\
        [--input-format json|parquet] [--output-format json|parquet] [--ledger DIR] \\
        [--campaign-info KEY=VALUE ...] [--canvas-info KEY=VALUE ...] [--online] [--credentials FILE] \\
        [--max-line-bytes N] [--launcher COMMAND]

What it does:
- Reads the segment's render context documents: JSON lines (one document a line, as `pushliquid
  batch` reads them; a folder of files, compressed or not) or Parquet (each row becomes its JSON
  document, nulls kept). Every document is numbered with its line in the segment (from 1, in
  input order) before anything is split: one counting pass over the input, as zipWithIndex.
- Ships the binary and the campaign's workspace to the executors the way Spark ships files
  (`SparkContext.addFile` and `addArchive`): a local workspace folder is packed (its Templates/,
  Profiles/, Catalogs/ and PromotionCodes/ only), or `--workspace` names an archive (.tar.gz,
  .tgz or .zip) anywhere Hadoop reads (hdfs:, s3a:, gs:...).
- Pipes each partition through one `pushliquid batch --numbered` process with Spark's own `pipe`
  (on the JVM: no Python worker touches a document), each line `NUMBER<TAB>DOCUMENT`, so that
  every result carries the document's line in the segment. A process that dies or exits non-zero
  fails its task, and Spark retries it.
- Writes one result per recipient: JSON lines (exactly `pushliquid batch`'s result lines, with
  the segment's line numbers) or Parquet (`line`, `external_id`, `status`, `result` holding that
  JSON), through Spark's output commit protocol.
- Reads what was committed back and checks it: one result for every line of the segment, each
  line once. Prints the summary counts (as `pushliquid batch` does) and a JSON summary.

Exactly once: a failed task's output is never committed; only each partition's successful
attempt is in the output, and every recipient's result is there once, under its line number.
Promotion codes: every `pushliquid` records the codes it hands out in `--ledger` (a folder all
executors share: a shared POSIX file system with working `flock` on a cluster), and a retried
recipient is given the code it already has, so that no code is handed out twice.

A line that is not valid UTF-8 reaches `pushliquid` as its bytes in base64 (Spark's strings
would replace them), so that its result is the one `pushliquid batch` gives it over the file
(Spark 4.0 and later: earlier ones cannot tell, and replace the bytes).

Needs Python and pyspark on the driver only: executors run the JVM and the binary.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

from pyspark import SparkFiles
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

# The name the shipped workspace is unpacked under, beside the binary.
WORKSPACE_NAME = "pushliquid-workspace"
WORKSPACE_FOLDERS = ["Templates", "Profiles", "Catalogs", "PromotionCodes"]
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")
# monotonically_increasing_id(): the partition in the upper 31 bits, the row in the lower 33.
ROW_BITS = 33


def fail(message):
    print(f"render_campaign: error: {message}", file=sys.stderr)
    sys.exit(1)


def parse_arguments(argv):
    p = argparse.ArgumentParser(prog="render_campaign.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", required=True,
                   help="the pushliquid binary: a release build with the Swift runtime linked in (scripts/run.sh builds one); "
                        "a local path or anything Hadoop reads")
    p.add_argument("--workspace", required=True,
                   help="the campaign's workspace: a local folder with Templates/ (and Profiles/, Catalogs/, PromotionCodes/), "
                        "or an archive of one (.tar.gz, .tgz, .zip) anywhere Hadoop reads")
    p.add_argument("--campaign", required=True, help="the campaign's name in Templates/")
    p.add_argument("--input", required=True, help="the segment: JSON lines (a file or a folder), or Parquet with --input-format parquet")
    p.add_argument("--output", required=True, help="the results' folder (replaced)")
    p.add_argument("--platform", default="ios", choices=["ios", "android"])
    p.add_argument("--partitions", type=int, default=0,
                   help="render in N partitions (a shuffle of the numbered documents); default: the input's splits, at least "
                        "four per core (spark.sql.files.minPartitionNum)")
    p.add_argument("--input-format", default="json", choices=["json", "parquet"])
    p.add_argument("--output-format", default="json", choices=["json", "parquet"])
    p.add_argument("--ledger", default=None,
                   help="the folder of promotion codes handed out, shared by every executor (default: OUTPUT.ledger for a local OUTPUT)")
    p.add_argument("--campaign-info", action="append", default=[], metavar="KEY=VALUE", help="a campaign attribute of this send (dispatch_id=...)")
    p.add_argument("--canvas-info", action="append", default=[], metavar="KEY=VALUE", help="a Canvas attribute of this send")
    p.add_argument("--online", action="store_true", help="make real Connected Content requests (from the executors)")
    p.add_argument("--credentials", default=None, metavar="FILE",
                   help="Connected Content credentials, a JSON file read here and handed to each process in its environment "
                        "(PUSHLIQUID_CREDENTIALS_JSON), never on its command line")
    p.add_argument("--max-line-bytes", type=int, default=4 << 20, help="the longest document read (a longer one is a failed result)")
    p.add_argument("--launcher", default=None, metavar="COMMAND",
                   help="a command the executors run pushliquid through (`nice -n 5`, `prlimit --as=8000000000`); "
                        "the tests use it to kill a process midway")
    args = p.parse_args(argv)
    if args.partitions < 0:
        p.error("--partitions must be 0 or more")
    if args.max_line_bytes < 1:
        p.error("--max-line-bytes must be 1 or more")
    for pair in args.campaign_info + args.canvas_info:
        if "=" not in pair:
            p.error(f"not KEY=VALUE: {pair!r}")
    return args


def is_remote(path):
    return "://" in path and not path.startswith("file:")


def local_path(path):
    return path[len("file:"):] if path.startswith("file:") else path


def pack_workspace(workspace, into):
    """The archive shipped as the workspace: a local folder's campaign folders packed (records of
    codes handed out left behind: --ledger is the shared one), or an archive as it is."""
    if workspace.endswith(ARCHIVE_SUFFIXES):
        if not is_remote(workspace) and not os.path.isfile(local_path(workspace)):
            fail(f"--workspace {workspace}: no such archive")
        return workspace
    if is_remote(workspace):
        fail(f"--workspace {workspace}: a remote workspace must be an archive ({', '.join(ARCHIVE_SUFFIXES)})")
    source = local_path(workspace)
    if not os.path.isdir(os.path.join(source, "Templates")):
        fail(f"--workspace {workspace} has no Templates/ folder")
    archive = os.path.join(into, "workspace.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        for folder in WORKSPACE_FOLDERS:
            if os.path.isdir(os.path.join(source, folder)):
                tar.add(os.path.join(source, folder), arcname=folder, filter=lambda info: None if info.name.endswith(".used") else info)
    return archive


def has_promotion_lists(workspace):
    folder = os.path.join(local_path(workspace), "PromotionCodes")
    return os.path.isdir(folder) and any(name.endswith(".csv") for name in os.listdir(folder))


def choose_ledger(args):
    """The shared folder of codes handed out: --ledger, else OUTPUT.ledger for a local output."""
    if args.ledger:
        if is_remote(args.ledger):
            fail(f"--ledger {args.ledger}: the record of promotion codes needs a POSIX folder every executor shares (flock), not {args.ledger.split(':')[0]}:")
        return os.path.abspath(local_path(args.ledger))
    if not is_remote(args.output):
        return os.path.abspath(local_path(args.output).rstrip("/") + ".ledger")
    if args.workspace.endswith(ARCHIVE_SUFFIXES) or has_promotion_lists(args.workspace):
        fail("--ledger DIR is needed: the output is not a local folder, and promotion codes must be recorded in a folder every executor shares")
    return None


def remove_output(sc, path):
    """Deletes the output folder of an earlier run (any file system Hadoop reaches)."""
    hadoop_path = sc._jvm.org.apache.hadoop.fs.Path(path)
    fs = hadoop_path.getFileSystem(sc._jsc.hadoopConfiguration())
    if fs.exists(hadoop_path):
        fs.delete(hadoop_path, True)


def read_documents(spark, args):
    """The segment as one string column `value`, a document a row, in input order."""
    if args.input_format == "json":
        # Lines end at \n only, as pushliquid batch reads them (a \r before it stays the document's).
        return spark.read.option("lineSep", "\n").text(args.input)
    frame = spark.read.parquet(args.input)
    document = F.to_json(F.struct(*[frame[c] for c in frame.columns]), {"ignoreNullFields": "false"})
    return frame.select(document.alias("value"))


def number_documents(documents):
    """Every document with its line in the segment (1-based), and the segment's length.

    A counting pass first (the rows of each input partition), then each row's line is its
    partition's offset plus its place in the partition, both taken from
    monotonically_increasing_id(), so that the numbering runs in the JVM and is the same on
    every attempt of a task (the input's split into partitions is fixed by its files)."""
    with_id = documents.select(F.monotonically_increasing_id().alias("id"), "value")
    partition = F.shiftright("id", ROW_BITS)
    counts = {row["p"]: row["n"] for row in with_id.groupBy(partition.alias("p")).agg(F.count(F.lit(1)).alias("n")).collect()}
    offsets, total = [], 0
    for p in range(max(counts) + 1 if counts else 0):
        offsets.append(total)
        total += counts.get(p, 0)
    if not offsets:
        return with_id.select(F.lit(0).cast("long").alias("line"), "value").limit(0), 0
    offset = F.element_at(F.array(*[F.lit(o).cast("long") for o in offsets]), partition.cast("int") + 1)
    line = offset + F.col("id").bitwiseAND((1 << ROW_BITS) - 1) + 1
    return with_id.select(line.alias("line"), "value"), total


def pipe(spark, frame, command, environment):
    """`RDD.pipe` on the JVM over the string column of `frame`: the process's output lines."""
    jvm = spark.sparkContext._jvm
    strings = getattr(frame._jdf, "as")(jvm.org.apache.spark.sql.Encoders.STRING())
    java_command = jvm.java.util.ArrayList()
    for part in command:
        java_command.add(part)
    java_env = jvm.java.util.HashMap()
    for key, value in environment.items():
        java_env.put(key, value)
    return strings.javaRDD().pipe(java_command, java_env, False, 1 << 16, "UTF-8")


def as_frame(spark, java_rdd):
    """A DataFrame of one string column `result` over a JavaRDD of strings."""
    jvm = spark.sparkContext._jvm
    dataset = spark._jsparkSession.createDataset(java_rdd.rdd(), jvm.org.apache.spark.sql.Encoders.STRING())
    return DataFrame(dataset.toDF(), spark).withColumnRenamed("value", "result")


def preflight(args, environment):
    """Compiles the campaign here before any task starts, when this machine can run the binary
    (a local one, over a local workspace): a campaign that does not compile fails at once, with
    pushliquid's own file:line:column, rather than in every task."""
    if is_remote(args.binary) or is_remote(args.workspace) or args.workspace.endswith(ARCHIVE_SUFFIXES):
        return
    templates = os.path.join(local_path(args.workspace), "Templates")
    check = [local_path(args.binary), "batch", args.campaign, "--templates", templates, "--platform", args.platform, "--dry-run"]
    try:
        r = subprocess.run(check, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
                           env={**os.environ, **environment})
    except OSError:
        return  # (a binary for the executors' platform, not this one: they will say)
    if r.returncode != 0:
        message = "\n".join(line for line in r.stderr.splitlines() if not line.startswith("batch: "))
        fail(f"campaign {args.campaign} cannot be rendered:\n{message}")


def describe_failure(error):
    """The reason a Spark job failed, in a line or two (not the JVM's stack)."""
    text = str(error)
    for pattern in [r"Subprocess exited with status -?[0-9]+", r"\[[A-Z_.]+\][^\n]*", r"[A-Za-z.]*Exception: [^\n]*"]:
        found = re.search(pattern, text)
        if found:
            reason = found.group(0)
            if reason.startswith("Subprocess exited"):
                task = re.search(r"Task [0-9]+ in stage [0-9.]+ failed [0-9]+ times", text)
                reason = (f"{task.group(0)}: " if task else "") + f"pushliquid batch: {reason.lower()} " \
                         "(its own message is in that task's standard error: the executor's log)"
            return reason
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


STATUSES = ["rendered", "aborted", "failed", "skipped"]


def check_output(written):
    """Counts of the committed results (`line`, `status` columns): results, distinct lines,
    first and last line, results without a line number, and each status. Distinct lines are
    counted exactly, with bitmaps of line numbers per bucket where Spark has them (3.5 and later:
    as cheap as a plain count), else with count_distinct."""
    line, status = F.col("line"), F.col("status")
    counts = [F.count(F.lit(1)).alias("results"), F.min(line).alias("first"), F.max(line).alias("last"),
              F.count(F.when(line.isNull(), 1)).alias("unnumbered"),
              *[F.count(F.when(status == name, 1)).alias(name) for name in STATUSES]]
    if not hasattr(F, "bitmap_construct_agg"):
        row = written.agg(F.count_distinct(line).alias("lines"), *counts).collect()[0]
    else:
        buckets = written.groupBy(F.bitmap_bucket_number(line).alias("bucket")).agg(
            F.bitmap_count(F.bitmap_construct_agg(F.bitmap_bit_position(line))).alias("lines"), *counts)
        row = buckets.agg(*[F.sum(name).alias(name) for name in ["lines", "results", "unnumbered", *STATUSES]],
                          F.min("first").alias("first"), F.max("last").alias("last")).collect()[0]
    # (Sums over no rows are null.)
    return {key: (value if value is not None or key in ("first", "last") else 0) for key, value in row.asDict().items()}


def output_problem(check, total):
    """What is wrong with committed results counted by check_output for a segment of `total`
    lines; None when they are a result for every line, each line once, each of a known status."""
    if check["unnumbered"]:
        return f"{check['unnumbered']} results without a line number"
    if check["results"] != total or check["lines"] != total or (total and (check["first"] != 1 or check["last"] != total)):
        return (f"the output holds {check['results']} results for {check['lines']} distinct lines "
                f"({check['first']}…{check['last']}); the segment has {total} lines")
    unknown = total - sum(check[status] for status in STATUSES)
    if unknown:
        return f"{unknown} results of no known status"
    return None


def main(argv):
    # What can be checked here is checked before Spark starts.
    args = parse_arguments(argv)
    ledger = choose_ledger(args)
    if not is_remote(args.binary) and not os.access(local_path(args.binary), os.X_OK):
        fail(f"--binary {args.binary}: not an executable file")
    environment = {}
    if args.credentials:
        try:
            with open(args.credentials, encoding="utf-8") as f:
                environment["PUSHLIQUID_CREDENTIALS_JSON"] = f.read()
        except OSError as e:
            fail(f"--credentials {args.credentials}: {e.strerror}")
    preflight(args, environment)
    staging = tempfile.mkdtemp(prefix="pushliquid-spark-")
    try:
        run(args, ledger, environment, staging)
    except Exception as error:  # noqa: BLE001 - Spark's (Py4J's) errors, told briefly
        if type(error).__module__.startswith(("py4j", "pyspark")):
            fail(f"the job failed: {describe_failure(error)}")
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def run(args, ledger, environment, staging):
    spark = SparkSession.builder.appName(f"pushliquid render {args.campaign}").getOrCreate()
    sc = spark.sparkContext
    sc.addFile(args.binary)
    sc.addArchive(pack_workspace(args.workspace, staging) + "#" + WORKSPACE_NAME)
    # Where a task's process finds what was shipped: in local mode, the driver's files folder;
    # on a cluster, the executor's working folder (the process's own).
    root = SparkFiles.getRootDirectory() if sc._jsc.sc().isLocal() else "."
    workspace = os.path.join(root, WORKSPACE_NAME)
    command = shlex.split(args.launcher) if args.launcher else []
    command += [os.path.join(root, os.path.basename(args.binary.rstrip("/"))), "batch", args.campaign,
                "--templates", os.path.join(workspace, "Templates"), "--platform", args.platform, "--numbered",
                "--allow-failures", "--max-line-bytes", str(args.max_line_bytes),
                "--workers", sc.getConf().get("spark.task.cpus", "1")]
    if ledger:
        command += ["--promotion-ledger", ledger]
    for pair in args.campaign_info:
        command += ["--campaign-info", pair]
    for pair in args.canvas_info:
        command += ["--canvas-info", pair]
    if args.online:
        command.append("--online")

    # Rendering is work per row, not per byte: the input is split into at least four partitions
    # per core (unless set otherwise), so that no core idles through a last, lone task.
    if spark.conf.get("spark.sql.files.minPartitionNum", None) is None:
        spark.conf.set("spark.sql.files.minPartitionNum", str(4 * sc.defaultParallelism))
    started = time.monotonic()
    numbered, total = number_documents(read_documents(spark, args))
    counted = time.monotonic()
    if args.input_format == "json" and hasattr(F, "is_valid_utf8"):
        # A line that is not UTF-8 goes as its bytes in base64 (Spark's strings would replace
        # them), and fails in pushliquid exactly as in a run over the file.
        document = F.when(F.is_valid_utf8("value"), F.col("value")).otherwise(
            F.concat(F.lit("base64:"), F.regexp_replace(F.base64(F.col("value").cast("binary")), r"\s", "")))  # (Spark 4 wraps at 76)
    else:
        # (Parquet strings come out of to_json; Spark before 4.0 cannot tell, and replaces bad bytes.)
        document = F.col("value")
    fed = numbered.select(F.concat(F.col("line").cast("string"), F.lit("\t"), document).alias("value"))
    if args.partitions:
        fed = fed.repartition(args.partitions)
    results = pipe(spark, fed, command, environment)

    remove_output(sc, args.output)
    if args.output_format == "json":
        # Straight from the JVM RDD, through the output commit protocol.
        results.saveAsTextFile(args.output)
        text = spark.read.text(args.output)
        number = F.substring_index(F.substring("value", len('{"line":') + 1, 20), ",", 1)
        # (The first `,"status":"` is the field: inside the JSON string before it, every quote is escaped.)
        written = text.select(F.when(F.col("value").startswith('{"line":'), number).cast("long").alias("line"),
                              F.regexp_extract("value", r',"status":"([a-z]+)"', 1).alias("status"))
    else:
        frame = as_frame(spark, results)
        frame.select(F.get_json_object("result", "$.line").cast("long").alias("line"),
                     F.get_json_object("result", "$.external_id").alias("external_id"),
                     F.get_json_object("result", "$.status").alias("status"), "result").write.mode("overwrite").parquet(args.output)
        written = spark.read.parquet(args.output).select("line", "status")
    rendered_at = time.monotonic()

    # What was committed, in one pass: a result for every line of the segment, each line once.
    check = check_output(written)
    problem = output_problem(check, total)
    if problem:
        fail(f"the committed output is not one result per line: {problem}")
    counts = {status: check[status] for status in STATUSES}
    checked = time.monotonic()
    summary = {"lines": total, **counts,
               "count_seconds": round(counted - started, 3), "render_seconds": round(rendered_at - counted, 3),
               "check_seconds": round(checked - rendered_at, 3), "partitions": results.getNumPartitions()}
    print("render_campaign: %d lines: %d rendered, %d aborted, %d failed, %d skipped; numbered in %.3f s, rendered and written in "
          "%.3f s (%.0f lines/s), checked in %.3f s" %
          (total, summary["rendered"], summary["aborted"], summary["failed"], summary["skipped"], counted - started,
           rendered_at - counted, total / max(rendered_at - counted, 1e-9), checked - rendered_at), file=sys.stderr)
    print(json.dumps(summary))
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
