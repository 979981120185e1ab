/**
 * Conformance cases: ValidatingAdmissionPolicy and its bindings (admissionregistration.k8s.io/v1, GA since v1.30) —
 * CEL validations over `object`, `params` from a ConfigMap, message / messageExpression / `failed expression`, and
 * the Deny and Warn validationActions in kube-apiserver's words. Each policy selects only its case's ConfigMaps.
 * @module
 */
import assert from "node:assert/strict";
import { call, type Json } from "./crd_helpers.ts";
import {
  CASE_LABEL,
  configMap,
  configMaps,
  untilInEffect,
  VAP,
  VAPB,
  withObjects,
} from "./admission_webhooks_support.ts";
import { type ConformanceCase, POLL } from "./support.ts";
import { eventually } from "../../testing/eventually.ts";

/** A policy on CREATE/UPDATE of case `id`'s ConfigMaps in `ns`. */
function policy(name: string, ns: string, id: string, validations: Json[], extra: Json = {}): Json {
  return {
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [{
          operations: ["CREATE", "UPDATE"],
          apiGroups: [""],
          apiVersions: ["v1"],
          resources: ["configmaps"],
        }],
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
        objectSelector: { matchLabels: { [CASE_LABEL]: id } },
      },
      validations,
      ...extra,
    },
  };
}

const binding = (name: string, policyName: string, actions: string[], extra: Json = {}): Json => ({
  metadata: { name },
  spec: { policyName, validationActions: actions, ...extra },
});

export const admissionPolicyCases: ConformanceCase[] = [
  {
    name:
      "Deny: 422 Invalid, '<resource> \"<name>\" is forbidden: ValidatingAdmissionPolicy ... denied request: <message>'",
    run: async ({ client, ns }) => {
      const id = "vap-deny";
      const p = policy(`${ns}-small`, ns, id, [{ expression: "object.data.size() <= 2", message: "too many keys" }]);
      const b = binding(`${ns}-small-binding`, `${ns}-small`, ["Deny"]);
      await withObjects(client, [[VAP, p], [VAPB, b]], async () => {
        const big = configMap("big", id, { a: "1", b: "2", c: "3" });
        const got = await untilInEffect(client, ns, id, (got) => got.code !== 201, big);
        assert.equal(got.code, 422, JSON.stringify(got.body));
        assert.equal(got.body.reason, "Invalid");
        const message =
          `ValidatingAdmissionPolicy '${ns}-small' with binding '${ns}-small-binding' denied request: too many keys`;
        assert.equal(got.body.message, `configmaps "big" is forbidden: ${message}`);
        assert.deepEqual(got.body.details?.causes, [{ message }]);
        assert.equal((await call(client, "POST", configMaps(ns), configMap("small", id))).code, 201);
      });
    },
  },
  {
    name: "Warn with messageExpression: admitted with a 'Validation failed for ValidatingAdmissionPolicy' warning",
    run: async ({ client, ns }) => {
      const id = "vap-warn";
      const validations = [{
        expression: "!('legacy' in object.data)",
        messageExpression: "'key legacy is deprecated in ' + object.metadata.name",
      }];
      const p = policy(`${ns}-legacy`, ns, id, validations);
      const b = binding(`${ns}-legacy-binding`, `${ns}-legacy`, ["Warn"]);
      await withObjects(client, [[VAP, p], [VAPB, b]], async () => {
        const old = configMap("old", id, { legacy: "1" });
        const probe = { ...old, metadata: { ...old.metadata, name: "probe" } };
        await untilInEffect(client, ns, id, (got) => got.warnings.length > 0, probe);
        const got = await call(client, "POST", configMaps(ns), old);
        assert.equal(got.code, 201, JSON.stringify(got.body));
        assert.deepEqual(got.warnings, [
          `Validation failed for ValidatingAdmissionPolicy '${ns}-legacy' with binding '${ns}-legacy-binding': key legacy is deprecated in old`,
        ]);
      });
    },
  },
  {
    name: "paramKind ConfigMap bound by paramRef; no message: 'failed expression: <expression>'",
    run: async ({ client, ns }) => {
      const id = "vap-params";
      const expression = "object.data.size() <= int(params.data.max)";
      const p = policy(`${ns}-max`, ns, id, [{ expression }], { paramKind: { apiVersion: "v1", kind: "ConfigMap" } });
      const b = binding(`${ns}-max-binding`, `${ns}-max`, ["Deny"], {
        paramRef: { name: "limits", namespace: ns, parameterNotFoundAction: "Deny" },
      });
      const limits = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits" }, data: { max: "1" } };
      await withObjects(client, [[configMaps(ns), limits], [VAP, p], [VAPB, b]], async () => {
        const two = configMap("two", id, { a: "1", b: "2" });
        const got = await untilInEffect(client, ns, id, (got) => got.code !== 201, two);
        assert.equal(got.code, 422, JSON.stringify(got.body));
        assert.equal(
          got.body.message,
          `configmaps "two" is forbidden: ValidatingAdmissionPolicy '${ns}-max' with binding '${ns}-max-binding' denied request: failed expression: ${expression}`,
        );
        assert.equal((await call(client, "POST", configMaps(ns), configMap("one", id))).code, 201);
      });
    },
  },
  {
    name: "variables and oldObject: an UPDATE that removes keys is denied, a CREATE (oldObject null) is not",
    run: async ({ client, ns }) => {
      const id = "vap-update";
      const validations = [{
        expression: "oldObject == null || variables.keys >= size(oldObject.data)",
        messageExpression:
          "'keys may not be removed: ' + string(variables.keys) + ' < ' + string(size(oldObject.data))",
      }];
      const p = policy(`${ns}-keep`, ns, id, validations, {
        variables: [{ name: "keys", expression: "has(object.data) ? size(object.data) : 0" }],
      });
      const b = binding(`${ns}-keep-binding`, `${ns}-keep`, ["Deny"]);
      const path = `${configMaps(ns)}/kept-keys`;
      assert.equal(
        (await call(client, "POST", configMaps(ns), configMap("kept-keys", id, { a: "1", b: "2" }))).code,
        201,
      );
      await withObjects(client, [[VAP, p], [VAPB, b]], async () => {
        const shrink = { ...configMap("kept-keys", id, { a: "1" }) };
        const got = await eventually("the policy refuses the update", async () => {
          const r = await call(client, "PUT", path, shrink, "?dryRun=All");
          return r.code !== 200 ? r : undefined;
        }, POLL);
        assert.equal(got.code, 422, JSON.stringify(got.body));
        assert.equal(
          got.body.message,
          `configmaps "kept-keys" is forbidden: ValidatingAdmissionPolicy '${ns}-keep' with binding '${ns}-keep-binding' denied request: keys may not be removed: 1 < 2`,
        );
        const grow = configMap("kept-keys", id, { a: "1", b: "2", c: "3" });
        assert.equal((await call(client, "PUT", path, grow)).code, 200);
        assert.equal((await call(client, "POST", configMaps(ns), configMap("fresh-keys", id, {}))).code, 201);
      });
    },
  },
];
