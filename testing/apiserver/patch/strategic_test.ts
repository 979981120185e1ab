import assert from "node:assert/strict";
import { ApiError } from "../../../runtime/client/errors.ts";
import { type ResourceDef, resourceDefFor } from "../resource_def.ts";
import { applyStrategicMergePatch } from "./strategic.ts";

const def = (group: string, kind: string): ResourceDef => resourceDefFor(group, kind, { tracksGeneration: true });
const DEPLOYMENT = def("apps", "Deployment");
const CONFIGMAP = def("", "ConfigMap");

// deno-lint-ignore no-explicit-any
type Any = any;

function deployment(): Any {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", finalizers: ["a", "b"], labels: { app: "web" } },
    spec: {
      replicas: 2,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [
            {
              name: "web",
              image: "nginx:1.25",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
            },
            { name: "sidecar", image: "busybox" },
          ],
          volumes: [{ name: "data", emptyDir: {} }],
        },
      },
    },
  };
}

Deno.test("SMP: kubectl apply image change merges the container by name (3-way patch with $setElementOrder)", () => {
  const patch = {
    metadata: { annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}\n" } },
    spec: {
      template: {
        spec: {
          "$setElementOrder/containers": [{ name: "web" }, { name: "sidecar" }],
          containers: [{ image: "nginx:1.26", name: "web" }],
        },
      },
    },
  };
  const out: Any = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
  const [web, side] = out.spec.template.spec.containers;
  assert.equal(web.image, "nginx:1.26");
  assert.deepEqual(web.env, [{ name: "A", value: "1" }, { name: "B", value: "2" }], "untouched fields kept");
  assert.equal(side.name, "sidecar");
  assert.equal(out.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"], "{}\n");
  assert.equal(out.spec.replicas, 2);
});

Deno.test("SMP: $patch delete removes a container and an env var; new env var is appended", () => {
  const patch = {
    spec: {
      template: {
        spec: {
          "$setElementOrder/containers": [{ name: "web" }],
          containers: [{
            name: "web",
            "$setElementOrder/env": [{ name: "C" }, { name: "A" }],
            env: [{ name: "C", value: "3" }, { $patch: "delete", name: "B" }],
          }, { $patch: "delete", name: "sidecar" }],
        },
      },
    },
  };
  const out: Any = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
  assert.deepEqual(out.spec.template.spec.containers.map((c: Any) => c.name), ["web"]);
  assert.deepEqual(out.spec.template.spec.containers[0].env, [{ name: "C", value: "3" }, { name: "A", value: "1" }]);
});

Deno.test("SMP: strategy switch to Recreate uses $retainKeys and null", () => {
  const patch = { spec: { strategy: { $retainKeys: ["type"], rollingUpdate: null, type: "Recreate" } } };
  const out: Any = applyStrategicMergePatch(deployment(), patch, DEPLOYMENT);
  assert.deepEqual(out.spec.strategy, { type: "Recreate" });
});

Deno.test("SMP: finalizers merge as a set; $deleteFromPrimitiveList removes", () => {
  const added: Any = applyStrategicMergePatch(deployment(), { metadata: { finalizers: ["b", "c"] } }, DEPLOYMENT);
  assert.deepEqual(added.metadata.finalizers, ["a", "b", "c"]);
  const removed: Any = applyStrategicMergePatch(
    deployment(),
    { metadata: { "$setElementOrder/finalizers": ["b"], "$deleteFromPrimitiveList/finalizers": ["a"] } },
    DEPLOYMENT,
  );
  assert.deepEqual(removed.metadata.finalizers, ["b"]);
});

Deno.test("SMP: $patch replace on a list and on a map; atomic lists replace", () => {
  const out: Any = applyStrategicMergePatch(deployment(), {
    spec: {
      template: {
        spec: {
          containers: [{ $patch: "replace" }, { name: "only", image: "x" }],
          volumes: [{ name: "cfg", configMap: { name: "c" } }],
          tolerations: [{ key: "k", operator: "Exists" }],
        },
        metadata: { $patch: "replace", labels: { app: "other" } },
      },
    },
  }, DEPLOYMENT);
  assert.deepEqual(out.spec.template.spec.containers, [{ name: "only", image: "x" }]);
  // New elements come first (strategicpatch mergeSortedSlice), as kube-apiserver v1.37 answers.
  assert.deepEqual(out.spec.template.spec.volumes.map((v: Any) => v.name), ["cfg", "data"]);
  assert.deepEqual(out.spec.template.metadata, { labels: { app: "other" } });
  assert.deepEqual(out.spec.template.spec.tolerations, [{ key: "k", operator: "Exists" }]);
});

Deno.test("SMP: ports merge by containerPort; service ports by port", () => {
  const out: Any = applyStrategicMergePatch(deployment(), {
    spec: { template: { spec: { containers: [{ name: "web", ports: [{ containerPort: 443 }] }] } } },
  }, DEPLOYMENT);
  assert.deepEqual(out.spec.template.spec.containers[0].ports.map((p: Any) => p.containerPort), [443, 80]);
  const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }], selector: { app: "a" } } };
  const svcOut: Any = applyStrategicMergePatch(
    svc,
    { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
    def("", "Service"),
  );
  assert.deepEqual(svcOut.spec.ports, [{ port: 80, targetPort: 9090 }]);
});

Deno.test("SMP: kubectl edit on a ConfigMap (two-way patch) sets and deletes data keys", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "1", b: "2" } };
  const out: Any = applyStrategicMergePatch(cm, { data: { a: null, c: "3" } }, CONFIGMAP);
  assert.deepEqual(out.data, { b: "2", c: "3" });
  assert.deepEqual(cm.data, { a: "1", b: "2" }, "input untouched");
});

Deno.test("SMP: ownerReferences merge by uid; conditions by type", () => {
  const pod = {
    metadata: { ownerReferences: [{ uid: "1", name: "a" }] },
    status: { conditions: [{ type: "Ready", status: "False" }] },
  };
  const out: Any = applyStrategicMergePatch(pod, {
    metadata: { ownerReferences: [{ uid: "2", name: "b" }] },
    status: { conditions: [{ type: "Ready", status: "True" }, { type: "Initialized", status: "True" }] },
  }, def("", "Pod"));
  assert.deepEqual(out.metadata.ownerReferences.map((o: Any) => o.uid), ["2", "1"]);
  assert.deepEqual(out.status.conditions, [{ type: "Ready", status: "True" }, { type: "Initialized", status: "True" }]);
});

Deno.test("SMP: a keyed list element without its merge key is a 500 without reason (as kube answers)", () => {
  assert.throws(
    () =>
      applyStrategicMergePatch(
        deployment(),
        { spec: { template: { spec: { containers: [{ image: "x" }] } } } },
        DEPLOYMENT,
      ),
    (err: unknown) =>
      err instanceof ApiError && err.code === 500 &&
      err.status.message === "map: map[image:x] does not contain declared merge key: name",
  );
});
