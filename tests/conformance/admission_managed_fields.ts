/**
 * Conformance cases: kube-apiserver's field manager runs before mutating admission, so what admission plugins set on
 * a create (a Pod's ServiceAccount token volume and its mounts, the default tolerations, priority) belongs to no
 * manager: the creator's managedFields entry names only what it sent and what defaulting filled in. Found by the
 * differential battery (tests/differential/).
 * @module
 */
import assert from "node:assert/strict";
import { CoreTypes } from "../../runtime/types.ts";
import { ensureDefaultServiceAccount } from "./pod_admission.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const admissionManagedFieldCases: ConformanceCase[] = [
  {
    name: "a Pod's managedFields leave out what admission set: token volume and mounts, tolerations, priority",
    async run({ client, ns }) {
      await ensureDefaultServiceAccount(client, ns);
      const pod: Any = await client.create<Any>(CoreTypes.Pod, {
        metadata: { name: "mf-admission", namespace: ns },
        spec: { containers: [{ name: "c", image: "busybox:1.36" }] },
      }, { namespace: ns });
      try {
        // Admission did set them…
        assert.equal(pod.spec.volumes?.length, 1);
        assert.equal(pod.spec.tolerations?.length, 2);
        assert.equal(pod.spec.priority, 0);
        // …but the creator's entry does not own them; defaulted fields it does.
        const entries: Any[] = pod.metadata.managedFields ?? [];
        assert.equal(entries.length, 1, JSON.stringify(entries));
        const spec = entries[0].fieldsV1["f:spec"];
        for (const f of ["f:volumes", "f:tolerations", "f:priority", "f:preemptionPolicy", "f:serviceAccountName"]) {
          assert.equal(spec[f], undefined, `${f} in ${JSON.stringify(spec)}`);
        }
        const container = spec["f:containers"]['k:{"name":"c"}'];
        assert.equal(container["f:volumeMounts"], undefined, JSON.stringify(container));
        assert.deepEqual([spec["f:dnsPolicy"], container["f:imagePullPolicy"]], [{}, {}]);
      } finally {
        await client.delete(CoreTypes.Pod, "mf-admission", { namespace: ns, gracePeriodSeconds: 0 }).catch(() => {});
      }
    },
  },
];
