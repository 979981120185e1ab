/**
 * `--data-dir` restart at cluster scale (issue 26): a data directory holding N ConfigMaps of ~1 KB is written by a
 * fake API server (created in-process through the store, so every commit goes to the append log), then a fresh
 * process starts a server on it and is timed from its own start (`performance.timeOrigin`) to the first HTTP answer
 * that lists all N objects' count back (`GET …/configmaps?limit=1`, then one object by name). Two cases: after a
 * clean stop (`snapshot.json`) and after a crash (the append log only, replayed). Goal ≤ 2 s; CPU-bound, so read the
 * `load1` beside it (the box is shared).
 *
 * Run: deno run --allow-all bench/fake_restart_bench.ts [--full] [--objects N]
 * @module
 */

import process from "node:process";
import { startFakeApiServer } from "../testing/apiserver/server.ts";
import { configMapOfAboutOneKb } from "./fake_memory_bench.ts";
import { CONFIGMAPS, serverV8Flags } from "./fake_bench_util.ts";
import { fullMode, lowerIsBetter, median, recordResult, round } from "./result.ts";

const GOAL_MS = 2000;
const NAMESPACE = "bench-memory";

/** The child: start on `dir`, answer one GET, print the timings (ms since this process started). */
async function child(dir: string, expect: number): Promise<void> {
  const t0 = performance.now();
  const server = await startFakeApiServer({ dataDir: dir, anonymousAdmin: true });
  const startedMs = performance.now();
  const last = `cm-${String(expect - 1).padStart(6, "0")}`;
  const res = await fetch(`${server.url}/api/v1/namespaces/${NAMESPACE}/configmaps/${last}`);
  if (res.status !== 200) throw new Error(`GET ${last} after restart → ${res.status}`);
  await res.body?.cancel();
  const servingMs = performance.now();
  const cpu = process.cpuUsage();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const count = server.store.listShared(CONFIGMAPS, { namespace: NAMESPACE }).items.length;
  const s0 = performance.now();
  await server.stop(); // writes the snapshot back: the directory is as before for the next rep
  const stopMs = performance.now() - s0;
  console.log(JSON.stringify({ importMs: t0, startMs: startedMs - t0, servingMs, cpuMs, stopMs, count }));
}

/** Writes `count` objects into `dir`; returns a copy of the log taken before the clean stop (the crash case). */
async function prepare(dir: string, count: number): Promise<{ logOnlyDir: string }> {
  const server = await startFakeApiServer({ dataDir: dir, anonymousAdmin: true });
  server.store.create({ group: "", version: "v1", plural: "namespaces" }, { metadata: { name: NAMESPACE } });
  for (let i = 0; i < count; i++) server.store.create(CONFIGMAPS, configMapOfAboutOneKb(i), { fieldManager: "Deno" });
  const logOnlyDir = await Deno.makeTempDir({ prefix: "kubeop-restart-log-" });
  await Deno.copyFile(`${dir}/objects.log`, `${logOnlyDir}/objects.log`);
  await server.stop();
  return { logOnlyDir };
}

async function restart(
  dir: string,
  count: number,
): Promise<{ servingMs: number; startMs: number; importMs: number; cpuMs: number; stopMs: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      ...(serverV8Flags() ? [`--v8-flags=${serverV8Flags()}`] : []),
      new URL(import.meta.url).pathname,
      "--child",
      dir,
      String(count),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`restart child failed (${out.code})`);
  const r = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  if (r.count !== count) throw new Error(`restart served ${r.count} objects, expected ${count}`);
  return r;
}

if (import.meta.main && Deno.args[0] === "--child") {
  await child(Deno.args[1], Number(Deno.args[2]));
} else if (import.meta.main) {
  const full = fullMode();
  const n = Deno.args.indexOf("--objects");
  const count = n >= 0 ? Number(Deno.args[n + 1]) : full ? 100_000 : 20_000;
  const reps = 3;
  const dir = await Deno.makeTempDir({ prefix: "kubeop-restart-" });
  const { logOnlyDir } = await prepare(dir, count);
  try {
    const snapshotRuns = [];
    const logRuns = [];
    for (let r = 0; r < reps; r++) {
      snapshotRuns.push(await restart(dir, count));
      // The crash case: a fresh copy of the log each rep (the child's clean stop turns it into a snapshot).
      const crashDir = await Deno.makeTempDir({ prefix: "kubeop-restart-crash-" });
      await Deno.copyFile(`${logOnlyDir}/objects.log`, `${crashDir}/objects.log`);
      logRuns.push(await restart(crashDir, count));
      await Deno.remove(crashDir, { recursive: true });
    }
    const snapshotBytes = (await Deno.stat(`${dir}/snapshot.json`)).size;
    for (
      const [name, runs, how] of [["fake-restart-snapshot", snapshotRuns, "clean stop: snapshot.json"], [
        "fake-restart-log",
        logRuns,
        "crash: objects.log replayed",
      ]] as const
    ) {
      const ms = round(median(runs.map((x) => x.servingMs)));
      await recordResult({
        name,
        params: {
          objects: count,
          reps,
          persisted: how,
          snapshotMiB: round(snapshotBytes / 2 ** 20),
          mode: full ? "full" : "quick",
        },
        unit: "ms to serving",
        kubeop: ms,
        peer: GOAL_MS,
        peerName: "goal",
        ratio: lowerIsBetter(ms, GOAL_MS),
        extra: {
          samplesMs: runs.map((x) => round(x.servingMs)),
          startFakeApiServerMs: runs.map((x) => round(x.startMs)),
          importMs: runs.map((x) => round(x.importMs)),
          cpuMsToServing: runs.map((x) => round(x.cpuMs)),
          stopMs: runs.map((x) => round(x.stopMs)),
          note:
            "process start → first answer (cpuMsToServing: the process CPU until then; stopMs: the clean stop that writes the snapshot); CPU-bound timing on a shared, loaded box",
        },
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(logOnlyDir, { recursive: true });
  }
}
