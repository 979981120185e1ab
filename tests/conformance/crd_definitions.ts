/**
 * Conformance cases of CustomResourceDefinition objects: rules that do not compile, estimated cost, uncorrelatable
 * oldSelf, bad reasons, fieldPaths and selectableFields, two storage versions, a constrained metadata schema, a
 * non-structural schema, defaults, Established after the create, selectableFields in field selectors, and deletion
 * removing objects and ending watches. Each case asserts what kube-apiserver v1.37 answers.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import { eventually } from "../../testing/eventually.ts";
import {
  call,
  crd,
  CRD_PATH,
  createCrd,
  expectOk,
  expectStatus,
  GROUP,
  type Json,
  POLL,
  RECORD,
} from "./crd_helpers.ts";
import type { ConformanceCase } from "./support.ts";

async function crdCase(client: KubeClient, what: string, body: Json, want: Parameters<typeof expectStatus>[2]) {
  expectStatus(what, await call(client, "POST", CRD_PATH, body), want);
}

/** CustomResourceDefinition objects: compile and cost checks, structural rules, defaults, Established, deletion. */
export const crdDefinitionCases: ConformanceCase[] = [
  {
    name: "CRD with a rule that does not compile is rejected",
    async run({ client }) {
      const body = crd("Badrule", { type: "object", "x-kubernetes-validations": [{ rule: "foo == 1" }] });
      await crdCase(client, "undeclared reference", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "badrules.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"foo == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:1: undeclared reference to \'foo\' (in container \'\')\n | foo == 1\n | ^',
        causes: [{
          "reason": "FieldValueInvalid",
          "message":
            'Invalid value: {"Rule":"foo == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:1: undeclared reference to \'foo\' (in container \'\')\n | foo == 1\n | ^',
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
        }],
      });
    },
  },
  {
    name: "CRD with a rule over an unbounded list nested twice exceeds the cost budget",
    async run({ client }) {
      const body = crd("Costly", {
        type: "object",
        properties: { items: { type: "array", items: { type: "string" } } },
        "x-kubernetes-validations": [{ rule: "self.items.all(x, self.items.all(y, x == y))" }],
      });
      await crdCase(client, "cost", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "costlys.cel.conformance.kubeop.dev" is invalid: [spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)]',
        causes: [{
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
        }, {
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
        }, {
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
          "field": "spec.validation.openAPIV3Schema",
        }],
      });
    },
  },
  {
    name: "CRD with a messageExpression that does not compile is rejected",
    async run({ client }) {
      const body = crd("Badmsg", {
        type: "object",
        "x-kubernetes-validations": [{ rule: "true", messageExpression: "bar + 'x'" }],
      });
      await crdCase(client, "bad messageExpression", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "badmsgs.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: {"Rule":"true","Message":"","MessageExpression":"bar + \'x\'","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to \'bar\' (in container \'\')\n | bar + \'x\'\n | ^',
        causes: [{
          "reason": "FieldValueInvalid",
          "message":
            'Invalid value: {"Rule":"true","Message":"","MessageExpression":"bar + \'x\'","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to \'bar\' (in container \'\')\n | bar + \'x\'\n | ^',
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression",
        }],
      });
    },
  },
  {
    name: "CRD with a rule selecting an undefined field is rejected",
    async run({ client }) {
      const body = crd("Nofield", {
        type: "object",
        properties: { a: { type: "string" } },
        "x-kubernetes-validations": [{ rule: "self.b == 'x'" }],
      });
      await crdCase(client, "undefined field", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "nofields.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.b == \'x\'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field \'b\'\n | self.b == \'x\'\n | ....^',
        causes: [{
          "reason": "FieldValueInvalid",
          "message":
            'Invalid value: {"Rule":"self.b == \'x\'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field \'b\'\n | self.b == \'x\'\n | ....^',
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
        }],
      });
    },
  },
  {
    name: "CRD with oldSelf on items of a list without keys is rejected",
    async run({ client }) {
      const body = crd("Uncorrelated", {
        type: "object",
        properties: {
          xs: {
            type: "array",
            items: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
          },
        },
      });
      await crdCase(client, "uncorrelatable oldSelf", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "uncorrelateds.cel.conformance.kubeop.dev" is invalid: [spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[xs], spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)]',
        causes: [{
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
          "field":
            "spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule",
        }, {
          "reason": "FieldValueInvalid",
          "message":
            'Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[xs]',
          "field":
            "spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule",
        }, {
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
          "field":
            "spec.validation.openAPIV3Schema.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule",
        }, {
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
          "field": "spec.validation.openAPIV3Schema",
        }],
      });
    },
  },
  {
    name: "CRD with a nested loop over bounded lists stays within the cost budget",
    async run({ client }) {
      const body = crd("Bounded", {
        type: "object",
        properties: { items: { type: "array", maxItems: 10, items: { type: "string", maxLength: 10 } } },
        "x-kubernetes-validations": [{ rule: "self.items.all(x, self.items.all(y, x == y))" }],
      });
      expectOk("bounded", await call(client, "POST", CRD_PATH, body));
    },
  },
  {
    name: "CRD with bad selectableFields is rejected",
    async run({ client }) {
      const body = crd("Badselect", {
        type: "object",
        properties: { color: { type: "string" }, sizes: { type: "object", properties: { a: { type: "integer" } } } },
      }, {
        selectableFields: [{ jsonPath: ".spec.nope" }, { jsonPath: ".spec.sizes" }, { jsonPath: ".spec.color" }, {
          jsonPath: ".spec.color",
        }],
      });
      await crdCase(client, "bad selectableFields", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "badselects.cel.conformance.kubeop.dev" is invalid: [spec.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field, spec.selectableFields[1].jsonPath: Invalid value: ".spec.sizes": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed., spec.selectableFields[3].jsonPath: Duplicate value: ".spec.color"]',
        causes: [{
          "reason": "FieldValueInvalid",
          "message": 'Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
          "field": "spec.selectableFields[0].jsonPath",
        }, {
          "reason": "FieldValueInvalid",
          "message":
            'Invalid value: ".spec.sizes": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
          "field": "spec.selectableFields[1].jsonPath",
        }, {
          "reason": "FieldValueDuplicate",
          "message": 'Duplicate value: ".spec.color"',
          "field": "spec.selectableFields[3].jsonPath",
        }],
      });
    },
  },
  {
    name: "CRD with two storage versions is rejected",
    async run({ client }) {
      const body = crd("Twostore", { type: "object" });
      body.spec.versions.push({ ...structuredClone(body.spec.versions[0]), name: "v2" });
      await crdCase(client, "two storage", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "twostores.cel.conformance.kubeop.dev" is invalid: [spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version, status.storedVersions: Invalid value: ["v1"]: must have the storage version v2]',
        causes: [{
          "reason": "FieldValueInvalid",
          "message":
            'Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null},{"Name":"v2","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version',
          "field": "spec.versions",
        }, {
          "reason": "FieldValueInvalid",
          "message": 'Invalid value: ["v1"]: must have the storage version v2',
          "field": "status.storedVersions",
        }],
      });
    },
  },
  {
    name: "CRD whose schema constrains metadata beyond name is rejected",
    async run({ client }) {
      const body = crd("Metaschema", { type: "object" });
      body.spec.versions[0].schema.openAPIV3Schema.properties.metadata = {
        type: "object",
        properties: { labels: { type: "object" } },
      };
      await crdCase(client, "metadata schema", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "metaschemas.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
        causes: [{
          "reason": "FieldValueForbidden",
          "message":
            "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
          "field": "spec.validation.openAPIV3Schema.properties[metadata]",
        }],
      });
    },
  },
  {
    name: "CRD with a non-structural schema (no type) is rejected",
    async run({ client }) {
      const body = crd("Untyped", { properties: { a: { type: "string" } } });
      await crdCase(client, "untyped", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "untypeds.cel.conformance.kubeop.dev" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
        causes: [{
          "reason": "FieldValueRequired",
          "message": "Required value: must not be empty for specified object fields",
          "field": "spec.validation.openAPIV3Schema.properties[spec].type",
        }],
      });
    },
  },
  {
    name: "CRD with a bad fieldPath and a bad reason is rejected",
    async run({ client }) {
      const body = crd("Badpath", {
        type: "object",
        properties: { a: { type: "string" } },
        "x-kubernetes-validations": [{ rule: "true", fieldPath: ".nope", reason: "Sideways" }],
      });
      await crdCase(client, "bad fieldPath", body, {
        code: 422,
        reason: "Invalid",
        message:
          'CustomResourceDefinition.apiextensions.k8s.io "badpaths.cel.conformance.kubeop.dev" is invalid: [spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: "Sideways": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired", spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".nope": must be a valid path]',
        causes: [{
          "reason": "FieldValueNotSupported",
          "message":
            'Unsupported value: "Sideways": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason",
        }, {
          "reason": "FieldValueInvalid",
          "message": 'Invalid value: ".nope": must be a valid path',
          "field": "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath",
        }],
      });
    },
  },
  {
    name: "CRD defaults: singular, listKind, conversion None; not Established in the create answer",
    async run({ client }) {
      const body = crd("Defaulted", { type: "object" });
      const got = expectOk("create", await call(client, "POST", CRD_PATH, body));
      if (RECORD) console.log(`RECORD defaults: ${JSON.stringify(got)}`);
      assert.equal(got.spec.names.singular, "defaulted");
      assert.equal(got.spec.names.listKind, "DefaultedList");
      assert.deepEqual(got.spec.conversion, { strategy: "None" });
      assert.ok(!(got.status?.conditions ?? []).some((c: Json) => c.type === "Established" && c.status === "True"));
      await eventually("Established", async () => {
        const c = await client.get<KubeObject>(CoreTypes.CustomResourceDefinition, body.metadata.name);
        return (c.status?.conditions ?? []).some((x: Json) => x.type === "Established" && x.status === "True");
      }, POLL);
    },
  },
  {
    name: "selectableFields: field selectors on a declared field; others refused",
    async run({ client, ns }) {
      const body = crd("Selectable", { type: "object", properties: { color: { type: "string" } } }, {
        selectableFields: [{ jsonPath: ".spec.color" }],
      });
      const sp = await createCrd(client, body);
      const sbase = `/apis/${GROUP}/v1/namespaces/${ns}/${sp}`;
      for (const [name, color] of [["s1", "red"], ["s2", "blue"]]) {
        expectOk(
          "create",
          await call(client, "POST", sbase, {
            apiVersion: `${GROUP}/v1`,
            kind: "Selectable",
            metadata: { name },
            spec: { color },
          }),
        );
      }
      const list = expectOk("select", await call(client, "GET", sbase, undefined, "?fieldSelector=spec.color%3Dblue"));
      assert.deepEqual(list.items.map((i: Json) => i.metadata.name), ["s2"]);
      const bad = await call(client, "GET", sbase, undefined, "?fieldSelector=spec.size%3D1");
      expectStatus("unknown field label", bad, {
        code: 400,
        reason: "BadRequest",
        message: "field label not supported: spec.size",
      });
    },
  },
  {
    name: "deleting a CRD removes its objects and ends its watches",
    async run({ client, ns }) {
      const body = crd("Doomed", { type: "object" });
      const dp = await createCrd(client, body);
      const doomed = { group: GROUP, version: "v1", plural: dp, kind: "Doomed", namespaced: true };
      const listed = await client.list(doomed, { namespace: ns });
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), 20_000);
      const events: string[] = [];
      const watched = (async () => {
        const opts = { namespace: ns, resourceVersion: listed.metadata.resourceVersion, signal: ac.signal };
        for await (const ev of client.watch(doomed, opts)) {
          events.push(`${ev.type} ${(ev.object as KubeObject).metadata?.name ?? ""}`);
        }
      })();
      // The object is created once the watch is open (eventually sees it), so the watch exists before the delete.
      expectOk(
        "create",
        await call(client, "POST", `/apis/${GROUP}/v1/namespaces/${ns}/${dp}`, {
          apiVersion: `${GROUP}/v1`,
          kind: "Doomed",
          metadata: { name: "d1" },
        }),
      );
      await eventually("watch sees d1", () => events.includes("ADDED d1"), POLL);
      expectOk("delete CRD", await call(client, "DELETE", `${CRD_PATH}/${dp}.${GROUP}`));
      await watched.finally(() => clearTimeout(timer));
      assert.ok(!ac.signal.aborted, "the watch ends when its CRD goes");
      assert.deepEqual(events, ["ADDED d1", "DELETED d1"]);
      await eventually(
        "CRD gone",
        async () => (await call(client, "GET", `${CRD_PATH}/${dp}.${GROUP}`)).code === 404,
        POLL,
      );
      expectOk("recreate CRD", await call(client, "POST", CRD_PATH, crd("Doomed", { type: "object" })));
      await eventually("served again, empty", async () => {
        const r = await call(client, "GET", `/apis/${GROUP}/v1/namespaces/${ns}/${dp}`);
        return r.code === 200 && r.body.items.length === 0;
      }, POLL);
    },
  },
];
