#!/usr/bin/env python3
"""The Spark job (render_campaign.py) on Spark, checked recipient by recipient against one
`pushliquid batch` run over the same segment:

1. 100,000 generated contexts (../shared/bench/gen_contexts.py) in local mode, 2 cores,
   4 partitions: every line's result once, each equal to the single run's.
2. The same with one partition's `pushliquid` killed (SIGKILL) after 5,000 results on its first
   attempt: Spark retries the task, and the results are still every line once, each equal to the
   single run's.
3. On a cluster: `local-cluster[2,1,1024]`, a standalone master and two workers whose executors
   are separate JVMs with their own working folders, so that the binary and the workspace reach
   them only as Spark ships files. The segment holds what a data lake may: a line that is not
   UTF-8, a CRLF line, blank lines, a broken document, a line over --max-line-bytes, no final
   newline. The results equal the single run's.
4. Parquet in and out (2,000 contexts): the same results.
5. Promotion codes across two executors and a killed, retried partition: every recipient one
   code, no code twice, the shared record holding exactly one code per recipient.
6. Bad input to the job: a campaign that is not there, a missing binary, a remote output without
   a shared ledger: a one-line error and a non-zero exit, before any task runs.
7. The job's check of its committed output (one result per line) catches a line twice, a line
   missing, a result without a number and an unknown status; an empty segment is zero results.

    test_render_campaign.py PUSHLIQUID_BINARY

Local mode is `local[2,4]`: two cores, and a failed task tried up to four times (as a cluster's
default). Exit 1 on the first check that fails; the times are printed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SHARED = ROOT.parent / "shared"
JOB = ROOT / "deploy/spark/render_campaign.py"
BINARY = Path(sys.argv[1]).resolve()
MASTER = "local[2,4]"
work = Path(tempfile.mkdtemp(prefix="spark-test-"))
times = {}

# The launcher the kill runs use: the first process to start (one partition's first attempt)
# passes K result lines on, then is killed with SIGKILL midway; every later one runs as it is.
KILL_ONCE = '''#!/usr/bin/env python3
import os, signal, subprocess, sys
marker, count, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
try:
    os.mkdir(marker)
except FileExistsError:
    os.execvp(command[0], command)
process = subprocess.Popen(command, stdout=subprocess.PIPE)
for _ in range(count):
    sys.stdout.buffer.write(process.stdout.readline())
sys.stdout.buffer.flush()
process.send_signal(signal.SIGKILL)
status = process.wait()
with open(os.path.join(marker, "killed"), "w") as f:
    f.write(f"pushliquid {process.pid} killed after {count} results: status {status}\\n")
sys.exit(137)
'''


def fail(message):
    print(f"spark-test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def spark_submit(*args, name, master=MASTER, expect_failure=False, spark_home=None):
    """Runs the job; its JSON summary (the last line of its output) and Spark's log."""
    started = time.monotonic()
    env = dict(os.environ)
    submit = "spark-submit"
    if spark_home:
        env["SPARK_HOME"] = str(spark_home)
        submit = str(spark_home / "bin/spark-submit")
    r = subprocess.run([submit, "--master", master, "--conf", "spark.ui.enabled=false", str(JOB), *map(str, args)],
                       capture_output=True, text=True, env=env)
    times[name] = time.monotonic() - started
    # (spark-submit merges the job's own standard error into its standard output.)
    if expect_failure:
        check(r.returncode != 0, f"{name}: the job succeeded")
        return r.stdout, r.stderr
    if r.returncode != 0:
        fail(f"{name}: spark-submit exited {r.returncode}:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def results_of(folder):
    """Every result line of a JSON-lines output, by its line number; a line twice is a failure."""
    by_line = {}
    for part in sorted(Path(folder).glob("part-*")):
        for raw in part.read_text(encoding="utf-8").splitlines():
            result = json.loads(raw)
            check(result["line"] not in by_line, f"line {result['line']} is in the output twice")
            by_line[result["line"]] = result
    return by_line


def single_run(contexts, workspace, campaign, *options, name="single pushliquid batch"):
    started = time.monotonic()
    with open(contexts, "rb") as stdin:
        r = subprocess.run([str(BINARY), "batch", campaign, "--templates", str(workspace / "Templates"), "--dry-run",
                            "--allow-failures", *options], stdin=stdin, capture_output=True)
    times.setdefault(name, time.monotonic() - started)
    check(r.returncode == 0, f"the single batch run failed: {r.stderr.decode()[-2000:]}")
    return {json.loads(line)["line"]: json.loads(line) for line in r.stdout.decode().splitlines()}


def same(expected, actual, name):
    check(sorted(actual) == list(range(1, len(expected) + 1)), f"{name}: the output has {len(actual)} lines, not every line 1...{len(expected)} once")
    for line, result in expected.items():
        if actual[line] != result:
            fail(f"{name}: line {line} differs from the single run:\n  single: {json.dumps(result)[:400]}\n  spark:  {json.dumps(actual[line])[:400]}")


def retried_once(log, name):
    """The one task Spark lost on its first attempt, and finished on its second."""
    lost = set(re.findall(r"Lost task ([0-9]+)\.0 in stage ([0-9.]+)", log))
    check(len(lost) == 1, f"{name}: Spark lost {len(lost)} first attempts, not one: {sorted(lost)}")
    task, stage = lost.pop()
    check(re.search(rf"Finished task {task}\.1 in stage {re.escape(stage)}", log),
          f"{name}: task {task} of stage {stage} was not finished by a second attempt")
    return task


# The segment, and a workspace with the bundled campaigns.
contexts = work / "segment.ndjson"
with open(contexts, "w") as out:
    subprocess.run([sys.executable, str(SHARED / "bench/gen_contexts.py"), "100000", "7"], stdout=out, check=True)
workspace = work / "workspace"
for folder in ["Templates", "Profiles", "Catalogs", "PromotionCodes"]:
    shutil.copytree(ROOT / folder, workspace / folder, ignore=shutil.ignore_patterns("*.used"))
reference = single_run(contexts, workspace, "learning-progress")
check(len(reference) == 100_000, "the single run has a result per line")
launcher = work / "kill_once.py"
launcher.write_text(KILL_ONCE, encoding="utf-8")
launcher.chmod(0o755)

# 1. Two cores, four partitions.
summary, _ = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress",
                          "--input", contexts, "--output", work / "out1", "--partitions", 4, name="spark, 100,000 recipients")
check(summary["lines"] == 100_000 and summary["rendered"] == sum(r["status"] == "rendered" for r in reference.values())
      and summary["partitions"] == 4, f"the job's summary: {summary}")
same(reference, results_of(work / "out1"), "spark")

# 2. One partition's pushliquid killed midway on its first attempt.
marker = work / "killed"
summary, log = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress",
                            "--input", contexts, "--output", work / "out2", "--partitions", 4,
                            "--launcher", f"{launcher} {marker} 5000", name="spark, a partition killed and retried")
killed = (marker / "killed").read_text() if (marker / "killed").exists() else ""
check("killed after 5000 results: status -9" in killed, f"a pushliquid was killed by SIGKILL midway: {killed!r}")
retried_once(log, "the killed run")
same(reference, results_of(work / "out2"), "spark after a killed partition")

# 3. On a cluster (separate executor JVMs), over a segment with bad lines. Its workers write
# their folders under SPARK_HOME: a private one, linked to the installed Spark.
spark_home = work / "spark-home"
spark_home.mkdir()
installed = Path(subprocess.run([sys.executable, "-c", "import pyspark, os; print(os.path.dirname(pyspark.__file__))"],
                                capture_output=True, text=True, check=True).stdout.strip())
for entry in installed.iterdir():
    (spark_home / entry.name).symlink_to(entry)
lines = contexts.read_bytes().split(b"\n")[:3000]
lines[10] = lines[10].replace(b"user", b"us\xffer", 1)                      # not UTF-8
lines[11] = b""                                                            # blank
lines[12] = lines[12] + b"\r"                                              # CRLF
lines[13] = b"{broken"                                                     # not JSON
lines[14] = lines[14][:-2] + b', "pad": "' + b"\xc3\xa9" * 1500 + b'"}}'  # over --max-line-bytes 2000
lines[15] = b"   "                                                         # blank
rough = work / "rough.ndjson"
rough.write_bytes(b"\n".join(lines))                                       # no final newline
expected = single_run(rough, workspace, "learning-progress", "--max-line-bytes", "2000", name="single pushliquid batch, rough segment")
check([expected[n]["status"] for n in range(11, 17)] == ["failed", "skipped", "rendered", "failed", "failed", "skipped"],
      f"the rough segment's bad lines: {[expected[n] for n in range(11, 17)]}")
summary, _ = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress", "--input", rough,
                          "--output", work / "out3", "--max-line-bytes", 2000, name="spark on local-cluster[2,1,1024]",
                          master="local-cluster[2,1,1024]", spark_home=spark_home)
check(summary["lines"] == 3000 and summary["failed"] == 3 and summary["skipped"] == 2, f"the cluster run's summary: {summary}")
same(expected, results_of(work / "out3"), "spark on a cluster")
check(any((spark_home / "work").glob("app-*/*/pushliquid")), "the executors' folders hold the shipped binary")

# 4. Parquet in and out.
small = work / "small.ndjson"
small.write_text("".join(contexts.read_text(encoding="utf-8").splitlines(keepends=True)[:2000]), encoding="utf-8")
converter = work / "to_parquet.py"
converter.write_text(
    "import sys\nfrom pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.getOrCreate()\n"
    "s.read.json(sys.argv[1]).coalesce(1).write.mode('overwrite').parquet(sys.argv[2])\n", encoding="utf-8")
r = subprocess.run(["spark-submit", "--master", "local[1]", "--conf", "spark.ui.enabled=false", str(converter), str(small), str(work / "segment.parquet")],
                   capture_output=True, text=True)
check(r.returncode == 0, f"writing the Parquet segment: {r.stderr[-2000:]}")
summary, _ = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress", "--input", work / "segment.parquet",
                          "--input-format", "parquet", "--output", work / "out4", "--output-format", "parquet", "--partitions", 2, name="spark, Parquet")
check(summary["lines"] == 2000, f"the Parquet run's summary: {summary}")
dump = work / "from_parquet.py"
dump.write_text(
    "import json, sys\nfrom pyspark.sql import SparkSession\n"
    "s = SparkSession.builder.getOrCreate()\n"
    "for row in s.read.parquet(sys.argv[1]).orderBy('line').collect():\n"
    "    print(json.dumps({'line': row['line'], 'external_id': row['external_id'], 'status': row['status'], 'result': row['result']}))\n",
    encoding="utf-8")
r = subprocess.run(["spark-submit", "--master", "local[1]", "--conf", "spark.ui.enabled=false", str(dump), str(work / "out4")],
                   capture_output=True, text=True)
check(r.returncode == 0, f"reading the Parquet results: {r.stderr[-2000:]}")
rows = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
check([row["line"] for row in rows] == list(range(1, 2001)), f"2,000 Parquet results, lines 1...2000 once each (got {len(rows)})")
for row in rows:
    # The columns are the result's; the payloads are the single run's (Parquet keeps the documents' values).
    result, want = json.loads(row["result"]), reference[row["line"]]
    check(row["external_id"] == result.get("external_id") == want["external_id"] and row["status"] == result["status"] == want["status"],
          f"Parquet line {row['line']}: its columns differ from its result or from the single run")
    check(result.get("payload") == want.get("payload"), f"Parquet line {row['line']} differs from the single run")

# 5. Promotion codes: two executors, a partition killed and retried, one shared record.
promo = work / "promo"
shutil.copytree(workspace, promo)
codes = [f"SPRING-{i:06d}" for i in range(1, 12_001)]
(promo / "PromotionCodes/course_offer.csv").write_text("code\n" + "\n".join(codes) + "\n", encoding="utf-8")
few = work / "promo.ndjson"
few.write_text("".join(contexts.read_text(encoding="utf-8").splitlines(keepends=True)[:10_000]), encoding="utf-8")
ledger = work / "ledger"
marker = work / "killed-promo"
summary, log = spark_submit("--binary", BINARY, "--workspace", promo, "--campaign", "course-offer", "--input", few,
                            "--output", work / "out5", "--partitions", 4, "--ledger", ledger, "--campaign-info", "dispatch_id=d-1",
                            "--launcher", f"{launcher} {marker} 700", name="spark, promotion codes")
check((marker / "killed").exists(), "the promotion run's partition was killed")
retried_once(log, "the promotion run")
results = results_of(work / "out5")
check(sorted(results) == list(range(1, 10_001)), "every recipient once")
given = {}
for line, result in results.items():
    check(result["status"] == "rendered", f"line {line} rendered: {result}")
    code = result["payload"]["promo_code"]
    check(result["payload"]["aps"]["alert"]["body"].count(code) == 1, f"line {line}: the body shows its code")
    given[result["external_id"]] = code
check(len(set(given.values())) == 10_000, f"10,000 recipients, {len(set(given.values()))} distinct codes: a code was handed out twice")
record = [json.loads(line) for line in (ledger / "course_offer.used").read_text(encoding="utf-8").splitlines()]
check(len(record) == 10_000, f"the record holds {len(record)} codes for 10,000 recipients (a retried recipient got a second code?)")
check({code for code, _ in record} == set(given.values()), "the record is the codes the payloads show")

# 6. Bad input to the job: a one-line reason, a non-zero exit, nothing run.
for args, reason, name in [
    (["--campaign", "no-such-campaign"], "campaign no-such-campaign cannot be rendered:\nerror: no campaign 'no-such-campaign'", "a missing campaign"),
    (["--campaign", "learning-progress", "--binary", work / "nothing-here"], f"--binary {work / 'nothing-here'}: not an executable file", "a missing binary"),
    (["--campaign", "course-offer", "--output", "s3a://bucket/results"], "--ledger DIR is needed", "a remote output without a ledger"),
]:
    given_args = {"--binary": BINARY, "--workspace": workspace, "--input": few, "--output": work / "out6"}
    for key, value in zip(args[::2], args[1::2]):
        given_args[key] = value
    output, _ = spark_submit(*[part for pair in given_args.items() for part in pair], name=f"bad input: {name}", expect_failure=True)
    check("render_campaign: error: " in output and reason in output, f"{name}: the job's error: {output[-1500:]}")
    check("Traceback" not in output, f"{name}: a traceback instead of a reason")

# 7. The job's own check of what it committed catches a line twice, a line missing and a result
# without its number; an empty segment is zero results, not an error.
checker = work / "check_output.py"
checker.write_text(f"""import json, sys
sys.path.insert(0, {str(JOB.parent)!r})
from pyspark.sql import SparkSession
from render_campaign import check_output, output_problem
spark = SparkSession.builder.getOrCreate()
def problem(rows, total):
    frame = spark.createDataFrame(rows, "line long, status string")
    return output_problem(check_output(frame), total)
print(json.dumps({{
    "whole": problem([(n, "rendered") for n in range(1, 40001)], 40000),
    "twice": problem([(n, "rendered") for n in range(1, 40001)] + [(33000, "failed")], 40001),
    "twice, one missing": problem([(n, "rendered") for n in range(1, 40001) if n != 7] + [(39999, "rendered")], 40000),
    "unnumbered": problem([(n, "rendered") for n in range(1, 40000)] + [(None, "rendered")], 40000),
    "unknown status": problem([(1, "rendered"), (2, "sent")], 2),
    "empty": problem([], 0),
}}))
""", encoding="utf-8")
r = subprocess.run(["spark-submit", "--master", "local[2]", "--conf", "spark.ui.enabled=false", str(checker)], capture_output=True, text=True)
check(r.returncode == 0, f"the output check's test: {r.stdout[-2000:]}{r.stderr[-2000:]}")
problems = json.loads(r.stdout.strip().splitlines()[-1])
check(problems["whole"] is None and problems["empty"] is None, f"a whole output passes the check: {problems}")
for case in ["twice", "twice, one missing", "unnumbered", "unknown status"]:
    check(problems[case] is not None, f"the output check misses a result {case}: {problems}")
check("40001 results for 40000 distinct lines" in problems["twice"], problems["twice"])
check("40000 results for 39999 distinct lines" in problems["twice, one missing"], problems["twice, one missing"])
empty = work / "empty.ndjson"
empty.write_bytes(b"")
summary, _ = spark_submit("--binary", BINARY, "--workspace", workspace, "--campaign", "learning-progress", "--input", empty,
                          "--output", work / "out7", name="spark, an empty segment")
check(summary["lines"] == 0 and summary["rendered"] == 0, f"an empty segment: {summary}")

shutil.rmtree(work, ignore_errors=True)
print("spark-test: every check passed")
for name, seconds in times.items():
    print(f"spark-test: {name}: {seconds:.1f} s")
