import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { WatchReader } from "../testing/apiserver/watch_reader.ts";

const CM = "/api/v1/namespaces/default/configmaps";

async function watch(url: string, query: string, headers: Record<string, string> = {}): Promise<WatchReader> {
  const res = await fetch(`${url}${CM}?watch=true&${query}`, { headers });
  assert.equal(res.status, 200);
  return new WatchReader(res.body!);
}

Deno.test("watch resumes exactly after a resourceVersion: no lost and no duplicated events", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    const rv0 = a.body.metadata.resourceVersion;
    await call(s.url, "POST", CM, { metadata: { name: "b" } });
    await call(s.url, "PUT", `${CM}/a`, { ...a.body, data: { x: "1" } });
    await call(s.url, "DELETE", `${CM}/b`);
    const w = await watch(s.url, `resourceVersion=${rv0}`);
    const frames = await w.take(3);
    assert.deepEqual(frames.map((f) => `${f.type} ${f.object.metadata.name}`), ["ADDED b", "MODIFIED a", "DELETED b"]);
    const rvs = frames.map((f) => Number(f.object.metadata.resourceVersion));
    assert.ok(rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]), "strictly increasing RVs");
    // Live events follow the replay without a gap.
    await call(s.url, "POST", CM, { metadata: { name: "c" } });
    const live = await w.next();
    assert.equal(live?.type, "ADDED");
    assert.equal(live?.object.metadata.name, "c");
    assert.equal(live?.object.kind, "ConfigMap");
    // Resuming from the last seen RV yields only what came after.
    const w2 = await watch(s.url, `resourceVersion=${rvs[1]}`);
    const resumed = await w2.take(2);
    assert.deepEqual(resumed.map((f) => `${f.type} ${f.object.metadata.name}`), ["DELETED b", "ADDED c"]);
    await w.cancel();
    await w2.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("watch without resourceVersion starts with ADDED for current objects", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", CM, { metadata: { name: "a", labels: { app: "x" } } });
    await call(s.url, "POST", CM, { metadata: { name: "b" } });
    const w = await watch(s.url, "labelSelector=app%3Dx");
    const first = await w.next();
    assert.equal(first?.type, "ADDED");
    assert.equal(first?.object.metadata.name, "a");
    await w.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("410 Expired in-stream after compaction; a watch from ahead waits silently for the store to pass it", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    await call(s.url, "POST", CM, { metadata: { name: "b" } });
    s.faults.compact();
    const w = await watch(s.url, `resourceVersion=${a.body.metadata.resourceVersion}`);
    const err = await w.next();
    assert.equal(err?.type, "ERROR");
    assert.equal(err?.object.code, 410);
    assert.equal(err?.object.reason, "Expired");
    assert.ok(await w.ended(), "stream closes after the ERROR");
    const current = Number((await call(s.url, "GET", CM)).body.metadata.resourceVersion);
    const ahead = await watch(s.url, `resourceVersion=${current + 2}`);
    for (const n of ["c", "d", "e"]) await call(s.url, "POST", CM, { metadata: { name: n } });
    const first = await ahead.next();
    assert.equal(`${first?.type} ${first?.object.metadata.name}`, "ADDED e", "changes up to the requested RV skipped");
    await ahead.cancel();
    // sendInitialEvents waits for the store to reach the RV, then gives up: 504 ResourceVersionTooLarge.
    const initial = await call(
      s.url,
      "GET",
      `${CM}?watch=true&resourceVersion=999999&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(initial.status, 504);
    assert.equal(initial.body.details.causes[0].reason, "ResourceVersionTooLarge");
  } finally {
    await s.stop();
  }
});

Deno.test("410 once history exceeds the compaction window", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, compactionWindow: 3 });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    for (const n of ["b", "c", "d", "e"]) await call(s.url, "POST", CM, { metadata: { name: n } });
    const w = await watch(s.url, `resourceVersion=${a.body.metadata.resourceVersion}`);
    assert.equal((await w.next())?.object.code, 410);
    await w.cancel();
    const list = await call(s.url, "GET", CM);
    const w2 = await watch(s.url, `resourceVersion=${list.body.metadata.resourceVersion}`);
    await call(s.url, "POST", CM, { metadata: { name: "f" } });
    assert.equal((await w2.next())?.object.metadata.name, "f");
    await w2.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("bookmarks arrive periodically when asked and never otherwise", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock, bookmarkIntervalMs: 1_000 });
  try {
    const list = await call(s.url, "GET", CM);
    const rv = list.body.metadata.resourceVersion;
    const withMarks = await watch(s.url, `resourceVersion=${rv}&allowWatchBookmarks=true`);
    const without = await watch(s.url, `resourceVersion=${rv}`);
    await clock.advance(1_000);
    const mark = await withMarks.next();
    assert.equal(mark?.type, "BOOKMARK");
    assert.equal(mark?.object.kind, "ConfigMap");
    assert.equal(mark?.object.metadata.resourceVersion, rv);
    await clock.advance(1_000);
    assert.equal((await withMarks.next())?.type, "BOOKMARK");
    // The watch without bookmarks saw nothing: the next frame is a real event.
    await call(s.url, "POST", CM, { metadata: { name: "x" } });
    const first = await without.next();
    assert.equal(first?.type, "ADDED");
    await withMarks.cancel();
    await without.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("sendInitialEvents streams the state then the k8s.io/initial-events-end bookmark", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", CM, { metadata: { name: "a" } });
    await call(s.url, "POST", CM, { metadata: { name: "b" } });
    const w = await watch(s.url, "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true");
    const frames = await w.take(3);
    assert.deepEqual(frames.map((f) => f.type), ["ADDED", "ADDED", "BOOKMARK"]);
    assert.equal(frames[2].object.metadata.annotations?.["k8s.io/initial-events-end"], "true");
    await call(s.url, "POST", CM, { metadata: { name: "c" } });
    assert.equal((await w.next())?.object.metadata.name, "c");
    await w.cancel();
    const refused = await call(s.url, "GET", `${CM}?watch=true&sendInitialEvents=true`);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.details.causes[0].field, "resourceVersionMatch");
  } finally {
    await s.stop();
  }
});

Deno.test("with bookmarks asked, one BOOKMARK comes 2 s before timeoutSeconds (virtual clock)", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock });
  try {
    const rv = (await call(s.url, "GET", CM)).body.metadata.resourceVersion;
    const w = await watch(s.url, `resourceVersion=${rv}&timeoutSeconds=10&allowWatchBookmarks=true`);
    const plain = await watch(s.url, `resourceVersion=${rv}&timeoutSeconds=10`);
    await clock.advance(8_000);
    const mark = await w.next();
    assert.equal(mark?.type, "BOOKMARK");
    assert.equal(mark?.object.metadata.resourceVersion, rv);
    await clock.advance(2_000);
    assert.ok(await w.ended());
    assert.equal(await plain.next(), undefined, "no bookmark without allowWatchBookmarks");
  } finally {
    await s.stop();
  }
});

Deno.test("a namespaced watch replays only its namespace; the legacy /watch/ path is the same watch", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const rv = (await call(s.url, "GET", CM)).body.metadata.resourceVersion;
    await call(s.url, "POST", "/api/v1/namespaces/kube-system/configmaps", { metadata: { name: "elsewhere" } });
    await call(s.url, "POST", CM, { metadata: { name: "here" } });
    const w = await watch(s.url, `resourceVersion=${rv}`);
    assert.equal((await w.next())?.object.metadata.name, "here");
    await w.cancel();
    const res = await fetch(`${s.url}/api/v1/watch/namespaces/default/configmaps/here?resourceVersion=${rv}`);
    assert.equal(res.status, 200);
    const legacy = new WatchReader(res.body!);
    assert.equal((await legacy.next())?.object.metadata.name, "here");
    await legacy.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("timeoutSeconds ends the stream (virtual clock)", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock });
  try {
    const list = await call(s.url, "GET", CM);
    const w = await watch(s.url, `resourceVersion=${list.body.metadata.resourceVersion}&timeoutSeconds=30`);
    await clock.advance(30_000);
    assert.ok(await w.ended());
  } finally {
    await s.stop();
  }
});

Deno.test("selector transitions become ADDED and DELETED", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const list = await call(s.url, "GET", CM);
    const w = await watch(s.url, `resourceVersion=${list.body.metadata.resourceVersion}&labelSelector=on%3Dyes`);
    const a = await call(s.url, "POST", CM, { metadata: { name: "a" } });
    const on = await call(s.url, "PUT", `${CM}/a`, {
      ...a.body,
      metadata: { ...a.body.metadata, labels: { on: "yes" } },
    });
    await call(s.url, "PUT", `${CM}/a`, { ...on.body, metadata: { ...on.body.metadata, labels: { on: "no" } } });
    const off = await call(s.url, "GET", `${CM}/a`);
    const frames = await w.take(2);
    assert.deepEqual(frames.map((f) => f.type), ["ADDED", "DELETED"]);
    assert.equal(frames[1].object.metadata.labels?.on, "yes", "DELETED carries the last matching state");
    assert.equal(frames[1].object.metadata.resourceVersion, off.body.metadata.resourceVersion);
    await w.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("fault hooks: dropWatches ends streams, stallWatches keeps them open but silent", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const list = await call(s.url, "GET", CM);
    const rv = list.body.metadata.resourceVersion;
    const dropped = await watch(s.url, `resourceVersion=${rv}`);
    assert.equal(s.faults.dropWatches({ resource: "configmaps" }), 1);
    assert.ok(await dropped.ended());
    const stalled = await watch(s.url, `resourceVersion=${rv}`);
    assert.equal(s.faults.stallWatches(), 1);
    await call(s.url, "POST", CM, { metadata: { name: "unseen" } });
    const fresh = await watch(s.url, `resourceVersion=${rv}`);
    assert.equal((await fresh.next())?.object.metadata.name, "unseen");
    // The stalled stream has delivered nothing; dropping it now ends it with no frames.
    s.faults.dropWatches();
    assert.equal(await stalled.next(), undefined);
    await fresh.cancel();
  } finally {
    await s.stop();
  }
});

Deno.test("many concurrent watches each receive the event", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const list = await call(s.url, "GET", CM);
    const rv = list.body.metadata.resourceVersion;
    const watches = await Promise.all(Array.from({ length: 200 }, () => watch(s.url, `resourceVersion=${rv}`)));
    await call(s.url, "POST", CM, { metadata: { name: "fan" } });
    const got = await Promise.all(watches.map((w) => w.next()));
    assert.ok(got.every((f) => f?.object.metadata.name === "fan"));
    await Promise.all(watches.map((w) => w.cancel()));
  } finally {
    await s.stop();
  }
});
