/**
 * Conformance cases: PatchOptions and the other write options as kube validates them (ValidatePatchOptions, ...), and
 * JSON patch as kube's json-patch library (evanphx v4) applies it where it departs from RFC 6902; a patch's changed
 * uid; dry-run patches; patches of missing objects.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { assertStatus, cause, rawJson } from "./status_assert.ts";
import type { ConformanceCase } from "./support.ts";

const JSON_PATCH = "application/json-patch+json";
const MERGE = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";
const REJECTED = "the server rejected our request due to an error in our request";
const FORCE = cause("FieldValueForbidden", "force", "Forbidden: may not be specified for non-apply patch");

const cmPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

/** A fresh ConfigMap `name` with `data`. */
async function configMap(client: KubeClient, ns: string, name: string, data: Record<string, string> = { a: "1" }) {
  await client.delete(CoreTypes.ConfigMap, name, { namespace: ns }).catch(() => {});
  return await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name, namespace: ns }, data }, {
    namespace: ns,
  });
}

/** PATCH `path` with `body` as `contentType`. */
const patch = (
  client: KubeClient,
  path: string,
  contentType: string,
  body: unknown,
  query: Record<string, string> = {},
) =>
  rawJson(client, "PATCH", path, { body: typeof body === "string" ? body : JSON.stringify(body), contentType, query });

/** Write options and JSON patch semantics. */
export const patchOptionCases: ConformanceCase[] = [
  {
    name: "force on a merge, strategic or JSON patch is 422 PatchOptions (force=false too: it is set)",
    async run({ client, ns }) {
      await configMap(client, ns, "po-force");
      const bodies: Array<[string, unknown]> = [[MERGE, { data: { b: "2" } }], [STRATEGIC, { data: { b: "2" } }], [
        JSON_PATCH,
        [{ op: "add", path: "/data/b", value: "2" }],
      ]];
      for (const [type, body] of bodies) {
        for (const force of ["true", "false"]) {
          const { code, body: status } = await patch(client, cmPath(ns, "po-force"), type, body, { force });
          assert.equal(code, 422, `${type} force=${force}`);
          assertStatus(status, {
            code: 422,
            reason: "Invalid",
            message:
              'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
            causes: [FORCE],
          }, `${type} force=${force}`);
          assert.deepEqual([status.details.group, status.details.kind], ["meta.k8s.io", "PatchOptions"]);
        }
      }
    },
  },
  {
    name: "PatchOptions errors together, in kube's order: force, an unprintable fieldManager, dryRun",
    async run({ client, ns }) {
      await configMap(client, ns, "po-many");
      const { body } = await patch(client, cmPath(ns, "po-many"), MERGE, { data: { b: "2" } }, {
        force: "true",
        fieldManager: "a\tb",
        dryRun: "Bogus",
      });
      assertStatus(body, {
        code: 422,
        reason: "Invalid",
        message:
          'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, ' +
          'fieldManager: Invalid value: "a\\tb": invalid character U+0009 (at position 1), ' +
          'dryRun: Unsupported value: ["Bogus"]: supported values: "All"]',
        causes: [
          FORCE,
          cause(
            "FieldValueInvalid",
            "fieldManager",
            'Invalid value: "a\\tb": invalid character U+0009 (at position 1)',
          ),
          cause("FieldValueNotSupported", "dryRun", 'Unsupported value: ["Bogus"]: supported values: "All"'),
        ],
      }, "three option errors");
    },
  },
  {
    name: "CreateOptions: a fieldManager over 128 bytes comes before a bad dryRun; an unknown fieldValidation is 422",
    async run({ client, ns }) {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const body = JSON.stringify({ metadata: { name: "po-create" } });
      const long = await rawJson(client, "POST", path, {
        body,
        query: { dryRun: "Bogus", fieldManager: "x".repeat(129) },
      });
      assertStatus(long.body, {
        code: 422,
        reason: "Invalid",
        message: 'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, ' +
          'dryRun: Unsupported value: ["Bogus"]: supported values: "All"]',
      }, "long fieldManager and dryRun");
      const validation = await rawJson(client, "POST", path, { body, query: { fieldValidation: "strict" } });
      assertStatus(validation.body, {
        code: 422,
        reason: "Invalid",
        message: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": ' +
          'supported values: "", "Ignore", "Strict", "Warn"',
        causes: [cause(
          "FieldValueNotSupported",
          "fieldValidation",
          'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
        )],
      }, "fieldValidation");
    },
  },
  {
    name: "JSON patch failures answer 422 with an empty details object",
    async run({ client, ns }) {
      await configMap(client, ns, "po-details");
      for (const ops of [[{ op: "test", path: "/data/a", value: "9" }], [{ path: "/data/q", value: "1" }]]) {
        const { code, body } = await patch(client, cmPath(ns, "po-details"), JSON_PATCH, ops);
        assert.equal(code, 422);
        assert.deepEqual([body.message, body.details], [REJECTED, {}], JSON.stringify(ops));
      }
    },
  },
  {
    name: "JSON patch as kube applies it: replace of a missing key adds it; a missing key tests equal to null",
    async run({ client, ns }) {
      await configMap(client, ns, "po-v4");
      const replaced = await patch(client, cmPath(ns, "po-v4"), JSON_PATCH, [
        { op: "test", path: "/data/zz", value: null },
        { op: "replace", path: "/data/zz", value: "1" },
      ]);
      assert.equal(replaced.code, 200, JSON.stringify(replaced.body));
      assert.deepEqual(replaced.body.data, { a: "1", zz: "1" });
    },
  },
  {
    name: "JSON patch paths: the text before the first '/' is ignored; a path without '/' is 422",
    async run({ client, ns }) {
      await configMap(client, ns, "po-path");
      const loose = await patch(client, cmPath(ns, "po-path"), JSON_PATCH, [
        { op: "add", path: "x/data/q", value: "1" },
      ]);
      assert.equal(loose.code, 200, JSON.stringify(loose.body));
      assert.deepEqual(loose.body.data, { a: "1", q: "1" });
      const bare = await patch(client, cmPath(ns, "po-path"), JSON_PATCH, [{ op: "add", path: "a", value: "1" }]);
      assert.deepEqual([bare.code, bare.body.message], [422, REJECTED]);
    },
  },
  {
    name: "an empty JSON patch changes nothing: 200 with the same resourceVersion",
    async run({ client, ns }) {
      const cm = await configMap(client, ns, "po-empty");
      const { code, body } = await patch(client, cmPath(ns, "po-empty"), JSON_PATCH, []);
      assert.equal(code, 200);
      assert.equal(body.metadata.resourceVersion, cm.metadata.resourceVersion);
    },
  },
  {
    name: "a patch changing metadata.uid is 422 field is immutable; a PUT with another uid is a 409 precondition",
    async run({ client, ns }) {
      const cm = await configMap(client, ns, "po-uid");
      for (const type of [MERGE, STRATEGIC]) {
        const { body } = await patch(client, cmPath(ns, "po-uid"), type, { metadata: { uid: "x-uid" } });
        assertStatus(body, {
          code: 422,
          reason: "Invalid",
          message: 'ConfigMap "po-uid" is invalid: metadata.uid: Invalid value: "x-uid": field is immutable',
          causes: [cause("FieldValueInvalid", "metadata.uid", 'Invalid value: "x-uid": field is immutable')],
        }, type);
      }
      const put = await rawJson(client, "PUT", cmPath(ns, "po-uid"), {
        body: JSON.stringify({ metadata: { name: "po-uid", uid: "x-uid" } }),
      });
      assertStatus(put.body, {
        code: 409,
        reason: "Conflict",
        message: `Operation cannot be fulfilled on configmaps "po-uid": StorageError: invalid object, Code: 4, Key: ` +
          `/registry/configmaps/${ns}/po-uid, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in ` +
          `precondition: x-uid, UID in object meta: ${cm.metadata.uid}`,
      }, "PUT");
    },
  },
  {
    name: "a dry-run JSON patch answers the patched object and stores nothing",
    async run({ client, ns }) {
      const cm = await configMap(client, ns, "po-dry");
      const { code, body } = await patch(client, cmPath(ns, "po-dry"), JSON_PATCH, [
        { op: "add", path: "/metadata/labels", value: { x: "y" } },
      ], { dryRun: "All" });
      assert.deepEqual([code, body.metadata.labels], [200, { x: "y" }]);
      const stored = await client.get(CoreTypes.ConfigMap, "po-dry", { namespace: ns });
      assert.deepEqual([stored.metadata.labels, stored.metadata.resourceVersion], [
        undefined,
        cm.metadata.resourceVersion,
      ]);
    },
  },
  {
    name: "a merge or JSON patch of a missing object is 404; an apply creates it (201)",
    async run({ client, ns }) {
      for (
        const [type, body] of [[MERGE, { data: { a: "1" } }], [JSON_PATCH, [{ op: "add", path: "/data", value: {} }]]]
      ) {
        const got = await patch(client, cmPath(ns, "po-missing"), type as string, body);
        assertStatus(got.body, {
          code: 404,
          reason: "NotFound",
          message: 'configmaps "po-missing" not found',
        }, type as string);
      }
      const applied = await patch(
        client,
        cmPath(ns, "po-missing"),
        APPLY,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: po-missing\ndata:\n  a: '1'\n",
        { fieldManager: "conformance" },
      );
      assert.deepEqual([applied.code, applied.body.data], [201, { a: "1" }]);
    },
  },
  {
    name: "apply of a field another manager set is 409 Conflict; with force=true it takes the field over",
    async run({ client, ns }) {
      await configMap(client, ns, "po-apply-force");
      const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: po-apply-force\ndata:\n  a: '5'\n";
      const refused = await patch(client, cmPath(ns, "po-apply-force"), APPLY, yaml, { fieldManager: "other" });
      assert.deepEqual([refused.code, refused.body.reason], [409, "Conflict"], JSON.stringify(refused.body));
      const forced = await patch(client, cmPath(ns, "po-apply-force"), APPLY, yaml, {
        fieldManager: "other",
        force: "true",
      });
      assert.equal(forced.code, 200, JSON.stringify(forced.body));
      assert.equal(forced.body.data.a, "5");
      const managers = forced.body.metadata.managedFields.map((m: { manager: string; operation: string }) =>
        `${m.manager}/${m.operation}`
      );
      assert.ok(managers.includes("other/Apply"), managers.join(", "));
    },
  },
];
