/**
 * Conformance cases of custom resources as apiextensions-apiserver decodes, validates and lists them, and of a CRD's
 * own validation and create answer: metadata decoded into ObjectMeta (a wrong JSON type is 400, its unknown fields are
 * listed first under Strict, duplicates refused before the store sees the name), the generation moved only by
 * changes beyond metadata after pruning and defaulting, lists carrying `continue: ""`, a strict patch quoting the
 * object with its keys sorted, the scale paths validated with the object, and a CRD's causes in kube's order. Each
 * expectation is what kube-apiserver v1.37.2 answers.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { call, CRD_PATH, expectStatus, GROUP, type Json, POLL } from "./crd_helpers.ts";
import { type ConformanceCase, sendBody } from "./support.ts";

const KIND = "Dial";
const PLURAL = "dials";
const DIAL_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: PLURAL, kind: KIND },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: {
        status: {},
        scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
      },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              required: ["size"],
              properties: {
                replicas: { type: "integer", minimum: 0 },
                size: { type: "integer" },
                color: { type: "string", default: "red" },
                extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              },
            },
            status: { type: "object", properties: { replicas: { type: "integer" } } },
          },
        },
      },
    }],
  },
};
const API_VERSION = `${GROUP}/v1`;
const dials = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}`;
const dial = (name: string, extra: Json = {}) => ({
  apiVersion: API_VERSION,
  kind: KIND,
  metadata: { name, labels: { dial: "yes" } },
  spec: { replicas: 1, size: 3 },
  ...extra,
});
const STRICT = { fieldValidation: "Strict" };
const cannot = `${KIND} in version "v1" cannot be handled as a ${KIND}: `;

/** JSON with every object's keys sorted, as Go marshals an unstructured map. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A CRD sample as the differential battery sends it, named `name` (plural and group taken from it). */
function thingCrd(name: string): Json {
  const plural = name.split(".")[0];
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: {
      group: name.slice(plural.length + 1),
      scope: "Namespaced",
      names: { plural, singular: plural.slice(0, -1), kind: "Thing", listKind: "ThingList" },
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      }],
    },
  };
}

const DNS1123 =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NOT_PLURAL_GROUP = 'must be spec.names.plural+"."+spec.group';
const invalid = (field: string, message: string) => ({ reason: "FieldValueInvalid", message, field });
const required = (field: string) => ({ reason: "FieldValueRequired", message: "Required value", field });
const crdInvalid = (name: string, causes: Json[]) => ({
  code: 422,
  reason: "Invalid",
  message: `CustomResourceDefinition.apiextensions.k8s.io ${JSON.stringify(name)} is invalid: ${
    causes.length === 1
      ? `${causes[0].field}: ${causes[0].message}`
      : `[${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}]`
  }`,
  causes,
});

/** Custom resources decoded, validated and listed as kube does; a CRD's create answer and validation. */
export const crdObjectCases: ConformanceCase[] = [
  {
    name: "a new CRD is answered before it is established: status.conditions null, acceptedNames empty",
    async run({ client }) {
      const created = await call(client, "POST", CRD_PATH, DIAL_CRD);
      assert.equal(created.code, 201, JSON.stringify(created.body));
      assert.equal(created.body.status.conditions, null);
      assert.deepEqual(created.body.status.acceptedNames, { plural: "", kind: "" });
      assert.deepEqual(created.body.status.storedVersions, ["v1"]);
      await eventually(`${PLURAL} served`, async () => {
        await client.request("GET", `/apis/${GROUP}/v1/${PLURAL}`, { throwOnError: true });
        return true;
      }, POLL);
    },
  },
  {
    name:
      "a custom resource's metadata is decoded into ObjectMeta: a wrong JSON type is 400, its unknown fields come first",
    async run({ noRetry, ns }) {
      const labels = await sendBody(
        noRetry,
        "POST",
        dials(ns),
        dial("dial-bad", { metadata: { name: "x", labels: "x" } }),
      );
      assert.equal(labels.code, 400, JSON.stringify(labels.json));
      assert.equal(labels.json.reason, "BadRequest");
      assert.equal(
        labels.json.message,
        `${cannot}json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string`,
      );
      const notObject = await sendBody(noRetry, "POST", dials(ns), dial("dial-bad", { metadata: "x" }));
      assert.equal(notObject.code, 400, JSON.stringify(notObject.json));
      assert.equal(
        notObject.json.message,
        `${cannot}json: cannot unmarshal string into Go value of type v1.ObjectMeta`,
      );
      const body = dial("dial-strict", { bogusField: 1 });
      body.metadata = { ...body.metadata, zzMeta: "x", bogusMeta: "x" } as Json;
      (body.spec as Json).zz = 1;
      const strict = await sendBody(noRetry, "POST", dials(ns), body, "application/json", STRICT);
      assert.equal(strict.code, 400, JSON.stringify(strict.json));
      assert.equal(
        strict.json.message,
        `${cannot}strict decoding error: unknown field "metadata.bogusMeta", unknown field "metadata.zzMeta", ` +
          'unknown field "bogusField", unknown field "spec.zz"',
      );
      const warned = await sendBody(noRetry, "POST", dials(ns), body);
      assert.equal(warned.code, 201, JSON.stringify(warned.json));
      assert.equal(warned.json.metadata.bogusMeta, undefined);
      assert.deepEqual(warned.warnings, [
        'unknown field "metadata.bogusMeta"',
        'unknown field "metadata.zzMeta"',
        'unknown field "bogusField"',
        'unknown field "spec.zz"',
      ]);
    },
  },
  {
    name:
      "strict decoding errors of a custom resource are 400 before the store: a duplicate for an existing name, a PUT without resourceVersion",
    async run({ noRetry, ns }) {
      const created = await sendBody(noRetry, "POST", dials(ns), dial("dial-dup"));
      assert.equal(created.code, 201, JSON.stringify(created.json));
      const text = JSON.stringify(dial("dial-dup")).replace('"name":"dial-dup"', '"name":"dial-dup","name":"dial-dup"');
      const dup = await sendBody(noRetry, "POST", dials(ns), text, "application/json", STRICT);
      assert.equal(dup.code, 400, JSON.stringify(dup.json));
      assert.equal(dup.json.message, `${cannot}strict decoding error: duplicate field "metadata.name"`);
      const put = await sendBody(
        noRetry,
        "PUT",
        `${dials(ns)}/dial-dup`,
        dial("dial-dup", { bogusField: 1 }),
        "application/json",
        STRICT,
      );
      assert.equal(put.code, 400, JSON.stringify(put.json));
      assert.equal(put.json.message, `${cannot}strict decoding error: unknown field "bogusField"`);
    },
  },
  {
    name:
      "a custom resource's generation moves only when more than metadata changes, compared after pruning and defaulting",
    async run({ noRetry, ns }) {
      const created = await sendBody(noRetry, "POST", dials(ns), dial("dial-gen"));
      assert.equal(created.code, 201, JSON.stringify(created.json));
      assert.equal(created.json.metadata.generation, 1);
      assert.equal(created.json.spec.color, "red");
      // The PUT leaves out the defaulted color and sends a field pruning drops: nothing but labels changed.
      const body = dial("dial-gen", { spec: { replicas: 1, size: 3, pruned: true } });
      body.metadata = {
        ...body.metadata,
        labels: { dial: "relabelled" },
        resourceVersion: created.json.metadata.resourceVersion,
      } as Json;
      const put = await sendBody(noRetry, "PUT", `${dials(ns)}/dial-gen`, body);
      assert.equal(put.code, 200, JSON.stringify(put.json));
      assert.equal(put.json.metadata.generation, 1);
      const patched = await sendBody(
        noRetry,
        "PATCH",
        `${dials(ns)}/dial-gen`,
        { spec: { size: 4 } },
        "application/merge-patch+json",
      );
      assert.equal(patched.code, 200, JSON.stringify(patched.json));
      assert.equal(patched.json.metadata.generation, 2);
    },
  },
  {
    name:
      'a custom resource list carries metadata.continue "" (an unstructured list); its PartialObjectMetadataList does not',
    async run({ noRetry, ns }) {
      const list = await sendBody(noRetry, "GET", dials(ns));
      assert.equal(list.code, 200);
      assert.equal(list.json.metadata.continue, "");
      const byName = await sendBody(noRetry, "GET", `${dials(ns)}?fieldSelector=metadata.name%3Ddial-gen`);
      assert.equal(byName.json.metadata.continue, "");
      const res = await noRetry.request("GET", dials(ns), {
        accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
      });
      const partial = JSON.parse(new TextDecoder().decode(res.body));
      assert.equal(partial.kind, "PartialObjectMetadataList");
      assert.ok(!("continue" in partial.metadata), JSON.stringify(partial.metadata));
    },
  },
  {
    name:
      "a custom resource's strict merge patch with an unknown field is 422 on patch, quoting the object with every key sorted",
    async run({ noRetry, ns }) {
      const current = (await sendBody(noRetry, "GET", `${dials(ns)}/dial-gen`)).json;
      const got = await sendBody(
        noRetry,
        "PATCH",
        `${dials(ns)}/dial-gen`,
        { bogusField: 1 },
        "application/merge-patch+json",
        STRICT,
      );
      const quoted = JSON.stringify(sortedJson({ ...current, bogusField: 1 }));
      const message = `Invalid value: ${quoted}: strict decoding error: unknown field "bogusField"`;
      assert.equal(got.code, 422, JSON.stringify(got.json));
      assert.equal(got.json.reason, "Invalid");
      assert.equal(got.json.message, ` "" is invalid: patch: ${message}`);
      assert.deepEqual(got.json.details.causes, [{ reason: "FieldValueInvalid", message, field: "patch" }]);
    },
  },
  {
    name:
      "a custom resource's scale paths are validated with it: a spec that is no object, replicas below 0 through scale",
    async run({ noRetry, ns }) {
      const typed = await sendBody(noRetry, "POST", dials(ns), dial("dial-typed", { spec: 12345 }));
      const causes = [
        {
          reason: "FieldValueTypeInvalid",
          message: 'Invalid value: "integer": spec in body must be of type object: "integer"',
          field: "spec",
        },
        invalid(
          ".spec.replicas",
          "Invalid value: 0: .spec.replicas accessor error: 12345 is of the type int64, expected map[string]interface{}",
        ),
      ];
      expectStatus("spec a number", { code: typed.code, body: typed.json, warnings: [] }, {
        code: 422,
        reason: "Invalid",
        message: `${KIND}.${GROUP} "dial-typed" is invalid: [${
          causes.map((c) => `${c.field}: ${c.message}`).join(", ")
        }]`,
        causes,
      });
      const scaled = await sendBody(
        noRetry,
        "PATCH",
        `${dials(ns)}/dial-gen/scale`,
        { spec: { replicas: -1 } },
        "application/merge-patch+json",
      );
      const scaleCauses = [
        invalid("spec.replicas", "Invalid value: -1: spec.replicas in body should be greater than or equal to 0"),
        invalid(".spec.replicas", "Invalid value: -1: should be a non-negative integer"),
      ];
      expectStatus("scale to -1", { code: scaled.code, body: scaled.json, warnings: [] }, {
        code: 422,
        reason: "Invalid",
        message: `${KIND}.${GROUP} "dial-gen" is invalid: [${
          scaleCauses.map((c) => `${c.field}: ${c.message}`).join(", ")
        }]`,
        causes: scaleCauses,
      });
      assert.equal(scaled.json.details.kind, KIND);
    },
  },
  {
    name:
      "managedFields: an applied preserve-unknown-fields map's nested objects are fields themselves; a new CRD's conditions list is no added container",
    async run({ client, noRetry, ns }) {
      const applied = await sendBody(
        noRetry,
        "PATCH",
        `${dials(ns)}/dial-applied`,
        dial("dial-applied", { spec: { size: 3, extra: { anything: { nested: [1, "two"] } } } }),
        "application/apply-patch+yaml",
        { fieldManager: "crd-objects" },
      );
      assert.equal(applied.code, 201, JSON.stringify(applied.json));
      const entry = applied.json.metadata.managedFields.find((e: Json) => e.manager === "crd-objects");
      assert.deepEqual(entry.fieldsV1["f:spec"], {
        "f:extra": { "f:anything": { ".": {}, "f:nested": {} } },
        "f:size": {},
      });
      const crd: Json = await eventually("Established", async () => {
        const got = await call(client, "GET", `${CRD_PATH}/${PLURAL}.${GROUP}`);
        const conditions: Json[] = got.body.status?.conditions ?? [];
        return conditions.some((c) => c.type === "Established" && c.status === "True") ? got.body : undefined;
      }, POLL);
      const status: Json = crd.metadata.managedFields.find((e: Json) => e.subresource === "status");
      assert.ok(status?.fieldsV1?.["f:status"]?.["f:conditions"], JSON.stringify(crd.metadata.managedFields));
      assert.equal(status.fieldsV1["f:status"]["f:conditions"]["."], undefined);
    },
  },
  {
    name:
      "a CRD update: an established CRD's scope and kind, any CRD's group and plural are immutable; a stored version stays in spec.versions",
    async run({ client }) {
      const path = `${CRD_PATH}/${PLURAL}.${GROUP}`;
      const current = (await call(client, "GET", path)).body;
      const moved = structuredClone(current);
      moved.spec.scope = "Cluster";
      moved.spec.group = `moved.${GROUP}`;
      moved.spec.names = { ...moved.spec.names, plural: "dialz", kind: "Dialz", listKind: "DialzList" };
      const immutable = (field: string, value: string) =>
        invalid(field, `Invalid value: "${value}": field is immutable`);
      expectStatus(
        "immutable fields",
        await call(client, "PUT", path, moved),
        crdInvalid(`${PLURAL}.${GROUP}`, [
          immutable("spec.scope", "Cluster"),
          immutable("spec.names.kind", "Dialz"),
          immutable("spec.group", `moved.${GROUP}`),
          immutable("spec.names.plural", "dialz"),
        ]),
      );
      const renamed = structuredClone(current);
      renamed.spec.versions[0].name = "v2";
      const detail =
        "missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions";
      expectStatus(
        "a stored version removed",
        await call(client, "PUT", path, renamed),
        crdInvalid(`${PLURAL}.${GROUP}`, [invalid("status.storedVersions[0]", `Invalid value: "v1": ${detail}`)]),
      );
    },
  },
  {
    name:
      "CRD validation in kube's order: the name <plural>.<group> rule, group, scope, versions, names, stored versions",
    async run({ noRetry }) {
      const post = async (body: Json) => {
        const got = await sendBody(noRetry, "POST", CRD_PATH, body);
        return { code: got.code, body: got.json, warnings: [] };
      };
      expectStatus(
        "an invalid name",
        await post(thingCrd("Bad_Name")),
        crdInvalid("Bad_Name", [
          invalid("metadata.name", `Invalid value: "Bad_Name": ${DNS1123}`),
          invalid("metadata.name", `Invalid value: "Bad_Name": ${NOT_PLURAL_GROUP}`),
          required("spec.group"),
          invalid("spec.names.plural", `Invalid value: "Bad_Name": ${DNS1035}`),
          invalid("spec.names.singular", `Invalid value: "Bad_Nam": ${DNS1035}`),
        ]),
      );
      const nameless = thingCrd("x");
      delete nameless.metadata.name;
      expectStatus("no name", await post(nameless), {
        ...crdInvalid("", [
          {
            reason: "FieldValueRequired",
            message: "Required value: name or generateName is required",
            field: "metadata.name",
          },
          required("spec.group"),
        ]),
      });
      const generated = thingCrd("x");
      delete generated.metadata.name;
      generated.metadata.generateName = "crdobj-gen-";
      const gen = await post(generated);
      assert.equal(gen.code, 422, JSON.stringify(gen.body));
      const name = String(gen.body.details.name);
      assert.match(name, /^crdobj-gen-[a-z0-9]{5}$/);
      assert.deepEqual(gen.body.details.causes, [
        invalid("metadata.generateName", `Invalid value: "crdobj-gen-": ${NOT_PLURAL_GROUP}`),
        invalid("metadata.name", `Invalid value: ${JSON.stringify(name)}: ${NOT_PLURAL_GROUP}`),
        required("spec.group"),
      ]);
      const specless = thingCrd(`thingsz.cz.${GROUP}`);
      delete specless.spec;
      expectStatus(
        "no spec",
        await post(specless),
        crdInvalid(specless.metadata.name, [
          invalid("metadata.name", `Invalid value: ${JSON.stringify(specless.metadata.name)}: ${NOT_PLURAL_GROUP}`),
          required("spec.group"),
          required("spec.scope"),
          invalid("spec.versions", "Invalid value: null: must have exactly one version marked as storage version"),
          required("spec.names.plural"),
          required("spec.names.singular"),
          required("spec.names.kind"),
          required("spec.names.listKind"),
          invalid("status.storedVersions", "Invalid value: null: must have at least one stored version"),
        ]),
      );
    },
  },
];
