import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";

const CM = "/api/v1/namespaces/default/configmaps";
const SEC = "/api/v1/namespaces/default/secrets";

async function ownerAndChild(url: string) {
  const owner = await call(url, "POST", CM, { metadata: { name: "owner" } });
  const ref = {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "owner",
    uid: owner.body.metadata.uid,
    blockOwnerDeletion: true,
  };
  const child = await call(url, "POST", SEC, { metadata: { name: "child", ownerReferences: [ref] } });
  assert.equal(child.status, 201);
  return owner.body;
}

Deno.test("a finalizer blocks deletion until it is removed", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const a = await call(s.url, "POST", CM, { metadata: { name: "a", finalizers: ["example.com/hold"] } });
    const del = await call(s.url, "DELETE", `${CM}/a`);
    assert.ok(del.status === 200 || del.status === 202);
    const held = await call(s.url, "GET", `${CM}/a`);
    assert.equal(held.status, 200);
    assert.ok(held.body.metadata.deletionTimestamp);
    assert.notEqual(held.body.metadata.resourceVersion, a.body.metadata.resourceVersion);
    const addMore = await call(s.url, "PUT", `${CM}/a`, {
      ...held.body,
      metadata: { ...held.body.metadata, finalizers: ["example.com/hold", "example.com/new"] },
    });
    assert.equal(addMore.status, 422, "no new finalizers while deleting");
    const release = await call(s.url, "PUT", `${CM}/a`, {
      ...held.body,
      metadata: { ...held.body.metadata, finalizers: [] },
    });
    assert.equal(release.status, 200);
    assert.equal((await call(s.url, "GET", `${CM}/a`)).status, 404);
  } finally {
    await s.stop();
  }
});

Deno.test("background propagation: garbage collection deletes dependents", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await ownerAndChild(s.url);
    await call(s.url, "DELETE", `${CM}/owner`);
    await eventually("child deleted", async () => (await call(s.url, "GET", `${SEC}/child`)).status === 404);
  } finally {
    await s.stop();
  }
});

Deno.test("foreground propagation: the owner waits with foregroundDeletion until dependents are gone", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await ownerAndChild(s.url);
    // Hold the child so the owner's foreground deletion is observable.
    const child = await call(s.url, "GET", `${SEC}/child`);
    await call(s.url, "PUT", `${SEC}/child`, {
      ...child.body,
      metadata: { ...child.body.metadata, finalizers: ["example.com/hold"] },
    });
    await call(s.url, "DELETE", `${CM}/owner`, { propagationPolicy: "Foreground" });
    const owner = await call(s.url, "GET", `${CM}/owner`);
    assert.ok(owner.body.metadata.finalizers.includes("foregroundDeletion"));
    const terminating = await eventually("child marked", async () => {
      const c = await call(s.url, "GET", `${SEC}/child`);
      return c.body.metadata?.deletionTimestamp ? c : undefined;
    });
    await call(s.url, "PUT", `${SEC}/child`, {
      ...terminating.body,
      metadata: { ...terminating.body.metadata, finalizers: [] },
    });
    await eventually("owner deleted", async () => (await call(s.url, "GET", `${CM}/owner`)).status === 404);
  } finally {
    await s.stop();
  }
});

Deno.test("orphan propagation: dependents lose the ownerReference and stay", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await ownerAndChild(s.url);
    await call(s.url, "DELETE", `${CM}/owner?propagationPolicy=Orphan`);
    await eventually("owner deleted", async () => (await call(s.url, "GET", `${CM}/owner`)).status === 404);
    const child = await call(s.url, "GET", `${SEC}/child`);
    assert.equal(child.status, 200);
    assert.equal(child.body.metadata.ownerReferences, undefined);
  } finally {
    await s.stop();
  }
});

Deno.test("namespace deletion: Terminating, creates refused with 403, contents removed, then gone", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: "doomed" } });
    const NS_CM = "/api/v1/namespaces/doomed/configmaps";
    await call(s.url, "POST", NS_CM, { metadata: { name: "held", finalizers: ["example.com/hold"] } });
    await call(s.url, "POST", NS_CM, { metadata: { name: "free" } });
    await call(s.url, "DELETE", "/api/v1/namespaces/doomed");
    const ns = await call(s.url, "GET", "/api/v1/namespaces/doomed");
    assert.equal(ns.body.status.phase, "Terminating");
    const refused = await call(s.url, "POST", NS_CM, { metadata: { name: "late" } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.reason, "Forbidden");
    assert.match(refused.body.message, /being terminated/);
    await eventually("free removed", async () => (await call(s.url, "GET", `${NS_CM}/free`)).status === 404);
    const held = await call(s.url, "GET", `${NS_CM}/held`);
    assert.ok(held.body.metadata.deletionTimestamp);
    await call(s.url, "PUT", `${NS_CM}/held`, { ...held.body, metadata: { ...held.body.metadata, finalizers: [] } });
    await eventually(
      "namespace gone",
      async () => (await call(s.url, "GET", "/api/v1/namespaces/doomed")).status === 404,
    );
  } finally {
    await s.stop();
  }
});

Deno.test("delete preconditions: a wrong uid is a 409 Conflict", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    await call(s.url, "POST", CM, { metadata: { name: "a" } });
    const res = await call(s.url, "DELETE", `${CM}/a`, { preconditions: { uid: "not-it" } });
    assert.equal(res.status, 409);
    assert.equal((await call(s.url, "GET", `${CM}/a`)).status, 200);
  } finally {
    await s.stop();
  }
});
