/**
 * The fake API server's memory per object at cluster scale (issue 26): a child process runs the server alone; this
 * process creates N ConfigMaps of ~1 KB (as JSON) over HTTP with 8 clients side by side, then asks the child for its
 * RSS and V8 heap after a forced full GC. Row `fake-memory-per-object`: (RSS after − RSS before) / N in bytes; goal ≤
 * 5 KB. `extra` has the heap per object and the fixed footprint. Memory is not distorted by the machine's load.
 *
 * `--pods`: Pods instead, run by the fake kubelet (bound, then Running) before the second measurement; row
 * `fake-memory-per-pod`.
 *
 * `--settle S`: both measurements wait S seconds of idle first (V8's memory reducer returns the pages the write
 * churn grew only after ~8 s without allocation; a forced GC does not); the row's params say so.
 *
 * Run: deno run --allow-all bench/fake_memory_bench.ts [--full] [--objects N] [--pods] [--settle S]
 * @module
 */

import { startFakeApiServer } from "../testing/apiserver/server.ts";
import { eventually } from "../testing/eventually.ts";
import { sampleConfigMap, serverV8Flags } from "./fake_bench_util.ts";
import { fullMode, lowerIsBetter, recordResult, round } from "./result.ts";

const GOAL_BYTES_PER_OBJECT = 5 * 1024;
const NAMESPACE = "bench-memory";
const CLIENTS = 8;

/** Memory of the server process after a full GC. */
interface ChildMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** The child: a fake API server, and a line protocol on stdin ("measure" → one JSON line on stdout). */
async function child(): Promise<void> {
  const server = await startFakeApiServer({ anonymousAdmin: true, kubelet: Deno.args.includes("--kubelet") });
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the child needs --v8-flags=--expose-gc");
  console.log(JSON.stringify({ url: server.url }));
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buffered = "";
  for await (const chunk of lines) {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const cmd = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (cmd === "measure") {
        gc();
        gc();
        const m = Deno.memoryUsage();
        console.log(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external }));
      } else if (cmd === "exit") {
        await server.stop();
        return;
      }
    }
  }
}

/** A ConfigMap of about 1 KB as JSON: the shared sample shape plus a 600-byte value. */
export function configMapOfAboutOneKb(i: number): ReturnType<typeof sampleConfigMap> {
  const cm = sampleConfigMap(NAMESPACE, i, 26);
  cm.data["payload"] = `${i}`.padStart(8, "0").repeat(75);
  return cm;
}

/** A Pod the fake kubelet runs for ever (no command): bound, then Running with its IP and conditions. */
export function runningPod(i: number): Record<string, unknown> {
  return {
    metadata: { name: `pod-${String(i).padStart(6, "0")}`, labels: { app: `app-${i % 17}` } },
    spec: {
      containers: [{ name: "app", image: `registry.example/app:${i % 1000}`, ports: [{ containerPort: 8080 }] }],
    },
  };
}

type Kind = "configmaps" | "pods";

/** Leaves the server idle for `seconds` (the memory reducer's time; a measurement of the settled state, not a sync). */
function idle(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/** Creates objects `from` … `to − 1` with {@link CLIENTS} requests in flight; returns the milliseconds taken. */
async function createAll(url: string, kind: Kind, from: number, to: number): Promise<number> {
  const base = `${url}/api/v1/namespaces/${NAMESPACE}/${kind}`;
  let next = from;
  const t0 = performance.now();
  const worker = async () => {
    for (let i = next++; i < to; i = next++) {
      const res = await fetch(base, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(kind === "pods" ? runningPod(i) : configMapOfAboutOneKb(i)),
      });
      if (res.status !== 201) throw new Error(`POST ${base} → ${res.status}: ${await res.text()}`);
      await res.body?.cancel();
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  return performance.now() - t0;
}

/**
 * Waits until `count` pods of the namespace exist and none is short of Running (the fake kubelet's writes done). Asks
 * for one pod not Running at a time: a poll listing every Running pod would move ~340 MB per call at 100 000 pods and
 * the server's RSS would measure the poll.
 */
async function allRunning(url: string, count: number, timeoutMs: number): Promise<void> {
  const base = `${url}/api/v1/namespaces/${NAMESPACE}/pods`;
  const q = `fieldSelector=${encodeURIComponent("status.phase!=Running")}&limit=1`;
  await eventually(`${count} pods Running`, async () => {
    const left = await (await fetch(`${base}?${q}`)).json();
    if (left.items.length > 0) return false;
    const page = await (await fetch(`${base}?limit=1`)).json();
    return page.items.length + (page.metadata.remainingItemCount ?? 0) >= count;
  }, { timeoutMs, intervalMs: 2000 });
}

if (import.meta.main && Deno.args.includes("--child")) {
  await child();
} else if (import.meta.main) {
  const full = fullMode();
  const n = Deno.args.indexOf("--objects");
  const kind: Kind = Deno.args.includes("--pods") ? "pods" : "configmaps";
  const count = n >= 0 ? Number(Deno.args[n + 1]) : full ? 100_000 : 20_000;
  const s = Deno.args.indexOf("--settle");
  const settleS = s >= 0 ? Number(Deno.args[s + 1]) : 0;
  const childArgs = ["--child", ...(kind === "pods" ? ["--kubelet"] : [])];
  const proc = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      `--v8-flags=${serverV8Flags("--expose-gc")}`,
      new URL(import.meta.url).pathname,
      ...childArgs,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const readLine = async (): Promise<string> => {
    for (;;) {
      const nl = pending.indexOf("\n");
      if (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the server process exited");
      pending += value;
    }
  };
  const writer = proc.stdin.getWriter();
  const measure = async (): Promise<ChildMemory> => {
    await writer.write(new TextEncoder().encode("measure\n"));
    return JSON.parse(await readLine());
  };
  try {
    const { url } = JSON.parse(await readLine()) as { url: string };
    const ns = await fetch(`${url}/api/v1/namespaces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: NAMESPACE } }),
    });
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${await ns.text()}`);
    const warmup = 1000;
    await createAll(url, kind, 0, warmup); // JIT, pools; these objects stay and are not counted
    if (kind === "pods") await allRunning(url, warmup, 600_000);
    await idle(settleS);
    const before = await measure();
    const ms = await createAll(url, kind, warmup, warmup + count);
    if (kind === "pods") await allRunning(url, warmup + count, 1_800_000);
    await idle(settleS);
    const after = await measure();
    const objects = count;
    const sampleName = kind === "pods" ? "pod-000001" : "cm-000001";
    const sample = await (await fetch(`${url}/api/v1/namespaces/${NAMESPACE}/${kind}/${sampleName}`)).text();
    const perObject = round((after.rss - before.rss) / objects);
    await recordResult({
      name: kind === "pods" ? "fake-memory-per-pod" : "fake-memory-per-object",
      params: {
        objects,
        kind: kind === "pods" ? "Pod (Running, fake kubelet)" : "ConfigMap",
        objectJsonBytes: sample.length,
        clients: CLIENTS,
        mode: full ? "full" : "quick",
        serverV8Flags: serverV8Flags("--expose-gc"),
        ...(settleS > 0 ? { idleSecondsBeforeMeasure: settleS } : {}),
      },
      unit: "B/object",
      kubeop: perObject,
      peer: GOAL_BYTES_PER_OBJECT,
      peerName: "goal",
      ratio: lowerIsBetter(perObject, GOAL_BYTES_PER_OBJECT),
      extra: {
        heapPerObject: round((after.heapUsed - before.heapUsed) / objects),
        externalPerObject: round((after.external - before.external) / objects),
        rssMiBBefore: round(before.rss / 2 ** 20),
        rssMiBAfter: round(after.rss / 2 ** 20),
        heapMiBAfter: round(after.heapUsed / 2 ** 20),
        heapCommittedPerObject: round((after.heapTotal - before.heapTotal) / objects),
        createsPerSec: round(objects / (ms / 1000)),
      },
    });
    await writer.write(new TextEncoder().encode("exit\n"));
    await proc.status;
  } finally {
    try {
      proc.kill();
    } catch { /* exited */ }
  }
}
