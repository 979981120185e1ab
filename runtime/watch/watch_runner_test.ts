import assert from "node:assert/strict";
import type { KubeClient } from "../client/client.ts";
import { flushMicrotasks, VirtualClock } from "../clock.ts";
import { ApiError, failureStatus } from "../client/errors.ts";
import { CoreTypes, type KubeList, type KubeObject, type WatchEvent } from "../types.ts";
import { WatchRunner, type WatchSink } from "./watch_runner.ts";

/** One watch the runner opened; the test plays the server's side of it. */
interface ScriptedStream {
  resourceVersion?: string;
  signal: AbortSignal;
  open(): void;
  send(event: WatchEvent<unknown>): void;
  end(): void;
  fail(error: unknown): void;
}

/** A client whose lists answer from a queue and whose watches the test drives by hand. */
function scriptedClient(clock: VirtualClock) {
  const lists: Array<KubeList | Error> = [];
  const streams: ScriptedStream[] = [];
  const pool = { idleClosed: 0 };
  const client = {
    clock,
    credentials: { invalidate() {} },
    connectionsPresumedDead: () => void pool.idleClosed++,
    listAll(): Promise<KubeList> {
      const next = lists.shift() ?? new Error("no list scripted");
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    watchStream(
      _rt: unknown,
      opts: { resourceVersion?: string; signal?: AbortSignal; onOpen?: () => void },
      onEvent: (event: WatchEvent<unknown>) => void,
    ): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const signal = opts.signal!;
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        streams.push({
          resourceVersion: opts.resourceVersion,
          signal,
          open: () => opts.onOpen?.(),
          send: (event) => onEvent(event),
          end: resolve,
          fail: reject,
        });
      });
    },
  };
  return { client: client as unknown as KubeClient, lists, streams, pool };
}

function cm(name: string, rv: string): KubeObject {
  return { metadata: { name, namespace: "ns", resourceVersion: rv, uid: `uid-${name}` } };
}

function list(rv: string, ...items: KubeObject[]): KubeList {
  return { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: rv }, items };
}

function recordingSink(): WatchSink & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    replace: (items, rv) => void log.push(`replace ${items.map((o) => o.metadata.name).join(",")} @${rv}`),
    apply: (type, obj) => void log.push(`${type} ${obj.metadata.name}@${obj.metadata.resourceVersion}`),
  };
}

const quiet = { debug() {}, info() {}, warn() {} };

function rig() {
  const clock = new VirtualClock(0);
  const { client, lists, streams, pool } = scriptedClient(clock);
  const sink = recordingSink();
  const restarts: string[] = [];
  const runner = new WatchRunner({
    client,
    resource: CoreTypes.ConfigMap,
    namespace: "ns",
    sink,
    clock,
    random: () => 0,
    logger: quiet,
    watchList: false,
    metrics: { watchRestarts: { inc: (l) => void restarts.push(l.reason) } },
  });
  const ctrl = new AbortController();
  return { clock, lists, streams, pool, sink, restarts, runner, ctrl, running: () => runner.run(ctrl.signal) };
}

Deno.test("watch runner: lists, watches from the list's RV and delivers events to the sink in order", async () => {
  const r = rig();
  r.lists.push(list("5", cm("a", "4")));
  const done = r.running();
  await flushMicrotasks();
  assert.equal(r.streams.length, 1);
  assert.equal(r.streams[0].resourceVersion, "5");
  r.streams[0].open();
  r.streams[0].send({ type: "ADDED", object: cm("b", "6") });
  r.streams[0].send({ type: "DELETED", object: cm("a", "7") });
  assert.deepEqual(r.sink.log, ["replace a @5", "ADDED b@6", "DELETED a@7"]);
  assert.equal(r.runner.health().resourceVersion, "7");
  r.ctrl.abort();
  await done;
});

Deno.test("watch runner: a dropped stream is re-watched from the last RV only when the backoff timer fires", async () => {
  const r = rig();
  r.lists.push(list("5"));
  const done = r.running();
  await flushMicrotasks();
  r.streams[0].open();
  r.streams[0].send({ type: "ADDED", object: cm("b", "6") });
  r.streams[0].end();
  await flushMicrotasks();
  assert.equal(r.runner.state.kind, "Backoff");
  await r.clock.advance(799);
  assert.equal(r.streams.length, 1, "no re-watch before the 800 ms backoff");
  await r.clock.advance(1);
  assert.equal(r.streams.length, 2);
  assert.equal(r.streams[1].resourceVersion, "6");
  assert.deepEqual(r.restarts, ["stream-ended"]);
  r.ctrl.abort();
  await done;
});

Deno.test("watch runner: after an in-stream 410 the old stream is closed and its late frames are ignored", async () => {
  const r = rig();
  r.lists.push(list("5"), list("9", cm("c", "9")));
  const done = r.running();
  await flushMicrotasks();
  const old = r.streams[0];
  old.open();
  old.send({ type: "ERROR", object: failureStatus(410, "Expired", "too old resource version") });
  assert.ok(old.signal.aborted, "the loop closed the stream");
  old.send({ type: "ADDED", object: cm("late", "8") }); // a frame already read before the close
  await flushMicrotasks();
  assert.deepEqual(r.sink.log, ["replace  @5", "replace c @9"]);
  assert.equal(r.streams.length, 2);
  assert.equal(r.streams[1].resourceVersion, "9");
  r.ctrl.abort();
  await done;
});

Deno.test("watch runner: the overdue deadline closes a stream open past its timeout; stop leaves no timer", async () => {
  const r = rig();
  r.lists.push(list("5"));
  const done = r.running();
  await flushMicrotasks();
  r.streams[0].open();
  await r.clock.advance(20_000 - 1); // timeoutSeconds 15 (random 0) + 5 s, from the request
  assert.ok(!r.streams[0].signal.aborted);
  await r.clock.advance(1);
  assert.ok(r.streams[0].signal.aborted);
  assert.deepEqual(r.restarts, ["idle-deadline"]);
  assert.equal(r.pool.idleClosed, 1, "the connection is presumed dead: the client's parked ones are closed too");
  await r.clock.advance(800);
  assert.equal(r.streams.length, 2);
  r.ctrl.abort();
  await done;
  assert.ok(r.streams[1].signal.aborted);
  assert.equal(r.clock.pendingTimers, 0);
});

Deno.test("watch runner: list failures back off on the timer and are reported in health", async () => {
  const r = rig();
  const unavailable = new ApiError(failureStatus(503, "ServiceUnavailable", "down"), { verb: "list" });
  r.lists.push(unavailable, unavailable, list("5"));
  const done = r.running();
  await flushMicrotasks();
  assert.equal(r.runner.health().consecutiveFailures, 1);
  await r.clock.advance(800);
  assert.equal(r.runner.health().consecutiveFailures, 2);
  assert.match(r.runner.health().lastError ?? "", /down/);
  await r.clock.advance(1_600);
  assert.equal(r.runner.health().consecutiveFailures, 0);
  assert.equal(r.runner.health().synced, true);
  assert.deepEqual(r.restarts, ["list-error", "list-error"]);
  r.ctrl.abort();
  await done;
});
