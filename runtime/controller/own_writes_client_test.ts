import assert from "node:assert/strict";
import { VirtualClock } from "../clock.ts";
import {
  CONTROLLER_CLIENT_READS,
  CONTROLLER_CLIENT_WRITES,
  type ControllerClient,
  type ControllerClientWrite,
} from "./controller_client.ts";
import { OwnWritesTracker } from "./own_writes.ts";
import { OwnWritesClient } from "./own_writes_client.ts";
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
    const client = new OwnWritesClient({ client: answeringClient(), key: "ns/a", tracker });
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
  const client = new OwnWritesClient({ client: answeringClient(), key: "ns/a", tracker });
  await client.get(CM, "a", { namespace: "ns" });
  await client.list(CM, { namespace: "ns" });
  await client.request("GET", "/api/v1/namespaces/ns/pods/p/log");
  assert.equal(tracker.trackedKeys, 0);
  const untyped = client.request.bind(client) as (method: string, path: string) => Promise<unknown>;
  await assert.rejects(() => untyped("POST", "/api/v1/namespaces/ns/configmaps"), /only GET is allowed/);
});

Deno.test("the tracking client implements exactly the classified ControllerClient methods", () => {
  const methods = Object.getOwnPropertyNames(OwnWritesClient.prototype).filter((m) => m !== "constructor").sort();
  assert.deepEqual(methods, [...CONTROLLER_CLIENT_READS, ...CONTROLLER_CLIENT_WRITES].sort());
});

Deno.test("every call is bound to the leadership signal", async () => {
  const signals: (AbortSignal | undefined)[] = [];
  const leadership = new AbortController();
  const { tracker } = tracked();
  const client = new OwnWritesClient({
    client: answeringClient(signals),
    key: "ns/a",
    tracker,
    leadership: leadership.signal,
  });
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
