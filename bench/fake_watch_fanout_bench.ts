/**
 * Fake API server watch fan-out: N watches (quick 1, 100, 1 000; full also 5 000) on the ConfigMaps of one namespace,
 * each its own HTTP/1.1 connection, while a writer in the server's process updates 100 ConfigMaps round-robin
 * through the store API (store.update; no HTTP on the write side), either as fast as it can (one write per event-loop
 * turn, yielding through a MessageChannel so the server can flush) or paced at M events/s.
 *
 * The watchers run in a SUBPROCESS (this file with `--watch-client`, bench/fake_watch_fanout_client.ts), so the server's event loop pays only for
 * serving, as it would with real clients. Each watch is a raw TCP socket speaking HTTP/1.1 with a tiny chunked-body
 * decoder that counts newline-terminated frames without parsing them: a fetch body reader per watch cost the client
 * ~6× the server's CPU and made the client the bottleneck. Each watcher stamps the arrival of every `stride`-th frame
 * with a wall-clock time (performance.timeOrigin + now, comparable between two processes on one host); the server
 * records when it issued each write; latency = arrival − write, over every (watcher, sampled event) pair.
 *
 * Results, per N:
 * - `fake-watch-fanout` (events/s): delivered events per second summed over watchers, N × events ÷ (last arrival −
 *   first write), writer at full speed. Peer = N × the same figure with N = 1 (perfectly linear scaling of one
 *   watcher), so ratio = scaling efficiency: 1 = N watchers cost no more per event than one; 1/N = the aggregate
 *   delivery rate did not grow at all with N. The single-watcher rate includes the write itself (store.update, ~40 µs
 *   of CPU), so the ratio falls roughly as 1/N once per-delivery cost dominates; `serverCpuUsPerDelivery` is the
 *   machine-noise-resistant figure to compare across runs. `extra` also carries latency p50/p99 under that load, the
 *   achieved write rate, server heap/RSS per open watch, the peak growth while delivering, the time and server CPU
 *   to open the watches, and `cpuBusyShareOfWall` ((server + client CPU) ÷ wall; far below 2 on a 2-core machine
 *   means other processes took the cores and wall-clock figures are pessimistic).
 * - `fake-watch-fanout-latency` (ms): p99 write→arrival at a paced M events/s (quick 40 events at 20/s, full 100 at
 *   50/s) — the latency of a lightly loaded server; peer = the same with N = 1, ratio = peer/kubeop.
 * - `fake-watch-fanout-p99` (ms): p99 write→arrival with 1 000 watchers at a fixed 1 000 writes/s (quick 500 writes,
 *   full 2 000; 1 M deliveries/s asked of the server), against the goal of 50 ms (ratio = 50 / p99, > 1 = met).
 *
 * Set BENCH_DEBUG=1 for one progress line per run on stderr.
 *
 * Run: deno run --allow-all --v8-flags=--expose-gc bench/fake_watch_fanout_bench.ts [--full] [--only-p99]
 * (`--only-p99`: the fixed-rate row alone).
 * @module
 */

import type { FakeApiServer } from "../testing/mod.ts";
import { CONFIGMAPS, epochMs, memoryAfterGc, mib, withDeadline } from "./fake_bench_util.ts";
import { type ClientReport, runWatchClient, WATCH_NAMESPACE as NAMESPACE } from "./fake_watch_fanout_client.ts";
import { fullMode, higherIsBetter, lowerIsBetter, median, percentile, recordResult, round } from "./result.ts";

const OBJECTS = 100;
const SAMPLES_PER_RUN = 50;
const RUN_TIMEOUT_MS = 120_000;
const CLIENT_FLAG = "--watch-client";
/** The fixed-rate row: watchers, writes/s and the p99 goal. */
const FIXED_RATE_WATCHERS = 1_000;
const FIXED_RATE_PER_SEC = 1_000;
const FIXED_RATE_P99_GOAL_MS = 50;

/** One measured run. */
interface RunResult {
  watchers: number;
  events: number;
  deliveredPerSec: number;
  writesPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  heapPerWatchBytes: number;
  rssPerWatchBytes: number;
  peakHeapGrowthBytes: number;
  peakRssGrowthBytes: number;
  /** CPU ms the server process (writer included) and the client subprocess spent from first write to last arrival. */
  serverCpuMs: number;
  clientCpuMs: number;
  wallMs: number;
  /** Client-measured time to open every watch (response heads received); server CPU over that span. */
  connectMs: number;
  serverCpuOpenMs: number;
}

/** User + system CPU time of a process in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid: number | "self"): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, 100 ticks/s
  } catch {
    return NaN;
  }
}

/** Yields one macrotask (MessageChannel; setTimeout(0) is clamped to ms and would cap the writer). */
function macrotask(channel: MessageChannel): Promise<void> {
  return new Promise((resolve) => {
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });
}

/** Reads newline-delimited JSON lines from a subprocess's stdout. */
async function* jsonLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let nl = buffered.indexOf("\n");
    while (nl !== -1) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) yield JSON.parse(line);
      nl = buffered.indexOf("\n");
    }
  }
}

/** One run: N watchers, `events` writes (paced at `ratePerSec`, or as fast as possible when null). */
async function runFanout(
  server: FakeApiServer,
  watchers: number,
  events: number,
  ratePerSec: number | null,
  seq: { next: number },
): Promise<RunResult> {
  const runStart = performance.now();
  const stride = Math.max(1, Math.ceil(events / SAMPLES_PER_RUN));
  const samples = Math.floor((events - 1) / stride) + 1;
  const rv = server.store.listShared(CONFIGMAPS, { namespace: NAMESPACE, limit: 1 }).metadata.resourceVersion!;
  const memBefore = memoryAfterGc();
  const cpuSpawn = cpuMs("self");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      new URL(import.meta.url).pathname,
      CLIENT_FLAG,
      server.url,
      rv,
      String(watchers),
      String(events),
      String(stride),
    ],
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const lines = jsonLines(child.stdout);
  const channel = new MessageChannel();
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    const ready = await withDeadline(lines.next(), RUN_TIMEOUT_MS, `${watchers} watches connecting`);
    const cpuOpen = cpuMs("self");
    if (ready.done || !(ready.value as { ready?: boolean }).ready) throw new Error("watch client did not get ready");
    const connectMs = (ready.value as { connectMs: number }).connectMs;
    const tOpen = performance.now();
    const memOpen = memoryAfterGc();
    let peak = { heap: memOpen.heapUsedBytes, rss: memOpen.rssBytes };
    sampler = setInterval(() => {
      const m = Deno.memoryUsage();
      peak = { heap: Math.max(peak.heap, m.heapUsed), rss: Math.max(peak.rss, m.rss) };
    }, 10);

    const sentAt = new Float64Array(events);
    const cpu0 = { server: cpuMs("self"), client: cpuMs(child.pid) };
    const t0 = performance.now();
    for (let k = 0; k < events; k++) {
      if (ratePerSec === null) await macrotask(channel);
      else {
        const wait = t0 + (k * 1000) / ratePerSec - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      sentAt[k] = epochMs();
      const name = `fanout-${k % OBJECTS}`;
      server.store.update(CONFIGMAPS, {
        metadata: { name, namespace: NAMESPACE },
        data: { seq: String(seq.next++) }, // never a no-op update (those commit nothing)
      }, { namespace: NAMESPACE, name });
    }
    const writeSeconds = (performance.now() - t0) / 1000;
    const reportLine = await withDeadline(lines.next(), RUN_TIMEOUT_MS, `${watchers} watchers receiving ${events}`);
    const cpu1 = { server: cpuMs("self"), client: cpuMs(child.pid) };
    const wallMs = performance.now() - t0;
    clearInterval(sampler);
    sampler = undefined;
    const peakMem = Deno.memoryUsage();
    peak = { heap: Math.max(peak.heap, peakMem.heapUsed), rss: Math.max(peak.rss, peakMem.rss) };
    if (reportLine.done) throw new Error("watch client exited without a report");
    const report = reportLine.value as ClientReport;
    const short = report.counts.filter((c) => c !== events).length;
    if (short > 0) throw new Error(`${short} of ${watchers} watchers did not receive all ${events} events`);

    const latencies: number[] = [];
    for (let w = 0; w < watchers; w++) {
      for (let s = 0; s < samples; s++) latencies.push(report.sampleArrival[w * samples + s] - sentAt[s * stride]);
    }
    const lastArrival = Math.max(...report.lastArrival);
    if (Deno.env.get("BENCH_DEBUG")) { // per-run progress on stderr
      console.error(
        `fanout N=${watchers} events=${events} rate=${ratePerSec ?? "max"}: run ${
          Math.round(performance.now() - runStart)
        } ms, ` +
          `open ${Math.round(tOpen - runStart)} ms, write ${Math.round(writeSeconds * 1000)} ms, ` +
          `cpu server ${cpu1.server - cpu0.server} ms / client ${cpu1.client - cpu0.client} ms / wall ${
            Math.round(wallMs)
          } ms`,
      );
    }
    return {
      watchers,
      events,
      deliveredPerSec: (watchers * events) / ((lastArrival - sentAt[0]) / 1000),
      writesPerSec: events / writeSeconds,
      latencyP50Ms: percentile(latencies, 50),
      latencyP99Ms: percentile(latencies, 99),
      heapPerWatchBytes: (memOpen.heapUsedBytes - memBefore.heapUsedBytes) / watchers,
      rssPerWatchBytes: (memOpen.rssBytes - memBefore.rssBytes) / watchers,
      peakHeapGrowthBytes: peak.heap - memOpen.heapUsedBytes,
      peakRssGrowthBytes: peak.rss - memOpen.rssBytes,
      serverCpuMs: cpu1.server - cpu0.server,
      clientCpuMs: cpu1.client - cpu0.client,
      wallMs,
      connectMs,
      serverCpuOpenMs: cpuOpen - cpuSpawn,
    };
  } finally {
    if (sampler !== undefined) clearInterval(sampler);
    channel.port1.close();
    channel.port2.close();
    const status = await withDeadline(child.status, 10_000, "watch client exit").catch(() => {
      child.kill();
      return child.status;
    });
    await child.stdout.cancel().catch(() => {});
    if (!status.success) console.error(`watch client (${watchers} watchers) exited ${status.code}`);
  }
}

/** Events per max-speed run: ~100 000 deliveries, between 100 and 2 000 events. */
function eventsFor(watchers: number): number {
  return Math.max(100, Math.min(2_000, Math.round(100_000 / watchers)));
}

async function main(): Promise<void> {
  const full = fullMode();
  const sizes = full ? [100, 1_000, 5_000] : [100, 1_000];
  const reps = full ? 5 : 3;
  const pacedRate = full ? 50 : 20;
  const pacedEvents = full ? 100 : 40;
  const { startFakeApiServer } = await import("../testing/mod.ts");
  const server = await startFakeApiServer();
  try {
    server.store.create({ group: "", version: "v1", plural: "namespaces" }, { metadata: { name: NAMESPACE } });
    for (let i = 0; i < OBJECTS; i++) {
      server.store.create(CONFIGMAPS, { metadata: { name: `fanout-${i}`, namespace: NAMESPACE }, data: { seq: "" } });
    }
    const seq = { next: 0 };
    await runFanout(server, 10, 200, null, seq); // warm-up: JIT, subprocess module cache

    const onlyFixed = Deno.args.includes("--only-p99");
    const maxRuns = new Map<number, RunResult[]>();
    const pacedRuns = new Map<number, RunResult>();
    for (let r = 0; r < (onlyFixed ? 0 : reps); r++) {
      for (const n of [1, ...sizes]) {
        const list = maxRuns.get(n) ?? [];
        list.push(await runFanout(server, n, eventsFor(n), null, seq));
        maxRuns.set(n, list);
      }
    }
    for (const n of onlyFixed ? [] : [1, ...sizes]) {
      pacedRuns.set(n, await runFanout(server, n, pacedEvents, pacedRate, seq));
    }
    const fixedRuns: RunResult[] = [];
    for (let r = 0; r < reps; r++) {
      fixedRuns.push(await runFanout(server, FIXED_RATE_WATCHERS, full ? 2_000 : 500, FIXED_RATE_PER_SEC, seq));
    }

    const med = (runs: RunResult[], f: (r: RunResult) => number) => round(median(runs.map(f)));
    const single = maxRuns.get(1) ?? [];
    const singleRate = onlyFixed ? 0 : med(single, (r) => r.deliveredPerSec);
    const singlePaced = pacedRuns.get(1)!;
    const common = {
      namespace: NAMESPACE,
      objects: OBJECTS,
      writer: "store.update in the server process",
      client: "subprocess, raw HTTP/1.1 socket per watch, chunked decoding, frames counted not parsed",
      cpuNote: "server/client CPU ms from /proc; wall ≫ CPU means the cores were busy with other work",
      reps,
      warmup: 1,
      gcForced: typeof (globalThis as { gc?: unknown }).gc === "function",
      mode: full ? "full" : "quick",
    };
    for (const n of onlyFixed ? [] : sizes) {
      const runs = maxRuns.get(n)!;
      const delivered = med(runs, (r) => r.deliveredPerSec);
      const linear = round(singleRate * n);
      await recordResult({
        name: "fake-watch-fanout",
        params: {
          ...common,
          watchers: n,
          events: eventsFor(n),
          writeRate: "max (one write per event-loop turn)",
          ratioMeaning: "scaling efficiency: delivered/s at N ÷ (N × delivered/s at N=1); 1 = linear",
        },
        unit: "events/s",
        kubeop: delivered,
        peer: linear,
        peerName: "N x single-watcher rate",
        ratio: higherIsBetter(delivered, linear),
        extra: {
          singleWatcherDeliveredPerSec: singleRate,
          writesPerSec: med(runs, (r) => r.writesPerSec),
          latencyP50Ms: med(runs, (r) => r.latencyP50Ms),
          latencyP99Ms: med(runs, (r) => r.latencyP99Ms),
          heapPerWatchKiB: round(med(runs, (r) => r.heapPerWatchBytes) / 1024),
          rssPerWatchKiB: round(med(runs, (r) => r.rssPerWatchBytes) / 1024),
          peakHeapGrowthMiB: mib(med(runs, (r) => r.peakHeapGrowthBytes)),
          peakRssGrowthMiB: mib(med(runs, (r) => r.peakRssGrowthBytes)),
          serverCpuUsPerDelivery: round(med(runs, (r) => (r.serverCpuMs * 1000) / (r.watchers * r.events))),
          singleWatcherServerCpuUsPerEvent: round(med(single, (r) => (r.serverCpuMs * 1000) / r.events)),
          clientCpuUsPerDelivery: round(med(runs, (r) => (r.clientCpuMs * 1000) / (r.watchers * r.events))),
          cpuBusyShareOfWall: round(med(runs, (r) => (r.serverCpuMs + r.clientCpuMs) / r.wallMs)),
          watchOpenMs: round(med(runs, (r) => r.connectMs)),
          serverCpuUsPerWatchOpen: round(med(runs, (r) => (r.serverCpuOpenMs * 1000) / r.watchers)),
          samplesDeliveredPerSec: runs.map((r) => round(r.deliveredPerSec)),
        },
      });
    }
    for (const n of onlyFixed ? [] : sizes) {
      const paced = pacedRuns.get(n)!;
      await recordResult({
        name: "fake-watch-fanout-latency",
        params: { ...common, watchers: n, events: pacedEvents, writeRatePerSec: pacedRate, reps: 1 },
        unit: "ms",
        kubeop: round(paced.latencyP99Ms),
        peer: round(singlePaced.latencyP99Ms),
        peerName: "same rate, 1 watcher",
        ratio: lowerIsBetter(paced.latencyP99Ms, singlePaced.latencyP99Ms),
        extra: {
          latencyP50Ms: round(paced.latencyP50Ms),
          singleWatcherP50Ms: round(singlePaced.latencyP50Ms),
          deliveredPerSec: round(paced.deliveredPerSec),
        },
      });
    }
    const fixedP99 = med(fixedRuns, (r) => r.latencyP99Ms);
    await recordResult({
      name: "fake-watch-fanout-p99",
      params: {
        ...common,
        watchers: FIXED_RATE_WATCHERS,
        events: fixedRuns[0].events,
        writeRatePerSec: FIXED_RATE_PER_SEC,
        ratioMeaning: "goal ÷ p99 (> 1 = under the goal)",
      },
      unit: "ms",
      kubeop: fixedP99,
      peer: FIXED_RATE_P99_GOAL_MS,
      peerName: "goal",
      ratio: lowerIsBetter(fixedP99, FIXED_RATE_P99_GOAL_MS),
      extra: {
        latencyP50Ms: med(fixedRuns, (r) => r.latencyP50Ms),
        writesPerSec: med(fixedRuns, (r) => r.writesPerSec),
        deliveredPerSec: med(fixedRuns, (r) => r.deliveredPerSec),
        serverCpuUsPerDelivery: round(med(fixedRuns, (r) => (r.serverCpuMs * 1000) / (r.watchers * r.events))),
        clientCpuUsPerDelivery: round(med(fixedRuns, (r) => (r.clientCpuMs * 1000) / (r.watchers * r.events))),
        cpuBusyShareOfWall: round(med(fixedRuns, (r) => (r.serverCpuMs + r.clientCpuMs) / r.wallMs)),
        samplesP99Ms: fixedRuns.map((r) => round(r.latencyP99Ms)),
      },
    });
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf(CLIENT_FLAG);
  if (at !== -1) {
    const [url, rv, watchers, events, stride] = Deno.args.slice(at + 1);
    await runWatchClient(url, rv, Number(watchers), Number(events), Number(stride));
  } else {
    await main();
  }
}
