import assert from "node:assert/strict";
import { toPartialObjectMetadata, toPartialObjectMetadataList } from "./partial_metadata.ts";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", labels: { app: "x" }, resourceVersion: "7" },
  spec: { containers: [{ name: "c", image: "nginx" }] },
  status: { phase: "Running" },
};

Deno.test("partial metadata: keeps metadata only, as a copy", () => {
  const p = toPartialObjectMetadata(pod);
  assert.deepEqual(p, { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: pod.metadata });
  p.metadata.labels!.app = "changed";
  assert.equal(pod.metadata.labels.app, "x");
});

Deno.test("partial metadata list: kind, list meta and items", () => {
  const l = toPartialObjectMetadataList({ metadata: { resourceVersion: "9", continue: "c" }, items: [pod, pod] });
  assert.equal(l.kind, "PartialObjectMetadataList");
  assert.equal(l.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(l.metadata, { resourceVersion: "9", continue: "c" });
  assert.equal(l.items.length, 2);
  assert.equal(l.items[1].kind, "PartialObjectMetadata");
  assert.equal("spec" in l.items[0], false);
});
