import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";
import { VirtualClock } from "../runtime/clock.ts";

const CM = "/api/v1/namespaces/default/configmaps";

Deno.test("create assigns uid, creationTimestamp and a growing resourceVersion; get returns it", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" }, data: { k: "v" } });
    assert.equal(a.status, 201);
    assert.equal(a.body.kind, "ConfigMap");
    assert.equal(a.body.apiVersion, "v1");
    assert.match(a.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(a.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(a.body.metadata.generation, undefined, "ConfigMaps have no generation");
    const b = await call(s.url, "POST", CM, { metadata: { name: "b" } });
    assert.ok(Number(b.body.metadata.resourceVersion) > Number(a.body.metadata.resourceVersion));
    const got = await call(s.url, "GET", `${CM}/a`);
    assert.deepEqual(got.body, a.body);
  } finally {
    await s.stop();
  }
});

Deno.test("generateName produces a unique name with the prefix", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { generateName: "job-" } });
    const b = await call(s.url, "POST", CM, { metadata: { generateName: "job-" } });
    assert.equal(a.status, 201);
    assert.match(a.body.metadata.name, /^job-[a-z0-9]{5}$/);
    assert.notEqual(a.body.metadata.name, b.body.metadata.name);
  } finally {
    await s.stop();
  }
});

Deno.test("409 AlreadyExists on duplicate create and Conflict on a stale resourceVersion", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    const dup = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.kind, "Status");
    assert.equal(dup.body.reason, "AlreadyExists");
    assert.equal(dup.body.message, 'configmaps "a" already exists');
    const upd = await call(s.url, "PUT", `${CM}/a`, { ...a.body, data: { x: "1" } });
    assert.equal(upd.status, 200);
    const stale = await call(s.url, "PUT", `${CM}/a`, { ...a.body, data: { x: "2" } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, "Conflict");
    assert.match(stale.body.message, /the object has been modified/);
  } finally {
    await s.stop();
  }
});

Deno.test("a no-op update keeps the resourceVersion", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" }, data: { k: "v" } });
    const same = await call(s.url, "PUT", `${CM}/a`, a.body);
    assert.equal(same.body.metadata.resourceVersion, a.body.metadata.resourceVersion);
  } finally {
    await s.stop();
  }
});

Deno.test("404 NotFound and 422 Invalid are Kubernetes Status objects", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const missing = await call(s.url, "GET", `${CM}/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(
      { kind: missing.body.kind, reason: missing.body.reason, message: missing.body.message, code: missing.body.code },
      { kind: "Status", reason: "NotFound", message: 'configmaps "nope" not found', code: 404 },
    );
    const bad = await call(s.url, "POST", CM, { metadata: { name: "Bad_Name" } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, "Invalid");
    assert.equal(bad.body.details.causes[0].field, "metadata.name");
    const noName = await call(s.url, "POST", CM, { metadata: {} });
    assert.equal(noName.status, 422);
    const noNs = await call(s.url, "POST", "/api/v1/namespaces/ghost/configmaps", { metadata: { name: "a" } });
    assert.equal(noNs.status, 404);
    assert.equal(noNs.body.message, 'namespaces "ghost" not found');
  } finally {
    await s.stop();
  }
});

Deno.test("status subresource: main update ignores status, /status ignores spec", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const PODS = "/api/v1/namespaces/default/pods";
  try {
    const pod = await call(s.url, "POST", PODS, {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "x" }] },
    });
    assert.equal(pod.body.status.phase, "Pending");
    const main = await call(s.url, "PUT", `${PODS}/p`, { ...pod.body, status: { phase: "Running" } });
    assert.equal(main.body.status.phase, "Pending");
    const st = await call(s.url, "PUT", `${PODS}/p/status`, {
      ...main.body,
      spec: { containers: [{ name: "other", image: "y" }] },
      status: { phase: "Running" },
    });
    assert.equal(st.status, 200);
    assert.equal(st.body.status.phase, "Running");
    assert.equal(st.body.spec.containers[0].name, "c");
  } finally {
    await s.stop();
  }
});

Deno.test("list: label selectors, field selectors, limit and continue", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    for (const [name, tier] of [["a", "web"], ["b", "db"], ["c", "web"], ["d", "cache"]]) {
      await call(s.url, "POST", CM, { metadata: { name, labels: { tier, ...(name === "d" ? { legacy: "y" } : {}) } } });
    }
    const names = (r: { body: { items: { metadata: { name: string } }[] } }) =>
      r.body.items.map((i) => i.metadata.name);
    assert.deepEqual(names(await call(s.url, "GET", `${CM}?labelSelector=tier%3Dweb`)), ["a", "c"]);
    assert.deepEqual(names(await call(s.url, "GET", `${CM}?labelSelector=tier!%3Dweb`)), ["b", "d"]);
    assert.deepEqual(
      names(await call(s.url, "GET", `${CM}?labelSelector=${encodeURIComponent("tier in (db,cache)")}`)),
      ["b", "d"],
    );
    assert.deepEqual(names(await call(s.url, "GET", `${CM}?labelSelector=${encodeURIComponent("tier notin (web)")}`)), [
      "b",
      "d",
    ]);
    assert.deepEqual(names(await call(s.url, "GET", `${CM}?labelSelector=legacy`)), ["d"]);
    assert.deepEqual(names(await call(s.url, "GET", `${CM}?labelSelector=!legacy`)), ["a", "b", "c"]);
    assert.deepEqual(names(await call(s.url, "GET", `${CM}?fieldSelector=metadata.name%3Db`)), ["b"]);
    const badField = await call(s.url, "GET", `${CM}?fieldSelector=spec.foo%3Db`);
    assert.equal(badField.status, 400);
    const page1 = await call(s.url, "GET", `${CM}?limit=3`);
    assert.deepEqual(names(page1), ["a", "b", "c"]);
    assert.equal(page1.body.metadata.remainingItemCount, 1);
    const page2 = await call(
      s.url,
      "GET",
      `${CM}?limit=3&continue=${encodeURIComponent(page1.body.metadata.continue)}`,
    );
    assert.deepEqual(names(page2), ["d"]);
    assert.equal(page2.body.metadata.continue, undefined);
    assert.equal(page1.body.kind, "ConfigMapList");
    const all = await call(s.url, "GET", "/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault");
    assert.equal(all.body.items.length, 4);
    assert.equal(all.body.items[0].kind, undefined); // a typed list's items carry no TypeMeta, as kube encodes them
  } finally {
    await s.stop();
  }
});

Deno.test("pods field selectors on spec.nodeName and status.phase", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const PODS = "/api/v1/namespaces/default/pods";
  try {
    await call(s.url, "POST", PODS, {
      metadata: { name: "a" },
      spec: { nodeName: "n1", containers: [{ name: "c", image: "busybox" }] },
    });
    await call(s.url, "POST", PODS, {
      metadata: { name: "b" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    const onN1 = await call(s.url, "GET", `${PODS}?fieldSelector=spec.nodeName%3Dn1`);
    assert.deepEqual(onN1.body.items.map((p: { metadata: { name: string } }) => p.metadata.name), ["a"]);
    const unscheduled = await call(s.url, "GET", `${PODS}?fieldSelector=spec.nodeName%3D,status.phase%3DPending`);
    assert.deepEqual(unscheduled.body.items.map((p: { metadata: { name: string } }) => p.metadata.name), ["b"]);
  } finally {
    await s.stop();
  }
});

Deno.test("events: one store served as v1 and events.k8s.io/v1 with field mapping and involvedObject selectors", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const created = await call(s.url, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", {
      metadata: { name: "e1" },
      regarding: { kind: "Pod", name: "p", namespace: "default", uid: "u1" },
      note: "hello",
      reason: "Started",
      type: "Normal",
      action: "Start",
      reportingController: "kubeop",
      reportingInstance: "kubeop-1",
      eventTime: "2026-01-01T00:00:00.000000Z",
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.apiVersion, "events.k8s.io/v1");
    assert.equal(created.body.note, "hello");
    const core = await call(s.url, "GET", "/api/v1/namespaces/default/events/e1");
    assert.equal(core.body.apiVersion, "v1");
    assert.equal(core.body.message, "hello");
    assert.equal(core.body.involvedObject.name, "p");
    assert.equal(core.body.reportingComponent, "kubeop");
    const sel = encodeURIComponent("involvedObject.uid=u1,involvedObject.name=p,involvedObject.namespace=default");
    const found = await call(s.url, "GET", `/api/v1/namespaces/default/events?fieldSelector=${sel}`);
    assert.equal(found.body.items.length, 1);
    const none = await call(s.url, "GET", `/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DNode`);
    assert.equal(none.body.items.length, 0);
  } finally {
    await s.stop();
  }
});

Deno.test("secrets: stringData folds into data, type is immutable, immutable secrets refuse data changes", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const SEC = "/api/v1/namespaces/default/secrets";
  try {
    const sec = await call(s.url, "POST", SEC, { metadata: { name: "s" }, stringData: { pw: "hi" }, immutable: true });
    assert.equal(sec.body.data.pw, btoa("hi"));
    assert.equal(sec.body.type, "Opaque");
    assert.equal(sec.body.stringData, undefined);
    const change = await call(s.url, "PUT", `${SEC}/s`, { ...sec.body, data: { pw: btoa("x") } });
    assert.equal(change.status, 422);
    const retype = await call(s.url, "PUT", `${SEC}/s`, { ...sec.body, type: "kubernetes.io/tls" });
    assert.equal(retype.status, 422);
    assert.match(retype.body.message, /type/);
  } finally {
    await s.stop();
  }
});

Deno.test("bearer token: requests without it get 401 Unauthorized", async () => {
  const s = await startFakeApiServer({ token: "sekret" });
  try {
    const anon = await call(s.url, "GET", "/api/v1/namespaces");
    assert.equal(anon.status, 401);
    assert.equal(anon.body.reason, "Unauthorized");
    const ok = await call(s.url, "GET", "/api/v1/namespaces", undefined, { authorization: "Bearer sekret" });
    assert.equal(ok.status, 200);
    assert.match(s.kubeconfig, /token: sekret/);
  } finally {
    await s.stop();
  }
});

Deno.test("bad input never crashes the server: garbage bodies, wrong types, huge payloads, unknown resources", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const garbage = await call(s.url, "POST", CM, "{not json");
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.reason, "BadRequest");
    const array = await call(s.url, "POST", CM, "[1,2]");
    assert.equal(array.status, 400);
    const wrongType = await call(s.url, "POST", CM, "a=b", { "content-type": "text/plain" });
    assert.equal(wrongType.status, 415);
    assert.equal(wrongType.body.reason, "UnsupportedMediaType");
    const huge = await call(
      s.url,
      "POST",
      CM,
      JSON.stringify({ metadata: { name: "h" }, data: { x: "y".repeat(4 * 1024 * 1024) } }),
    );
    assert.equal(huge.status, 413);
    const unknown = await call(s.url, "GET", "/api/v1/namespaces/default/widgets");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.kind, "Status");
    const unknownGroup = await call(s.url, "GET", "/apis/nope.example.com/v1/things");
    assert.equal(unknownGroup.status, 404);
    const badPatch = await call(s.url, "PATCH", `${CM}/x`, "{}", { "content-type": "application/weird" });
    assert.equal(badPatch.status, 415);
    const nullMeta = await call(s.url, "POST", CM, { metadata: null, data: 5 });
    assert.ok(nullMeta.status >= 400 && nullMeta.status < 500);
    const postToName = await call(s.url, "POST", `${CM}/named`, { metadata: { name: "named" } });
    assert.equal(postToName.status, 405);
    assert.equal(postToName.body.reason, "MethodNotAllowed");
    // kube passes the storage's ParseUint error through as a reason-less 500 on a watch (a list: 400).
    const badRv = await call(s.url, "GET", `${CM}?watch=1&resourceVersion=abc`);
    assert.equal(badRv.status, 500);
    const weird = await call(s.url, "GET", "/api/v1/namespaces/%ZZ/configmaps");
    assert.ok(weird.status < 500);
    // The server still answers.
    const alive = await call(s.url, "GET", "/version");
    assert.equal(alive.status, 200);
    assert.match(alive.body.gitVersion, /^v1\.37\.\d+$/);
  } finally {
    await s.stop();
  }
});

Deno.test("restart keeps state on the same port, or loses it when asked", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const url = s.url;
    await call(s.url, "POST", CM, { metadata: { name: "kept" } });
    await s.restart();
    assert.equal(s.url, url);
    assert.equal((await call(s.url, "GET", `${CM}/kept`)).status, 200);
    await s.restart({ keepState: false });
    assert.equal((await call(s.url, "GET", `${CM}/kept`)).status, 404);
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/default")).status, 200);
  } finally {
    await s.stop();
  }
});

Deno.test("fault injection: 429 with Retry-After, 500, limited by times", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    s.faults.inject({ verb: "list", resource: "configmaps", code: 429, retryAfterSeconds: 2, times: 1 });
    const limited = await call(s.url, "GET", CM);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "2");
    assert.equal(limited.body.reason, "TooManyRequests");
    assert.equal((await call(s.url, "GET", CM)).status, 200);
    s.faults.inject({ verb: "create", code: 500 });
    assert.equal((await call(s.url, "POST", CM, { metadata: { name: "x" } })).status, 500);
    s.faults.clear();
    assert.equal((await call(s.url, "POST", CM, { metadata: { name: "x" } })).status, 201);
    s.faults.inject({ resource: "secrets", code: 401, times: 1 });
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/default/secrets")).status, 401);
  } finally {
    await s.stop();
  }
});

Deno.test("direct store access creates objects visible over HTTP", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const rt = { group: "", version: "v1", plural: "configmaps" };
    s.store.create(rt, { metadata: { name: "direct", namespace: "default" } });
    assert.equal((await call(s.url, "GET", `${CM}/direct`)).status, 200);
    assert.equal(s.store.list(rt, { namespace: "default" }).items.length, 1);
  } finally {
    await s.stop();
  }
});

Deno.test("--data-dir: objects survive a stop and a new server, RVs keep growing; restart without state wipes them", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = await startFakeApiServer({ anonymousAdmin: true, dataDir: dir });
    const created = await call(a.url, "POST", CM, { metadata: { name: "persisted" }, data: { k: "v" } });
    await call(a.url, "POST", CM, { metadata: { name: "removed" } });
    await call(a.url, "DELETE", `${CM}/removed`);
    await a.stop();
    const b = await startFakeApiServer({ anonymousAdmin: true, dataDir: dir });
    try {
      const got = await call(b.url, "GET", `${CM}/persisted`);
      assert.equal(got.status, 200);
      assert.equal(got.body.metadata.uid, created.body.metadata.uid);
      assert.equal((await call(b.url, "GET", `${CM}/removed`)).status, 404);
      const next = await call(b.url, "POST", CM, { metadata: { name: "after" } });
      assert.ok(Number(next.body.metadata.resourceVersion) > Number(created.body.metadata.resourceVersion));
      await b.restart({ keepState: false });
      assert.equal((await call(b.url, "GET", `${CM}/persisted`)).status, 404);
    } finally {
      await b.stop();
    }
    // Unclean stop: the append log alone restores acknowledged writes.
    const c = await startFakeApiServer({ anonymousAdmin: true, dataDir: dir });
    await call(c.url, "POST", CM, { metadata: { name: "logged" } });
    const d = await startFakeApiServer({ anonymousAdmin: true, dataDir: dir });
    try {
      assert.equal((await call(d.url, "GET", `${CM}/logged`)).status, 200);
    } finally {
      await d.stop();
      await c.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fault injection: latency holds the request until the (virtual) clock moves", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock });
  try {
    s.faults.inject({ verb: "get", resource: "configmaps", latencyMs: 5_000, times: 1 });
    await call(s.url, "POST", CM, { metadata: { name: "slow" } });
    let done = false;
    const pending = call(s.url, "GET", `${CM}/slow`).then((r) => {
      done = true;
      return r;
    });
    await eventually("the request to be waiting on the clock", () => clock.pendingTimers > 0);
    assert.equal(done, false);
    await clock.advance(5_000);
    assert.equal((await pending).status, 200);
  } finally {
    await s.stop();
  }
});
