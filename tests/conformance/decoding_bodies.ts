/**
 * Conformance cases: bodies that are not a JSON object (malformed JSON, arrays, strings, empty, null, a non-string
 * kind), Content-Types no route consumes, and patches whose result does not decode — as kube-apiserver v1.37 answers
 * them (decoding.ts has the typed-field cases).
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { eventually } from "../../testing/eventually.ts";
import { withObjects } from "./admission_webhooks_support.ts";
import { CRD_PATH } from "./crd_helpers.ts";
import { type ConformanceCase, POLL, sendBody as send } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function assertStatus(res: { code: number; json: Any }, code: number, reason: string, message: string): void {
  assert.equal(res.code, code, JSON.stringify(res.json));
  assert.equal(res.json.kind, "Status");
  assert.equal(res.json.reason, reason);
  assert.equal(res.json.message, message);
}

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const TYPE_META =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
const unrecognized = (why: string, summary: string) =>
  `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ` +
  `${why} (${summary})`;
const MERGE = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";

/** Creates ConfigMap `name` in `ns`. */
async function made(client: KubeClient, ns: string, name: string): Promise<void> {
  const res = await send(client, "POST", cms(ns), JSON.stringify({ metadata: { name }, data: { a: "1" } }));
  assert.equal(res.code, 201, JSON.stringify(res.json));
}

const DGROUP = "decoding.conformance.kubeop.dev";

/** A namespaced CRD `decoders.<DGROUP>` (kind Decoder) keeping any field. */
const DECODER_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `decoders.${DGROUP}` },
  spec: {
    group: DGROUP,
    scope: "Namespaced",
    names: { plural: "decoders", kind: "Decoder" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }],
  },
};

export const decodingBodyCases: ConformanceCase[] = [
  {
    name:
      "a custom resource body: no kind, another apiVersion (or none), another kind, null — in the CR decoder's words",
    async run({ noRetry, ns }) {
      await withObjects(noRetry, [[CRD_PATH, DECODER_CRD]], async () => {
        const path = `/apis/${DGROUP}/v1/namespaces/${ns}/decoders`;
        await eventually("decoders served", async () => (await noRetry.request("GET", path)).status === 200, POLL);
        const kindMissing = (text: string, summary: string) =>
          `the object provided is unrecognized (must be of type Decoder): Object 'Kind' is missing in '${text}' ` +
          `(${summary})`;
        assertStatus(await send(noRetry, "POST", path, "null"), 400, "BadRequest", kindMissing("null", "6e756c6c"));
        const noKind = JSON.stringify({ apiVersion: `${DGROUP}/v1`, metadata: { name: "d" } });
        assertStatus(
          await send(noRetry, "POST", path, noKind),
          400,
          "BadRequest",
          kindMissing(noKind, `${noKind.slice(0, 30)} ...`),
        );
        const versionMismatch = (v: string) =>
          `the API version in the data (${v}) does not match the expected API version (${DGROUP}/v1)`;
        for (const apiVersion of [undefined, `${DGROUP}/v2`, "other.example.com/v1"]) {
          const body = JSON.stringify({ apiVersion, kind: "Decoder", metadata: { name: "d" } });
          assertStatus(await send(noRetry, "POST", path, body), 400, "BadRequest", versionMismatch(apiVersion ?? ""));
        }
        const other = await send(
          noRetry,
          "POST",
          path,
          JSON.stringify({ apiVersion: `${DGROUP}/v1`, kind: "Other", metadata: { name: "d" } }),
        );
        assertStatus(
          other,
          422,
          "Invalid",
          `Other.${DGROUP} "d" is invalid: kind: Invalid value: "Other": must be Decoder`,
        );
        assert.deepEqual(other.json.details, {
          name: "d",
          group: DGROUP,
          kind: "Other",
          causes: [{ reason: "FieldValueInvalid", message: 'Invalid value: "Other": must be Decoder', field: "kind" }],
        });
      });
    },
  },
  {
    name: "malformed JSON: Go's syntax error and the body's first 30 bytes",
    async run({ noRetry, ns }) {
      const cases: Array<[string, string, string]> = [
        ['{"apiVersion":"v1",', "unexpected end of JSON input", '{"apiVersion":"v1",'],
        [
          '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"q"}} x',
          "invalid character 'x' after top-level value",
          '{"apiVersion":"v1","kind":"Con ...',
        ],
        [
          '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"q"},}',
          "invalid character '}' looking for beginning of object key string",
          '{"apiVersion":"v1","kind":"Con ...',
        ],
        [
          '{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"\\x"}}',
          "invalid character 'x' in string escape code",
          '{"apiVersion":"v1","kind":"Con ...',
        ],
      ];
      for (const [body, why, summary] of cases) {
        assertStatus(await send(noRetry, "POST", cms(ns), body), 400, "BadRequest", unrecognized(why, summary));
      }
    },
  },
  {
    name: "a body that is not an object: an array, a string, a number (hex summary), empty; null is an empty object",
    async run({ noRetry, ns }) {
      const notObject = (what: string) => `json: cannot unmarshal ${what} into Go value of type ${TYPE_META}`;
      assertStatus(
        await send(noRetry, "POST", cms(ns), "[1]"),
        400,
        "BadRequest",
        unrecognized(notObject("array"), "5b315d"),
      );
      assertStatus(
        await send(noRetry, "POST", cms(ns), '"x"'),
        400,
        "BadRequest",
        unrecognized(notObject("string"), "227822"),
      );
      assertStatus(
        await send(noRetry, "POST", cms(ns), "5"),
        400,
        "BadRequest",
        unrecognized(notObject("number"), "35"),
      );
      assertStatus(
        await send(noRetry, "POST", cms(ns), ""),
        400,
        "BadRequest",
        unrecognized("unexpected end of JSON input", "<empty>"),
      );
      assertStatus(
        await send(noRetry, "POST", cms(ns), "null"),
        422,
        "Invalid",
        'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      );
    },
  },
  {
    name: "apiVersion or kind that is not a string fails the version/kind read",
    async run({ noRetry, ns }) {
      assertStatus(
        await send(noRetry, "POST", cms(ns), '{"apiVersion":"v1","kind":5}'),
        400,
        "BadRequest",
        unrecognized(
          "json: cannot unmarshal number into Go struct field .kind of type string",
          '{"apiVersion":"v1","kind":5}',
        ),
      );
    },
  },
  {
    name:
      "text/plain: 415 with the accepted types on POST and PUT, go-restful's '415: Unsupported Media Type' on PATCH",
    async run({ noRetry, ns }) {
      await made(noRetry, ns, "dec-plain");
      const accepted = "the body of the request was in an unknown format - accepted media types include: " +
        "application/json, application/yaml, application/vnd.kubernetes.protobuf";
      const put = await send(noRetry, "PUT", `${cms(ns)}/dec-plain`, "x", "text/plain");
      assertStatus(put, 415, "UnsupportedMediaType", accepted);
      assert.equal(put.json.details, undefined);
      const patch = await send(noRetry, "PATCH", `${cms(ns)}/dec-plain`, "x", "text/plain");
      assertStatus(patch, 415, "UnsupportedMediaType", "415: Unsupported Media Type");
      assert.deepEqual(patch.json.details, {});
    },
  },
  {
    name: "a merge, JSON or strategic merge patch that is not JSON (or empty) is 400 'invalid JSON patch'",
    async run({ noRetry, ns }) {
      await made(noRetry, ns, "dec-badpatch");
      for (
        const [type, body] of [[MERGE, ""], [MERGE, "{"], [JSON_PATCH, '{"op":1'], [JSON_PATCH, ""], [STRATEGIC, "{"]]
      ) {
        assertStatus(
          await send(noRetry, "PATCH", `${cms(ns)}/dec-badpatch`, body, type),
          400,
          "BadRequest",
          "invalid JSON patch",
        );
      }
    },
  },
  {
    name: "a merge or JSON patch whose result does not decode: 422 on 'patch' with the patched object and Go's error",
    async run({ noRetry, ns }) {
      await made(noRetry, ns, "dec-patched");
      const path = `${cms(ns)}/dec-patched`;
      const expect = (res: { code: number; json: Any }, why: string, holds: string) => {
        assert.equal(res.code, 422, JSON.stringify(res.json));
        assert.equal(res.json.reason, "Invalid");
        const cause = res.json.details?.causes?.[0];
        assert.equal(cause?.field, "patch");
        assert.equal(cause?.reason, "FieldValueInvalid");
        assert.ok(cause.message.startsWith('Invalid value: "{\\"apiVersion\\":\\"v1\\",'), cause.message);
        assert.ok(cause.message.endsWith(`": json: ${why}`), cause.message);
        assert.ok(cause.message.includes(holds), cause.message);
        assert.equal(res.json.message, ` "" is invalid: patch: ${cause.message}`);
      };
      expect(
        await send(noRetry, "PATCH", path, '{"metadata":{"labels":{"a":1}}}', MERGE),
        "cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
        '\\"labels\\":{\\"a\\":1}',
      );
      expect(
        await send(noRetry, "PATCH", path, '[{"op":"add","path":"/data","value":[1]}]', JSON_PATCH),
        "cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string",
        '\\"data\\":[1]',
      );
      const got = await noRetry.request("GET", path);
      const stored = JSON.parse(new TextDecoder().decode(got.body));
      assert.deepEqual(stored.data, { a: "1" }, "nothing stored");
      assert.equal(stored.metadata.labels, undefined);
    },
  },
  {
    name: "a merge patch's refused object: what the patch reached re-marshalled with sorted keys, the rest as stored",
    async run({ noRetry, ns }) {
      await made(noRetry, ns, "dec-sorted");
      const path = `${cms(ns)}/dec-sorted`;
      const stored = JSON.parse(new TextDecoder().decode((await noRetry.request("GET", path)).body));
      const m = stored.metadata;
      const object = `{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"creationTimestamp":` +
        `${JSON.stringify(m.creationTimestamp)},"labels":{"z":2},"managedFields":${JSON.stringify(m.managedFields)},` +
        `"name":"dec-sorted","namespace":"${ns}","resourceVersion":"${m.resourceVersion}","uid":"${m.uid}"}}`;
      const res = await send(noRetry, "PATCH", path, '{"metadata":{"labels":{"z":2}}}', MERGE);
      assert.equal(
        res.json.details?.causes?.[0]?.message,
        `Invalid value: ${JSON.stringify(object)}: json: cannot unmarshal number into Go struct field ` +
          "ObjectMeta.metadata.labels of type string",
      );
    },
  },
];
