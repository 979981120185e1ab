import assert from "node:assert/strict";
import { VirtualClock } from "../clock.ts";
import {
  CONTROLLER_CLIENT_READS,
  CONTROLLER_CLIENT_WRITES,
  type ControllerClient,
  type ControllerClientWrite,
} from "./controller_client.ts";
import { OwnWritesTracker } from "./own_writes.ts";
import { guardUid, reconcileClient, WriteChainClient } from "./write_path.ts";
import type { WriteFence } from "../leader/write_fence.ts";
import { CoreTypes, type KubeObject } from "../types.ts";

const CM = CoreTypes.ConfigMap;
const cm = (rv: string): KubeObject => ({
  metadata: { name: "a", namespace: "ns", uid: "uid-a", resourceVersion: rv },
});

/** A client that answers every call at once (writes with resourceVersion 7) and remembers the signals it got. */
function answeringClient(signals: (AbortSignal | undefined)[] = []): ControllerClient {
  const written = <T>(opts?: { signal?: AbortSignal }) => {
    signals.push(opts?.signal);
    return Promise.resolve(cm("7") as T);
  };
  return {
    get: (_rt, _name, opts) => written(opts),
    list: (_rt, opts) => {
      signals.push(opts?.signal);
      return Promise.resolve({ apiVersion: "v1", kind: "ConfigMapList", metadata: {}, items: [] });
    },
    request: (_method, _path, opts) => {
      signals.push(opts?.signal);
      return Promise.resolve({ status: 200, headers: new Headers(), body: new Uint8Array() });
    },
    create: (_rt, _obj, opts) => written(opts),
    update: (_rt, _obj, opts) => written(opts),
    updateStatus: (_rt, _obj, opts) => written(opts),
    patch: (_rt, _name, _body, opts) => written(opts),
    delete: (_rt, _name, opts) => written(opts).then(() => {}),
  };
}

/** One call of each write method; a write added to CONTROLLER_CLIENT_WRITES without a case here does not compile. */
const WRITE_CALLS: Record<ControllerClientWrite, (c: ControllerClient) => Promise<unknown>> = {
  create: (c) => c.create(CM, cm("")),
  update: (c) => c.update(CM, cm("5")),
  updateStatus: (c) => c.updateStatus(CM, cm("5")),
  patch: (c) => c.patch(CM, "a", { data: { k: "v" } }, { namespace: "ns", type: "merge" }),
  delete: (c) => c.delete(CM, "a", { namespace: "ns" }),
};

function tracked(): { tracker: OwnWritesTracker; store: Map<string, KubeObject> } {
  const store = new Map([["ns/a", cm("5")]]);
  return { store, tracker: new OwnWritesTracker({ clock: new VirtualClock(0), storeFor: () => store }) };
}

Deno.test("every write method of the tracking client records an expectation for the reconcile key", async () => {
  assert.deepEqual(Object.keys(WRITE_CALLS).sort(), [...CONTROLLER_CLIENT_WRITES].sort());
  for (const method of CONTROLLER_CLIENT_WRITES) {
    const { tracker, store } = tracked();
    const client = reconcileClient({ client: answeringClient(), key: "ns/a", tracker });
    await WRITE_CALLS[method](client);
    assert.equal(tracker.trackedKeys, 1, `${method} recorded nothing`);
    // The next reconcile of ns/a waits for the cache: the write (RV 7) or the delete is not visible yet.
    const waited = tracker.wait("ns/a");
    if (method === "delete") store.delete("ns/a");
    else store.set("ns/a", cm("7"));
    tracker.notify();
    assert.equal(await waited, "seen", method);
  }
});

Deno.test("reads through the tracking client record nothing; raw requests other than GET are refused", async () => {
  const { tracker } = tracked();
  const client = reconcileClient({ client: answeringClient(), key: "ns/a", tracker });
  await client.get(CM, "a", { namespace: "ns" });
  await client.list(CM, { namespace: "ns" });
  await client.request("GET", "/api/v1/namespaces/ns/pods/p/log");
  assert.equal(tracker.trackedKeys, 0);
  const untyped = client.request.bind(client) as (method: string, path: string) => Promise<unknown>;
  await assert.rejects(() => untyped("POST", "/api/v1/namespaces/ns/configmaps"), /only GET is allowed/);
});

Deno.test("the tracking client implements exactly the classified ControllerClient methods", () => {
  const methods = Object.getOwnPropertyNames(WriteChainClient.prototype).filter((m) => m !== "constructor").sort();
  assert.deepEqual(methods, [...CONTROLLER_CLIENT_READS, ...CONTROLLER_CLIENT_WRITES].sort());
});

Deno.test("every call is bound to the fence's (leadership) signal", async () => {
  const signals: (AbortSignal | undefined)[] = [];
  const leadership = new AbortController();
  const { tracker } = tracked();
  const fence: WriteFence = { check: () => {}, signal: leadership.signal };
  const client = reconcileClient({ client: answeringClient(signals), key: "ns/a", tracker, fence });
  const own = new AbortController();
  await client.get(CM, "a", { namespace: "ns", signal: own.signal });
  await client.list(CM);
  await client.request("GET", "/healthz");
  for (const call of Object.values(WRITE_CALLS)) await call(client);
  assert.equal(signals.length, 3 + CONTROLLER_CLIENT_WRITES.length);
  assert.ok(signals.every((s) => s !== undefined && !s.aborted));
  leadership.abort(new Error("lost"));
  assert.ok(signals.every((s) => s?.aborted), "losing leadership aborts every call's signal");
  assert.equal(own.signal.aborted, false, "the caller's own signal is not aborted");
});

/** A fence whose check refuses while `open` is false, counting checks. */
function switchFence(): WriteFence & { open: boolean; checks: string[] } {
  const term = new AbortController();
  return {
    open: true,
    checks: [],
    signal: term.signal,
    check(call) {
      this.checks.push(`${call.verb} ${call.namespace}/${call.name}`);
      if (!this.open) throw new Error(`fence closed: ${call.verb}`);
    },
  };
}

Deno.test("the reconcile chain runs own-writes tracking, then the fence, then the uid guard", async () => {
  const { tracker } = tracked();
  const sent: { method: string; obj?: unknown; opts?: unknown }[] = [];
  const inner = answeringClient();
  const recording: ControllerClient = {
    ...inner,
    update: (rt, obj, opts) => (sent.push({ method: "update", obj, opts }), inner.update(rt, obj, opts)),
    delete: (rt, name, opts) => (sent.push({ method: "delete", opts }), inner.delete(rt, name, opts)),
  };
  const fence = switchFence();
  const client = reconcileClient({
    client: recording,
    key: "ns/a",
    tracker,
    fence,
    uidGuard: { forType: CM, namespace: "ns", name: "a", uid: "uid-a" },
  });
  await client.update(CM, { metadata: { name: "a", namespace: "ns", resourceVersion: "5" } });
  const put = sent[0] as { obj: KubeObject; opts: { fence?: WriteFence; signal?: AbortSignal } };
  assert.equal(put.obj.metadata.uid, "uid-a", "the uid guard made the write conditional on the admitted uid");
  assert.equal(put.opts.fence, fence, "the fence is handed down for the client's per-attempt check");
  assert.equal(tracker.trackedKeys, 1, "the answer was recorded");
  assert.deepEqual(fence.checks, ["update ns/a"]);

  // A refused write reaches neither the uid guard nor the client, and records nothing.
  fence.open = false;
  const { tracker: fresh } = tracked();
  const refusing = reconcileClient({
    client: recording,
    key: "ns/a",
    tracker: fresh,
    fence,
    uidGuard: { forType: CM, namespace: "ns", name: "a", uid: "uid-a" },
  });
  // Another uid would be a Conflict from the guard; the fence refuses first.
  const other = { metadata: { name: "a", namespace: "ns", uid: "uid-b", resourceVersion: "5" } };
  await assert.rejects(() => refusing.update(CM, other), /fence closed: update/);
  await assert.rejects(() => refusing.delete(CM, "a", { namespace: "ns" }), /fence closed: delete/);
  assert.equal(sent.length, 1);
  assert.equal(fresh.trackedKeys, 0);

  // A delete: the guard adds the precondition; tracking read the cached uid before the call.
  fence.open = true;
  await client.delete(CM, "a", { namespace: "ns" });
  assert.deepEqual((sent[1].opts as { preconditions?: unknown }).preconditions, { uid: "uid-a" });
});

Deno.test("the uid guard: JSON patches get a test, apply bodies and other objects pass unchanged", async () => {
  const bodies: unknown[] = [];
  const inner = answeringClient();
  const client = new WriteChainClient({
    ...inner,
    patch: (rt, name, body, opts) => (bodies.push(body), inner.patch(rt, name, body, opts)),
  }, [guardUid({ forType: CM, namespace: "ns", name: "a", uid: "u1" })]);
  await client.patch(CM, "a", [{ op: "replace", path: "/data/k", value: "v" }], { namespace: "ns", type: "json" });
  await client.patch(CM, "a", { data: { k: "v" } }, { namespace: "ns", type: "apply" });
  await client.patch(CM, "b", { data: { k: "v" } }, { namespace: "ns", type: "merge" });
  await client.patch(CM, "a", { data: { k: "v" } }, { namespace: "other", type: "merge" });
  assert.deepEqual(bodies, [
    [{ op: "test", path: "/metadata/uid", value: "u1" }, { op: "replace", path: "/data/k", value: "v" }],
    { data: { k: "v" } },
    { data: { k: "v" } },
    { data: { k: "v" } },
  ]);
  await assert.rejects(
    () => client.patch(CM, "a", { metadata: { uid: "u2" } }, { namespace: "ns", type: "merge" }),
    /Precondition failed: UID in precondition: u1, UID in object meta: u2/,
  );
});

Deno.test("an interceptor that throws refuses the write as a rejection, not a synchronous throw", async () => {
  const client = new WriteChainClient(answeringClient(), [{
    write: () => {
      throw new Error("refused");
    },
  }]);
  const pending = client.create(CM, cm(""));
  assert.ok(pending instanceof Promise);
  await assert.rejects(pending, /refused/);
});
