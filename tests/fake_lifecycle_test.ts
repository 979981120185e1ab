import assert from "node:assert/strict";
import { VirtualClock } from "../runtime/clock.ts";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { eventually } from "../testing/eventually.ts";

const PODS = "/api/v1/namespaces/default/pods";

Deno.test("graceful pod deletion: the kubelet confirms a running pod's deletion; the watch sees MODIFIED (30), MODIFIED (0), DELETED", async () => {
  const clock = new VirtualClock();
  const s = await startFakeApiServer({ anonymousAdmin: true, clock, kubelet: true });
  const ac = new AbortController();
  try {
    await call(s.url, "POST", PODS, {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    const running = await eventually("running", async () => {
      const p = await call(s.url, "GET", `${PODS}/p`);
      return p.body.status.phase === "Running" ? p.body : undefined;
    });
    const watch = await fetch(`${s.url}${PODS}?watch=1&resourceVersion=${running.metadata.resourceVersion}`, {
      signal: ac.signal,
    });
    const deleted = await call(s.url, "DELETE", `${PODS}/p`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.metadata.deletionGracePeriodSeconds, 30);
    assert.ok(deleted.body.metadata.deletionTimestamp);
    await eventually("pod gone", async () => (await call(s.url, "GET", `${PODS}/p`)).status === 404);
    const reader = watch.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    // Three complete lines (a chunk may end inside an event: pods with admission's additions are bigger).
    while ((text.match(/\n/g) ?? []).length < 3) text += (await reader.read()).value ?? "";
    const events = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    // As v1.37.2 does: the kubelet's delete with grace 0 is stored first (MODIFIED), then the pod goes.
    assert.deepEqual(events.map((e) => e.type), ["MODIFIED", "MODIFIED", "DELETED"]);
    assert.deepEqual(events.map((e) => e.object.metadata.deletionGracePeriodSeconds), [30, 0, 0]);
    await reader.cancel();
  } finally {
    ac.abort();
    await s.stop();
  }
});

Deno.test("graceful pod deletion: pods on another node wait; without a kubelet every pod goes at once", async () => {
  const withKubelet = await startFakeApiServer({ anonymousAdmin: true, kubelet: true });
  const without = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const body = {
      metadata: { name: "away" },
      spec: { nodeName: "other-node", containers: [{ name: "c", image: "x" }] },
    };
    await call(withKubelet.url, "POST", PODS, body);
    await call(withKubelet.url, "DELETE", `${PODS}/away?gracePeriodSeconds=10`);
    const held = await call(withKubelet.url, "GET", `${PODS}/away`);
    assert.equal(held.body.metadata.deletionGracePeriodSeconds, 10);
    const update = await call(withKubelet.url, "PATCH", `${PODS}/away`, { metadata: { labels: { a: "b" } } }, {
      "content-type": "application/merge-patch+json",
    });
    assert.equal(update.status, 200, "a terminating pod can still be updated and is not removed by it");
    assert.equal((await call(withKubelet.url, "GET", `${PODS}/away`)).status, 200);
    await call(withKubelet.url, "DELETE", `${PODS}/away`, { gracePeriodSeconds: 0 });
    assert.equal((await call(withKubelet.url, "GET", `${PODS}/away`)).status, 404);
    await call(without.url, "POST", PODS, body);
    await call(without.url, "DELETE", `${PODS}/away`);
    assert.equal((await call(without.url, "GET", `${PODS}/away`)).status, 404);
  } finally {
    await withKubelet.stop();
    await without.stop();
  }
});

Deno.test("defaultNamespaceObjects: ServiceAccount default and ConfigMap kube-root-ca.crt in every namespace", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, defaultNamespaceObjects: true });
  const plain = await startFakeApiServer({ anonymousAdmin: true });
  try {
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/default/serviceaccounts/default")).status, 200);
    await call(s.url, "POST", "/api/v1/namespaces", { metadata: { name: "fresh" } });
    const sa = await eventually("default ServiceAccount", async () => {
      const r = await call(s.url, "GET", "/api/v1/namespaces/fresh/serviceaccounts/default");
      return r.status === 200 ? r.body : undefined;
    });
    assert.equal(sa.kind, "ServiceAccount");
    const cm = await call(s.url, "GET", "/api/v1/namespaces/fresh/configmaps/kube-root-ca.crt");
    assert.match(cm.body.data["ca.crt"], /BEGIN CERTIFICATE/);
    const none = await call(plain.url, "GET", "/api/v1/namespaces/default/configmaps");
    assert.deepEqual(none.body.items, [], "off by default");
  } finally {
    await s.stop();
    await plain.stop();
  }
});

Deno.test("list snapshots: continue and Exact serve the first page's RV; 410 once compacted", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const CMS = "/api/v1/namespaces/default/configmaps";
  try {
    for (const n of ["a", "b", "c"]) await call(s.url, "POST", CMS, { metadata: { name: n }, data: { v: "1" } });
    const first = await call(s.url, "GET", `${CMS}?limit=1`);
    assert.equal(first.body.metadata.remainingItemCount, 2);
    await call(s.url, "DELETE", `${CMS}/b`);
    await call(s.url, "POST", CMS, { metadata: { name: "bb" } });
    await call(s.url, "PATCH", `${CMS}/c`, { data: { v: "2" } }, { "content-type": "application/merge-patch+json" });
    const second = await call(s.url, "GET", `${CMS}?limit=1&continue=${first.body.metadata.continue}`);
    assert.deepEqual(second.body.items.map((o: { metadata: { name: string } }) => o.metadata.name), ["b"]);
    assert.equal(second.body.metadata.remainingItemCount, 1);
    const third = await call(s.url, "GET", `${CMS}?limit=1&continue=${second.body.metadata.continue}`);
    assert.equal(third.body.items[0].data.v, "1", "c as it was");
    assert.equal(third.body.metadata.continue, undefined);
    const rv = first.body.metadata.resourceVersion;
    const exact = await call(s.url, "GET", `${CMS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.deepEqual(exact.body.items.map((o: { metadata: { name: string } }) => o.metadata.name), ["a", "b", "c"]);
    s.faults.compact();
    const gone = await call(s.url, "GET", `${CMS}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(gone.status, 410);
    const stale = await call(s.url, "GET", `${CMS}?limit=1&continue=${first.body.metadata.continue}`);
    assert.equal(stale.status, 410);
  } finally {
    await s.stop();
  }
});
