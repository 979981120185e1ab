/**
 * Conformance cases: a ReplicationController's `scale` subresource (found by the differential battery,
 * tests/differential/): GET answers an autoscaling/v1 Scale whose `status.selector` is the controller's selector map,
 * a merge patch changes `spec.replicas`, a negative count is 422 on Scale.autoscaling.
 * @module
 */
import assert from "node:assert/strict";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const replicationControllerScaleCases: ConformanceCase[] = [
  {
    name: "a ReplicationController's scale: Scale with its selector; merge patch sets replicas; -1 is 422",
    async run({ noRetry, ns }) {
      const rcs = `/api/v1/namespaces/${ns}/replicationcontrollers`;
      const rc = {
        metadata: { name: "rc-scale" },
        spec: {
          replicas: 1,
          selector: { b: "2", a: "1" },
          template: {
            metadata: { labels: { a: "1", b: "2" } },
            spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
          },
        },
      };
      const created = await noRetry.request("POST", rcs, { body: JSON.stringify(rc) });
      assert.equal(created.status, 201, new TextDecoder().decode(created.body));
      const read = (res: { status: number; body: Uint8Array }): [number, Any] => [
        res.status,
        JSON.parse(new TextDecoder().decode(res.body)),
      ];
      const [code, scale] = read(await noRetry.request("GET", `${rcs}/rc-scale/scale`));
      assert.equal(code, 200, JSON.stringify(scale));
      assert.deepEqual([scale.apiVersion, scale.kind, scale.spec, scale.status.selector], [
        "autoscaling/v1",
        "Scale",
        { replicas: 1 },
        "a=1,b=2",
      ]);
      const patch = (replicas: number) =>
        noRetry.request("PATCH", `${rcs}/rc-scale/scale`, {
          body: JSON.stringify({ spec: { replicas } }),
          contentType: "application/merge-patch+json",
        });
      const [patchedCode, patched] = read(await patch(2));
      assert.equal(patchedCode, 200, JSON.stringify(patched));
      assert.equal(patched.spec.replicas, 2);
      const [badCode, bad] = read(await patch(-1));
      assert.equal(badCode, 422, JSON.stringify(bad));
      assert.equal(
        bad.message,
        'Scale.autoscaling "rc-scale" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      );
    },
  },
];
