/**
 * The fake API server at KWOK's stated scale (issue 26): 1 000 Nodes and 100 000 Pods held and listed. A child
 * process runs the server alone and fills it in-process (store.create, then a status write per pod, as the fake
 * kubelet runs them: bound to a node, Running with an IP and conditions); RSS and V8 heap after a forced GC, before
 * and after. Then this process lists over HTTP as a cluster's clients do:
 * - every pod in one unpaginated list (kube-controller-manager's and kube-scheduler's informers),
 * - every pod in pages of 500 (`limit` + `continue`, the reflector's paged list),
 * - one node's pods (`fieldSelector=spec.nodeName=…`, what each kubelet lists), 20 nodes;
 * and watches as informers start them with WatchList (`sendInitialEvents=true`, timed to the
 * `k8s.io/initial-events-end` bookmark): every pod, and one node's pods (20 nodes); then writes into the full store:
 * pods/10 (≤ 10 000) more pods created and set Running over HTTP, and pods/10 (≤ 2 000) merge patches timed until a
 * watch opened before them has seen every one.
 *
 * Rows: `fake-cluster-memory-per-pod` (RSS bytes per pod, goal ≤ 5 KB), `fake-cluster-list-all`,
 * `fake-cluster-list-paged`, `fake-cluster-list-node`, `fake-cluster-watch-list-all`,
 * `fake-cluster-watch-list-node`, `fake-cluster-writes` and `fake-cluster-patch-watch` (ms). With `--real`, the same
 * population is written to etcd + kube-apiserver v1.37.2 (testing/envtest, over HTTP: slow) and every timed row gets it
 * as its peer.
 *
 * `--settle S`: both memory samples wait S seconds of idle first (V8's memory reducer returns the pages the fill's
 * churn grew; the settled state a cluster's API server spends its time in).
 *
 * Run: deno run --allow-all bench/fake_cluster_scale_bench.ts [--full] [--nodes N] [--pods N] [--settle S] [--real]
 * @module
 */

import { LineSplitter } from "../runtime/http/json_lines.ts";
import { startFakeApiServer } from "../testing/apiserver/server.ts";
import { fullMode, lowerIsBetter, median, recordResult, round } from "./result.ts";

const GOAL_BYTES_PER_POD = 5 * 1024;
const NAMESPACES = 10;
const PAGE = 500;
const NODE_LISTS = 20;
/** Requests in flight when writing over HTTP (both targets). */
const IN_FLIGHT = 16;
const PODS = { group: "", version: "v1", plural: "pods" } as const;
const NODES = { group: "", version: "v1", plural: "nodes" } as const;
const NAMESPACE = { group: "", version: "v1", plural: "namespaces" } as const;

/** Node `i` as a kubelet registers it (trimmed to the fields that make a Node's size). */
export function nodeObject(i: number): Record<string, unknown> {
  const name = nodeName(i);
  return {
    metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", type: "kwok" } },
    spec: {},
    status: {
      conditions: [{
        type: "Ready",
        status: "True",
        reason: "KubeletReady",
        message: "kubelet is posting ready status",
      }],
      addresses: [{ type: "InternalIP", address: `10.0.${i >> 8}.${i & 255}` }, { type: "Hostname", address: name }],
      capacity: { cpu: "32", memory: "256Gi", pods: "110" },
      allocatable: { cpu: "32", memory: "256Gi", pods: "110" },
      nodeInfo: { kubeletVersion: "v1.37.2", operatingSystem: "linux", architecture: "amd64" },
    },
  };
}

const nodeName = (i: number) => `node-${String(i).padStart(4, "0")}`;

/** Pod `i`, bound to its node (pods spread round-robin over the nodes and the namespaces). */
export function boundPod(i: number, nodes: number): { namespace: string; body: Record<string, unknown> } {
  return {
    namespace: `ns-${i % NAMESPACES}`,
    body: {
      metadata: { name: `pod-${String(i).padStart(6, "0")}`, labels: { app: `app-${i % 17}` } },
      spec: {
        nodeName: nodeName(i % nodes),
        containers: [{ name: "app", image: `registry.example/app:${i % 1000}`, ports: [{ containerPort: 8080 }] }],
      },
    },
  };
}

/** The status the fake kubelet writes for a running pod (kubelet.ts). */
function runningStatus(i: number, pod: Record<string, unknown>, now: string): Record<string, unknown> {
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const spec = pod.spec as { containers: { name: string; image: string }[] };
  return {
    phase: "Running",
    hostIP: "10.0.0.1",
    podIP: ip,
    podIPs: [{ ip }],
    startTime: now,
    conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
      type,
      status: "True",
      lastProbeTime: null,
      lastTransitionTime: now,
    })),
    containerStatuses: spec.containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: `fake://${c.image}`,
      containerID: `fake://${crypto.randomUUID()}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
      lastState: {},
    })),
  };
}

interface ChildReport {
  url: string;
  pods: number;
  rssBefore: number;
  rssAfter: number;
  heapBefore: number;
  heapAfter: number;
  fillMs: number;
}

/** The child: a fake API server filled in-process, then serving until stdin closes. */
async function child(nodes: number, pods: number, settleS: number): Promise<void> {
  const server = await startFakeApiServer({ anonymousAdmin: true });
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("the child needs --v8-flags=--expose-gc");
  // Idle first when asked: the memory reducer's time (a measurement of the settled state, not a synchronisation).
  const measure = async () => {
    if (settleS > 0) await new Promise((resolve) => setTimeout(resolve, settleS * 1000));
    return gc(), gc(), Deno.memoryUsage();
  };
  const s = server.store;
  for (let n = 0; n < NAMESPACES; n++) s.create(NAMESPACE, { metadata: { name: `ns-${n}` } });
  for (let i = 0; i < nodes; i++) s.create(NODES, nodeObject(i) as never, { fieldManager: "kubelet" });
  const before = await measure();
  const t0 = performance.now();
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  for (let i = 0; i < pods; i++) {
    const { namespace, body } = boundPod(i, nodes);
    const created = s.create(PODS, body as never, { namespace, fieldManager: "kube-controller-manager" });
    const next = { ...created, status: runningStatus(i, created, now) };
    s.update(PODS, next, { namespace, name: created.metadata.name!, subresource: "status", fieldManager: "kubelet" });
    if (i % 5000 === 4999) await new Promise((r) => setTimeout(r, 0)); // let the server's timers run
  }
  const fillMs = performance.now() - t0;
  const after = await measure();
  const report: ChildReport = {
    url: server.url,
    pods,
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    fillMs,
  };
  console.log(JSON.stringify(report));
  for await (const _ of Deno.stdin.readable) { /* until the parent closes stdin */ }
  await server.stop();
}

/** Where requests go: a base URL and how to reach it (headers include content-type and no compression). */
interface Target {
  url: string;
  init: RequestInit & { client?: Deno.HttpClient; headers: Record<string, string> };
}

/** Sends one JSON request; returns the answer parsed. */
async function send(target: Target, method: string, path: string, body: unknown, type = "application/json") {
  const headers = { ...target.init.headers, "content-type": type };
  const res = await fetch(`${target.url}${path}`, { ...target.init, method, headers, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${await res.text()}`);
  return await res.json();
}

/**
 * Reads a watch's body a line (an event) at a time, split by the runtime's {@link LineSplitter}, until `onLine` returns
 * true; throws, naming `what`, when the stream ends first. Cancels the body on return.
 */
async function readWatchLines(res: Response, what: string, onLine: (line: string) => boolean): Promise<void> {
  const reader = res.body!.getReader();
  let finished = false;
  const split = new LineSplitter((line) => void (finished ||= onLine(line)));
  try {
    while (!finished) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${what}: the watch ended first`);
      split.push(value);
    }
  } finally {
    await reader.cancel();
  }
}

/** How many of `pods` pods spread round-robin over `nodes` nodes are on node `n` (boundPod's placement). */
function podsOnNode(n: number, nodes: number, pods: number): number {
  return Math.floor(pods / nodes) + (n < pods % nodes ? 1 : 0);
}

/** Runs `make(i)` for i in [from, to) with {@link IN_FLIGHT} calls at a time. */
async function inFlight(from: number, to: number, make: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    for (let i = next++; i < to; i = next++) await make(i);
  }));
}

/** Creates pods `from` … `to − 1` over HTTP, each then set Running by a status PUT (what a kubelet writes). */
async function writePods(target: Target, nodes: number, from: number, to: number): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  await inFlight(from, to, async (i) => {
    const { namespace, body } = boundPod(i, nodes);
    const created = await send(target, "POST", `/api/v1/namespaces/${namespace}/pods`, body);
    created.status = runningStatus(i, created, now);
    await send(target, "PUT", `/api/v1/namespaces/${namespace}/pods/${created.metadata.name}/status`, created);
  });
}

/**
 * A watch on every pod from now, then `count` merge patches (a label on pods 0 … count − 1); the milliseconds from the
 * first patch sent to the last MODIFIED event read.
 */
async function patchWatch(target: Target, nodes: number, count: number): Promise<number> {
  const rv = (await get(target, "/api/v1/pods?limit=1")).body!.metadata as { resourceVersion: string };
  const res = await fetch(`${target.url}/api/v1/pods?watch=1&resourceVersion=${rv.resourceVersion}`, target.init);
  if (res.status !== 200) throw new Error(`watch → ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const t0 = performance.now();
  const patching = inFlight(0, count, async (i) => {
    const { namespace, body } = boundPod(i, nodes);
    const path = `/api/v1/namespaces/${namespace}/pods/${(body.metadata as { name: string }).name}`;
    await send(target, "PATCH", path, { metadata: { labels: { touched: "yes" } } }, "application/merge-patch+json");
  });
  const seen = new Set<string>(); // by pod: another writer's MODIFIED event (a controller's) is not one of ours
  await readWatchLines(res, `patch+watch (${count} patches)`, (line) => {
    if (line.startsWith(`{"type":"MODIFIED"`) && line.includes(`"touched":"yes"`)) {
      const pod = JSON.parse(line).object.metadata;
      seen.add(`${pod.namespace}/${pod.name}`);
    }
    return seen.size === count;
  });
  const ms = performance.now() - t0;
  await patching;
  return ms;
}

/** The write rows: `writes` more pods created and run, then `patches` patches seen through a watch. */
async function writeRows(target: Target, nodes: number, pods: number): Promise<Record<string, number>> {
  const writes = Math.min(10_000, Math.ceil(pods / 10));
  const t0 = performance.now();
  await writePods(target, nodes, pods, pods + writes);
  const writesMs = performance.now() - t0;
  const patchWatchMs = await patchWatch(target, nodes, Math.min(2_000, Math.ceil(pods / 10)));
  return { writesMs, patchWatchMs };
}

/** GET `path`; returns the bytes read and, when `items`, the items of the list (a page). */
async function get(target: Target, path: string): Promise<{ bytes: number; body?: Record<string, unknown> }> {
  const res = await fetch(`${target.url}${path}`, target.init);
  if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const text = await res.text();
  return { bytes: text.length, body: text.length < 64 << 20 ? JSON.parse(text) : undefined };
}

/**
 * Opens a WatchList watch (`sendInitialEvents=true`) on `query` and reads until the initial-events-end bookmark;
 * returns the ADDED events counted (a line each; not parsing ~400 MB).
 */
async function watchList(target: Target, query: string): Promise<number> {
  const params = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
  const res = await fetch(`${target.url}/api/v1/pods?${params}${query}`, target.init);
  if (res.status !== 200) throw new Error(`watch ${query} → ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const end = `"k8s.io/initial-events-end":"true"`;
  let events = 0;
  await readWatchLines(res, `WatchList ${target.url} ${query} before the initial-events-end bookmark`, (line) => {
    if (!line.startsWith(`{"type":"ADDED"`)) return line.includes(end);
    events++;
    return false;
  });
  return events;
}

/** Times the two WatchList watches; checks the counts. */
async function watches(target: Target, nodes: number, pods: number): Promise<Record<string, number>> {
  const t0 = performance.now();
  const all = await watchList(target, "");
  const allMs = performance.now() - t0;
  if (all !== pods) throw new Error(`the WatchList of every pod had ${all} pods, expected ${pods}`);
  const nodeMs: number[] = [];
  for (let k = 0; k < NODE_LISTS; k++) {
    const n = (k * 7919 + 13) % nodes;
    const t = performance.now();
    const got = await watchList(target, `&fieldSelector=${encodeURIComponent(`spec.nodeName=${nodeName(n)}`)}`);
    nodeMs.push(performance.now() - t);
    const expect = podsOnNode(n, nodes, pods);
    if (got !== expect) throw new Error(`WatchList of ${nodeName(n)}: ${got} pods, expected ${expect}`);
  }
  return { watchAllMs: allMs, watchNodeMs: median(nodeMs) };
}

/** Times the three lists and the two watches; checks the counts. */
async function lists(target: Target, nodes: number, pods: number): Promise<Record<string, number>> {
  const t0 = performance.now();
  const res = await fetch(`${target.url}/api/v1/pods`, target.init);
  // Count the items without parsing ~400 MB: each names its pod once (kube-apiserver's items carry no kind).
  let items = 0;
  let bytes = 0;
  let carry = "";
  const marker = `"name":"pod-`;
  for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
    const text = carry + chunk;
    for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) items++;
    carry = text.slice(-(marker.length - 1));
    bytes += chunk.length;
  }
  const allMs = performance.now() - t0;
  if (items !== pods) throw new Error(`the full list had ${items} pods, expected ${pods}`);
  const t1 = performance.now();
  let paged = 0;
  let cont = "";
  do {
    const page = (await get(target, `/api/v1/pods?limit=${PAGE}${cont ? `&continue=${cont}` : ""}`)).body!;
    paged += (page.items as unknown[]).length;
    cont = encodeURIComponent(((page.metadata as { continue?: string }).continue) ?? "");
  } while (cont);
  const pagedMs = performance.now() - t1;
  if (paged !== pods) throw new Error(`the paged list had ${paged} pods, expected ${pods}`);
  const nodeMs: number[] = [];
  for (let k = 0; k < NODE_LISTS; k++) {
    const node = nodeName((k * 7919) % nodes);
    const t = performance.now();
    const list = (await get(target, `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`))
      .body!;
    nodeMs.push(performance.now() - t);
    const expect = podsOnNode((k * 7919) % nodes, nodes, pods);
    if ((list.items as unknown[]).length !== expect) throw new Error(`${node}: ${(list.items as unknown[]).length}`);
  }
  const watched = await watches(target, nodes, pods);
  return {
    allMs,
    allMiB: bytes / 2 ** 20,
    pagedMs,
    nodeMs: median(nodeMs),
    ...watched,
    ...await writeRows(target, nodes, pods),
  };
}

/** Writes the same population to a real control plane (over HTTP, 16 in flight); returns its target. */
async function realTarget(nodes: number, pods: number): Promise<{ target: Target; stop: () => Promise<void> }> {
  const { startRealControlPlane } = await import("../testing/envtest/real_control_plane.ts");
  const plane = await startRealControlPlane();
  const yaml = await Deno.readTextFile(plane.kubeconfigPath);
  const token = yaml.match(/token: (\S+)/)![1].replace(/^["']|["']$/g, "");
  const ca = atob(yaml.match(/certificate-authority-data: (\S+)/)![1]);
  const client = Deno.createHttpClient({ caCerts: [ca] });
  // Uncompressed, as the fake answers (and as kubeop asks): Deno's fetch also ends a watch that kube-apiserver gzips
  // one member per flush after its first member (runtime/http/api_http_client.ts).
  const headers = { authorization: `Bearer ${token}`, "accept-encoding": "identity" };
  const target: Target = { url: plane.url, init: { client, headers } };
  for (let n = 0; n < NAMESPACES; n++) {
    await send(target, "POST", "/api/v1/namespaces", { metadata: { name: `ns-${n}` } });
  }
  await inFlight(0, nodes, (i) => send(target, "POST", "/api/v1/nodes", nodeObject(i)));
  await writePods(target, nodes, 0, pods);
  return {
    target,
    stop: async () => {
      client.close();
      await plane.stop();
    },
  };
}

if (import.meta.main && Deno.args[0] === "--child") {
  await child(Number(Deno.args[1]), Number(Deno.args[2]), Number(Deno.args[3] ?? 0));
} else if (import.meta.main) {
  const full = fullMode();
  const arg = (flag: string, fallback: number) => {
    const at = Deno.args.indexOf(flag);
    return at >= 0 ? Number(Deno.args[at + 1]) : fallback;
  };
  const nodes = arg("--nodes", full ? 1000 : 200);
  const pods = arg("--pods", full ? 100_000 : 20_000);
  const settleS = arg("--settle", 0);
  const proc = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      "--child",
      String(nodes),
      String(pods),
      String(settleS),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the server process exited");
      line += value;
    }
    const report = JSON.parse(line.slice(0, line.indexOf("\n"))) as ChildReport;
    const fake = await lists({ url: report.url, init: { headers: { "accept-encoding": "identity" } } }, nodes, pods);
    let real: Record<string, number> | undefined;
    if (Deno.args.includes("--real")) {
      const plane = await realTarget(nodes, pods);
      try {
        real = await lists(plane.target, nodes, pods);
      } finally {
        await plane.stop();
      }
    }
    const params = {
      nodes,
      pods,
      namespaces: NAMESPACES,
      mode: full ? "full" : "quick",
      ...(settleS > 0 ? { idleSecondsBeforeMeasure: settleS } : {}),
    };
    const perPod = round((report.rssAfter - report.rssBefore) / pods);
    await recordResult({
      name: "fake-cluster-memory-per-pod",
      params,
      unit: "B/object",
      kubeop: perPod,
      peer: GOAL_BYTES_PER_POD,
      peerName: "goal",
      ratio: lowerIsBetter(perPod, GOAL_BYTES_PER_POD),
      extra: {
        heapPerPod: round((report.heapAfter - report.heapBefore) / pods),
        rssMiBAfter: round(report.rssAfter / 2 ** 20),
        heapMiBAfter: round(report.heapAfter / 2 ** 20),
        fillMs: round(report.fillMs),
      },
    });
    for (
      const [name, key, what] of [
        ["fake-cluster-list-all", "allMs", "every pod, one unpaginated list"],
        ["fake-cluster-list-paged", "pagedMs", `every pod, pages of ${PAGE}`],
        ["fake-cluster-list-node", "nodeMs", `one node's pods (fieldSelector spec.nodeName), median of ${NODE_LISTS}`],
        ["fake-cluster-watch-list-all", "watchAllMs", "every pod, WatchList to the initial-events-end bookmark"],
        [
          "fake-cluster-watch-list-node",
          "watchNodeMs",
          `one node's pods, WatchList to the initial-events-end bookmark, median of ${NODE_LISTS}`,
        ],
        [
          "fake-cluster-writes",
          "writesMs",
          `pods/10 (≤ 10 000) more pods created and set Running, ${IN_FLIGHT} in flight`,
        ],
        ["fake-cluster-patch-watch", "patchWatchMs", "pods/10 (≤ 2 000) merge patches, until a watch has seen each"],
      ] as const
    ) {
      const ms = round(fake[key]);
      await recordResult({
        name,
        params: { ...params, list: what },
        unit: "ms",
        kubeop: ms,
        ...(real
          ? {
            peer: round(real[key]),
            peerName: "etcd + kube-apiserver v1.37.2",
            ratio: lowerIsBetter(ms, real[key]),
          }
          : { peer: null, peerName: null, ratio: null }),
        extra: { listMiB: round(fake.allMiB), note: "wall time over HTTP on a shared box: read the load beside it" },
      });
    }
  } finally {
    await proc.stdin.close();
    await proc.status;
  }
}
