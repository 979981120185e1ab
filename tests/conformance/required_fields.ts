/**
 * Conformance cases: required fields of kinds kube stores without a controller of the fake's (found by the
 * differential battery, tests/differential/): a create that leaves them out is 422 with kube's causes in kube's order
 * (PodTemplate, ReplicationController, PersistentVolumeClaim, Ingress, RuntimeClass, ValidatingAdmissionPolicyBinding).
 * @module
 */
import assert from "node:assert/strict";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const requiredFieldCases: ConformanceCase[] = [
  {
    name: "a create without the required fields of stored-only kinds is 422 with kube's causes, in kube's order",
    async run({ noRetry, ns }) {
      const cases: Array<[string, string, string]> = [
        [`/api/v1/namespaces/${ns}/podtemplates`, "PodTemplate", "template.spec.containers: Required value"],
        [
          `/api/v1/namespaces/${ns}/replicationcontrollers`,
          "ReplicationController",
          "[spec.selector: Required value, spec.template: Required value]",
        ],
        [
          `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
          "PersistentVolumeClaim",
          "[spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]",
        ],
        [
          `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`,
          "Ingress.networking.k8s.io",
          "spec: Invalid value: null: either `defaultBackend` or `rules` must be specified",
        ],
        ["/apis/node.k8s.io/v1/runtimeclasses", "RuntimeClass.node.k8s.io", "handler: Required value"],
        [
          "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
          "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
          "[spec.policyName: Required value, spec.validationActions: Required value]",
        ],
      ];
      for (const [collection, kind, why] of cases) {
        const name = `req-${ns}`;
        const res = await noRetry.request("POST", collection, { body: JSON.stringify({ metadata: { name } }) });
        const status: Any = JSON.parse(new TextDecoder().decode(res.body));
        assert.equal(res.status, 422, JSON.stringify(status));
        assert.equal(status.message, `${kind} "${name}" is invalid: ${why}`);
      }
    },
  },
];
