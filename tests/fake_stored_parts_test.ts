/**
 * Parts of one stored object that are equal as JSON stay separate objects: a Deployment whose selector's matchLabels
 * equal its template's labels, patched on the template's labels, keeps its selector. (A store that shared equal parts
 * to save memory aliased the two within one object, and a patch of one changed the other: the real
 * kube-controller-manager's `rollout undo` then failed with `spec.selector: field is immutable`.)
 */
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";

const MERGE = { "content-type": "application/merge-patch+json" };

Deno.test("fake store: equal parts of one object are not aliased — a template label patch leaves the selector", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  const path = "/apis/apps/v1/namespaces/default/deployments";
  const template = (labels: Record<string, string>) => ({
    metadata: { labels },
    spec: { containers: [{ name: "main", image: "nginx:1" }] },
  });
  try {
    const created = await call(s.url, "POST", path, {
      metadata: { name: "web" },
      spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: template({ app: "web" }) },
    });
    assert.equal(created.status, 201);
    const patched = await call(
      s.url,
      "PATCH",
      `${path}/web`,
      { spec: { template: template({ app: "web", track: "stable" }) } },
      MERGE,
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.spec.selector, { matchLabels: { app: "web" } });
    assert.deepEqual(patched.body.spec.template.metadata.labels, { app: "web", track: "stable" });
  } finally {
    await s.stop();
  }
});
