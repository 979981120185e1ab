/**
 * Conformance cases: unknown fields of built-in kinds. kube-apiserver decodes a built-in's body into its Go struct, so
 * a field the struct does not declare (at any depth, in lists and maps of structs; not inside map[string]string values
 * or raw JSON such as RawExtension) is never stored: dropped silently under `fieldValidation=Ignore`, reported as
 * `Warning: unknown field "<path>"` under `Warn` (the default), refused under `Strict` with 400 `strict decoding
 * error: ...` listing unknown and duplicate fields in document order. A patched object's unknown fields: 422 on
 * `patch` under Strict; a server-side apply body's: 500 `field not declared in schema`, whatever fieldValidation says.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { type ConformanceCase, type RawAnswer, sendBody as send } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function get(client: KubeClient, path: string): Promise<Any> {
  return JSON.parse(new TextDecoder().decode((await client.request("GET", path)).body));
}

function assertStatus(res: RawAnswer, code: number, reason: string | undefined, message: string): void {
  assert.equal(res.code, code, JSON.stringify(res.json));
  assert.equal(res.json.reason, reason);
  assert.equal(res.json.message, message);
}

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const deploys = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const strictCm = (errors: string) =>
  `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ${errors}`;
const MERGE = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const APPLY = "application/apply-patch+yaml";

/** A Deployment with unknown fields in a label selector's expression, a container, its resources and a port. */
const deploymentWithUnknown = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    selector: {
      matchLabels: { app: name },
      matchExpressions: [{ key: "app", operator: "In", values: [name], zz: 1 }],
    },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          { name: "a", image: "x" },
          {
            name: "b",
            image: "x",
            bogus: 1,
            resources: { limits: { cpu: "1" }, x: 1 },
            ports: [{ containerPort: 1, y: 2 }],
          },
        ],
      },
    },
  },
});
const DEPLOYMENT_UNKNOWN = [
  "spec.selector.matchExpressions[0].zz",
  "spec.template.spec.containers[1].bogus",
  "spec.template.spec.containers[1].resources.x",
  "spec.template.spec.containers[1].ports[0].y",
].map((p) => `unknown field "${p}"`);

export const decodingUnknownCases: ConformanceCase[] = [
  {
    name: "unknown fields of a built-in under Strict: 400 listing unknown and duplicate fields in document order",
    async run({ noRetry, ns }) {
      const body = '{"apiVersion":"v1","kind":"ConfigMap","bogus":null,"metadata":{"name":"unk-strict",' +
        '"name":"unk-strict","x":1},"data":{"a":"1","a":"2"},"q":1,"data":{},"Data":{}}';
      assertStatus(
        await send(noRetry, "POST", `${cms(ns)}?fieldValidation=Strict`, body),
        400,
        "BadRequest",
        strictCm(
          'unknown field "bogus", duplicate field "metadata.name", unknown field "metadata.x", duplicate field ' +
            '"data.a", unknown field "q", duplicate field "data", unknown field "Data"',
        ),
      );
      assertStatus(
        await send(noRetry, "POST", `${deploys(ns)}?fieldValidation=Strict`, deploymentWithUnknown("unk-strict")),
        400,
        "BadRequest",
        `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${
          DEPLOYMENT_UNKNOWN.join(", ")
        }`,
      );
      assert.equal((await noRetry.request("GET", `${cms(ns)}/unk-strict`)).status, 404, "nothing stored");
    },
  },
  {
    name: "unknown fields under Warn (the default) are warned about and dropped; under Ignore dropped silently",
    async run({ noRetry, ns }) {
      const cm = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "unk-warn", bogus: 1, ownerReferences: [] },
        bogus: 1,
        data: { x: "y" },
        zz: { q: 1 },
      };
      const warned = await send(noRetry, "POST", cms(ns), cm);
      assert.equal(warned.code, 201, JSON.stringify(warned.json));
      assert.deepEqual(warned.warnings, [
        'unknown field "metadata.bogus"',
        'unknown field "bogus"',
        'unknown field "zz"',
      ]);
      assert.equal(warned.json.bogus, undefined);
      const stored = await get(noRetry, `${cms(ns)}/unk-warn`);
      assert.deepEqual([stored.bogus, stored.zz, stored.metadata.bogus, stored.data], [
        undefined,
        undefined,
        undefined,
        {
          x: "y",
        },
      ]);
      const ignored = await send(
        noRetry,
        "POST",
        `${deploys(ns)}?fieldValidation=Ignore`,
        deploymentWithUnknown("unk-ignore"),
      );
      assert.equal(ignored.code, 201, JSON.stringify(ignored.json));
      assert.deepEqual(ignored.warnings, []);
      const containers = (await get(noRetry, `${deploys(ns)}/unk-ignore`)).spec.template.spec.containers;
      assert.equal(containers[1].bogus, undefined);
      assert.equal(containers[1].resources.x, undefined);
      assert.deepEqual(containers[1].resources.limits, { cpu: "1" });
      assert.equal(containers[1].ports[0].y, undefined);
    },
  },
  {
    name: "map[string]string values and raw JSON hold no unknown fields; an empty struct's fields are all unknown",
    async run({ noRetry, ns }) {
      const revision = {
        apiVersion: "apps/v1",
        kind: "ControllerRevision",
        metadata: { name: "unk-raw", labels: { anything: "goes" } },
        revision: 1,
        data: { zz: 1, spec: { q: [1] } },
        q: 1,
      };
      assertStatus(
        await send(
          noRetry,
          "POST",
          `/apis/apps/v1/namespaces/${ns}/controllerrevisions?fieldValidation=Strict`,
          revision,
        ),
        400,
        "BadRequest",
        'ControllerRevision in version "v1" cannot be handled as a ControllerRevision: strict decoding error: ' +
          'unknown field "q"',
      );
      const crd = {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "unknowns.unk.conformance.kubeop.dev" },
        spec: {
          group: "unk.conformance.kubeop.dev",
          names: { plural: "unknowns", kind: "Unknown" },
          scope: "Namespaced",
          versions: [{
            name: "v1",
            served: true,
            storage: true,
            subresources: { status: { zz: 1 } },
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { foo: { type: "string", bogus: 1 }, bar: { type: "object", default: { qq: 1 } } },
              },
            },
          }],
        },
      };
      assertStatus(
        await send(
          noRetry,
          "POST",
          "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict",
          crd,
        ),
        400,
        "BadRequest",
        'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding ' +
          'error: unknown field "spec.versions[0].subresources.status.zz", unknown field ' +
          '"spec.versions[0].schema.openAPIV3Schema.properties.foo.bogus"',
      );
    },
  },
  {
    name: "an update (PUT) drops, warns about or refuses unknown fields the same way",
    async run({ noRetry, ns }) {
      const path = `${cms(ns)}/unk-put`;
      assert.equal((await send(noRetry, "POST", cms(ns), { metadata: { name: "unk-put" } })).code, 201);
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "unk-put", zz: 1 }, bogus: 1 };
      assertStatus(
        await send(noRetry, "PUT", `${path}?fieldValidation=Strict`, body),
        400,
        "BadRequest",
        strictCm('unknown field "metadata.zz", unknown field "bogus"'),
      );
      const warned = await send(noRetry, "PUT", path, body);
      assert.equal(warned.code, 200, JSON.stringify(warned.json));
      assert.deepEqual(warned.warnings, ['unknown field "metadata.zz"', 'unknown field "bogus"']);
      const stored = await get(noRetry, path);
      assert.deepEqual([stored.bogus, stored.metadata.zz], [undefined, undefined]);
    },
  },
  {
    name: "a patched object with unknown fields: Strict is 422 on 'patch' (keys sorted), Warn warns, nothing is stored",
    async run({ noRetry, ns }) {
      const path = `${cms(ns)}/unk-patch`;
      assert.equal((await send(noRetry, "POST", cms(ns), { metadata: { name: "unk-patch" } })).code, 201);
      const patch = '{"zzz":1,"metadata":{"aaa":1},"binaryData":{"k":"YQ=="},"aab":{"c":1}}';
      const errors = 'strict decoding error: unknown field "aab", unknown field "metadata.aaa", unknown field "zzz"';
      const smp = await send(noRetry, "PATCH", `${path}?fieldValidation=Strict`, patch, STRATEGIC);
      const value = "map[aab:map[c:1] binaryData:map[k:YQ==] metadata:map[aaa:1] zzz:1]";
      assertStatus(smp, 422, "Invalid", ` "" is invalid: patch: Invalid value: "${value}": ${errors}`);
      assert.deepEqual(smp.json.details.causes, [{
        reason: "FieldValueInvalid",
        message: `Invalid value: "${value}": ${errors}`,
        field: "patch",
      }]);
      for (const type of [MERGE, JSON_PATCH]) {
        const body = type === MERGE
          ? patch
          : '[{"op":"add","path":"/zzz","value":1},{"op":"add","path":"/metadata/aaa","value":1},' +
            '{"op":"add","path":"/aab","value":{"c":1}}]';
        const res = await send(noRetry, "PATCH", `${path}?fieldValidation=Strict`, body, type);
        assert.equal(res.code, 422, JSON.stringify(res.json));
        assert.ok(res.json.message.startsWith(' "" is invalid: patch: Invalid value: "{'), res.json.message);
        assert.ok(res.json.message.endsWith(`}": ${errors}`), res.json.message);
      }
      for (const type of [MERGE, STRATEGIC]) {
        const warned = await send(noRetry, "PATCH", path, patch, type);
        assert.equal(warned.code, 200, JSON.stringify(warned.json));
        assert.deepEqual(warned.warnings, [
          'unknown field "aab"',
          'unknown field "metadata.aaa"',
          'unknown field "zzz"',
        ]);
      }
      const ignored = await send(noRetry, "PATCH", `${path}?fieldValidation=Ignore`, patch, MERGE);
      assert.deepEqual([ignored.code, ignored.warnings], [200, []]);
      const stored = await get(noRetry, path);
      assert.deepEqual([stored.zzz, stored.aab, stored.metadata.aaa, stored.binaryData], [
        undefined,
        undefined,
        undefined,
        {
          k: "YQ==",
        },
      ]);
    },
  },
  {
    name: "server-side apply with an unknown field: 500 'field not declared in schema' under every fieldValidation",
    async run({ noRetry, ns }) {
      for (const validation of ["Strict", "Warn", "Ignore"]) {
        const applied = {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "unk-apply" },
          data: { a: "b" },
          bogus: 1,
        };
        const res = await send(
          noRetry,
          "PATCH",
          `${cms(ns)}/unk-apply?fieldManager=m&fieldValidation=${validation}`,
          applied,
          APPLY,
        );
        assertStatus(
          res,
          500,
          undefined,
          "failed to create typed patch object (/unk-apply; /v1, Kind=ConfigMap): .bogus: field not declared in schema",
        );
      }
      assert.equal((await noRetry.request("GET", `${cms(ns)}/unk-apply`)).status, 404, "nothing stored");
      const deployment = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "unk-apply", namespace: ns },
        spec: {
          selector: { matchLabels: { a: "b" } },
          template: {
            metadata: { labels: { a: "b" } },
            spec: { containers: [{ name: "c", image: "x", ports: [{ containerPort: 80, protocol: "TCP", q: 1 }] }] },
          },
        },
      };
      assertStatus(
        await send(noRetry, "PATCH", `${deploys(ns)}/unk-apply?fieldManager=m`, deployment, APPLY),
        500,
        undefined,
        `failed to create typed patch object (${ns}/unk-apply; apps/v1, Kind=Deployment): ` +
          '.spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].q: field not declared in schema',
      );
    },
  },
];
