import assert from "node:assert/strict";
import { defaultPodSpec, defaultPullPolicy, validatePodSpec, validatePodSpecUpdate } from "./pod_spec.ts";

Deno.test("imagePullPolicy follows the tag: latest or none → Always, a tag or a digest → IfNotPresent", () => {
  assert.equal(defaultPullPolicy("busybox"), "Always");
  assert.equal(defaultPullPolicy("busybox:latest"), "Always");
  assert.equal(defaultPullPolicy("registry:5000/busybox"), "Always");
  assert.equal(defaultPullPolicy("registry:5000/busybox:1.36"), "IfNotPresent");
  assert.equal(defaultPullPolicy(`busybox@sha256:${"a".repeat(64)}`), "IfNotPresent");
});

Deno.test("pod spec defaults fill only what is missing", () => {
  const spec = { restartPolicy: "Never", containers: [{ name: "c", image: "x:1", imagePullPolicy: "Always" }] };
  defaultPodSpec(spec);
  assert.deepEqual(spec, {
    restartPolicy: "Never",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    securityContext: {},
    schedulerName: "default-scheduler",
    containers: [{
      name: "c",
      image: "x:1",
      imagePullPolicy: "Always",
      resources: {},
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
    }],
  });
});

Deno.test("pod spec validation and the fields a pod update may change", () => {
  assert.deepEqual(validatePodSpec({ containers: [{ name: "c", image: "x" }] }, "spec"), []);
  assert.deepEqual(validatePodSpec({ containers: [{ name: "C_1", image: "x" }] }, "spec").map((c) => c.field), [
    "spec.containers[0].name",
  ]);
  const old = { containers: [{ name: "c", image: "x" }], restartPolicy: "Always" };
  assert.deepEqual(
    validatePodSpecUpdate({ ...old, containers: [{ name: "c", image: "y" }], activeDeadlineSeconds: 5 }, old),
    [],
  );
  assert.deepEqual(validatePodSpecUpdate({ ...old, nodeName: "n" }, old), [], "scheduling an unscheduled pod");
  const [forbidden] = validatePodSpecUpdate({ ...old, restartPolicy: "Never" }, old);
  assert.deepEqual([forbidden.field, forbidden.reason], ["spec", "FieldValueForbidden"]);
  assert.match(forbidden.message!, /changed: restartPolicy$/);
});
