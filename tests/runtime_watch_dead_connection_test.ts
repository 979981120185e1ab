/**
 * A dead connection under a watch (issue 25 item 2; the unary side: runtime/http/http1_pool_test.ts), on testing/'s fake API server (its
 * bookmarks come once a minute, as kube-apiserver's do) behind tests/faults/tcp_proxy.ts, which holds the connections
 * open and forwards nothing more on them: no FIN, no RST, no byte — what a black-holing NAT or a stuck proxy shows.
 * The watch's detection is asserted on virtual time (the client's VirtualClock), not wall time: within 30 s of the
 * connection going dead the loop logs "watch for … restarting: idle-deadline" and resumes from its last
 * resourceVersion, receiving what changed meanwhile without a relist. The keep-alive connections parked in the client's
 * pool went through the same dead path: once the watch finds its connection dead they are closed, so the next request
 * dials afresh instead of waiting out the unary dead-connection deadline (25 s) on one of them.
 */
import assert from "node:assert/strict";
import { KubeClient } from "../runtime/client/client.ts";
import { VirtualClock } from "../runtime/clock.ts";
import { WatchRunner } from "../runtime/watch/watch_runner.ts";
import { CoreTypes, type KubeObject } from "../runtime/types.ts";
import { eventually, startFakeApiServer } from "../testing/mod.ts";
import { FaultProxy } from "./faults/tcp_proxy.ts";

/** Advances virtual time in 250 ms steps (real I/O runs between them) until `cond`; fails past `maxVirtualMs`. */
async function until(clock: VirtualClock, what: string, maxVirtualMs: number, cond: () => boolean): Promise<void> {
  const limit = clock.now() + maxVirtualMs;
  await eventually(`${what} (within ${maxVirtualMs} ms virtual)`, () => {
    if (cond()) return true;
    if (clock.now() >= limit) throw new Error(`${what}: not within ${maxVirtualMs} ms of virtual time`);
    return false;
  }, { timeoutMs: 20_000, intervalMs: 3, step: () => clock.advance(250) });
}

Deno.test("dead connection: a watch held open by a proxy that forwards nothing is resumed from its last resourceVersion within 30 s", async () => {
  const server = await startFakeApiServer({ anonymousAdmin: true }); // bookmarks once a minute, as kube's
  const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: Number(new URL(server.url).port) } });
  const admin = new KubeClient({ config: { server: server.url } });
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config: { server: `http://127.0.0.1:${proxy.port}` }, clock });
  const applied: string[] = [];
  let replaces = 0;
  const restarts: { reason: string; detail?: unknown; at: number }[] = [];
  const log = (message: string, props?: Record<string, unknown>) => {
    if (message.startsWith("watch for {resource} restarting")) {
      restarts.push({ reason: String(props?.reason), detail: props?.detail, at: clock.now() });
    }
  };
  const runner = new WatchRunner({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "default",
    clock,
    random: () => 0.5,
    logger: { debug: log, info: log, warn: log },
    sink: {
      replace: () => void replaces++,
      apply: (_type, obj: KubeObject) => void applied.push(obj.metadata.name!),
    },
  });
  const ctrl = new AbortController();
  const done = runner.run(ctrl.signal);
  const cm = (name: string) => ({ metadata: { name, namespace: "default" } });
  try {
    await eventually(
      "the watch streams",
      () => runner.state.kind === "Watching" && runner.health().watchAgeMs !== undefined,
    );
    await admin.create(CoreTypes.ConfigMap, cm("before"));
    await eventually("the event before the fault", () => applied.includes("before"));
    const rvBefore = runner.state.mem.rv;

    const deadAt = clock.now();
    assert.ok(proxy.holdOpen() >= 1, "the watch's connection is held");
    await admin.create(CoreTypes.ConfigMap, cm("during")); // never reaches the dead connection

    await until(clock, "the dead watch noticed", 30_000, () => restarts.some((r) => r.reason === "idle-deadline"));
    const noticed = restarts.find((r) => r.reason === "idle-deadline")!;
    assert.ok(noticed.at - deadAt <= 30_000, `noticed after ${noticed.at - deadAt} ms virtual`);
    assert.match(String(noticed.detail), /connection presumed dead/);
    assert.ok(!applied.includes("during"), "nothing came through the dead connection");

    // The backoff (800 ms) later the loop re-watches on a new connection from the last resourceVersion: what changed
    // while it was blind arrives as an event, without a relist.
    await until(clock, "the change made while blind", 5_000, () => applied.includes("during"));
    assert.equal(replaces, 1, "resumed, not relisted");
    assert.notEqual(rvBefore, undefined);
  } finally {
    ctrl.abort();
    await done;
    client.close();
    admin.close();
    await proxy.close();
    await server.stop();
  }
});

Deno.test("dead connection: a watch that finds its connection dead closes the client's parked keep-alive connections", async () => {
  // Before the fix a parked connection held by the dead path stayed in the pool: the next request took it and hung for
  // the unary silence deadline (25 s) — in the fault matrix's dead-connection row on kube-apiserver, a request sent
  // 10 s after the watches had restarted failed 25 s later and set the recovery at 35.7 s (the log of that run).
  const server = await startFakeApiServer({ anonymousAdmin: true });
  const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: Number(new URL(server.url).port) } });
  const admin = new KubeClient({ config: { server: server.url } });
  const clock = new VirtualClock(0);
  const client = new KubeClient({ config: { server: `http://127.0.0.1:${proxy.port}` }, clock });
  const reasons: string[] = [];
  const applied: string[] = [];
  const log = (message: string, props?: Record<string, unknown>) => {
    if (message.startsWith("watch for {resource} restarting")) reasons.push(String(props?.reason));
  };
  const runner = new WatchRunner({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "default",
    clock,
    random: () => 0.5,
    logger: { debug: log, info: log, warn: log },
    sink: { replace: () => {}, apply: (_type, obj: KubeObject) => void applied.push(obj.metadata.name!) },
  });
  const ctrl = new AbortController();
  const done = runner.run(ctrl.signal);
  try {
    await eventually("the watch streams", () => runner.state.kind === "Watching");
    await client.get(CoreTypes.Namespace, "default"); // parks one keep-alive connection in the pool
    await eventually("the watch and the parked connection open", () => proxy.connections === 2);
    assert.equal(proxy.holdOpen(), 2, "both held: the watch's connection and the parked one");
    await admin.create(CoreTypes.ConfigMap, { metadata: { name: "during", namespace: "default" } });

    await until(clock, "the dead watch noticed", 30_000, () => reasons.includes("idle-deadline"));
    await until(clock, "the re-watch on a new connection", 5_000, () => applied.includes("during"));
    // Only the new watch's connection is left: the dead watch's was closed by the loop, the parked one by the pool.
    await eventually("the parked dead connection closed", () => proxy.connections === 1, { timeoutMs: 5_000 });
    await client.get(CoreTypes.Namespace, "default"); // on a fresh connection
  } finally {
    ctrl.abort();
    await done;
    client.close();
    admin.close();
    await proxy.close();
    await server.stop();
  }
});
