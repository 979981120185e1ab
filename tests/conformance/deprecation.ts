/**
 * Conformance cases: the `Warning: 299` header kube-apiserver sends on every request to a deprecated API — a CRD
 * version marked `deprecated` (its `deprecationWarning`, or kube's text naming the highest-priority served version that
 * is not deprecated) and the deprecated built-in v1 Endpoints — errors and watches included, discovery excluded.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import { call, CRD_PATH, type Json, POLL } from "./crd_helpers.ts";
import type { ConformanceCase } from "./support.ts";

const GROUP = "deprecation.conformance.kubeop.dev";
const SCHEMA = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
const SUBRESOURCES = {
  status: {},
  scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
};

/** A CRD of kind `kind` with the given versions (the first is the storage version). */
function crdWith(kind: string, versions: Json[]): Json {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: versions.map((v, i) => ({ served: true, storage: i === 0, schema: SCHEMA, ...v })),
    },
  };
}

/** Creates `crd` and waits until `version` of it is served. */
async function install(client: Parameters<typeof call>[0], crd: Json, version: string): Promise<void> {
  const made = await call(client, "POST", CRD_PATH, crd);
  assert.equal(made.code, 201, JSON.stringify(made.body));
  await eventually(`${crd.metadata.name} served`, async () => {
    await client.request("GET", `/apis/${GROUP}/${version}/${crd.spec.names.plural}`, { throwOnError: true });
    return true;
  }, POLL);
}

/** Warnings on every request to a deprecated API. */
export const deprecationCases: ConformanceCase[] = [
  {
    name: "every request to a deprecated CRD version warns '<group>/<version> <Kind> is deprecated; use <newest>'",
    async run({ client, ns }) {
      const crd = crdWith("Relic", [
        { name: "v1", subresources: SUBRESOURCES },
        { name: "v1beta1", deprecated: true, subresources: SUBRESOURCES },
        { name: "v2alpha1" },
        { name: "v1alpha1", deprecated: true, deprecationWarning: "relics of v1alpha1 are going away" },
        { name: "v3", served: false },
      ]);
      await install(client, crd, "v1beta1");
      try {
        const base = `/apis/${GROUP}/v1beta1/namespaces/${ns}/relics`;
        const want = [`${GROUP}/v1beta1 Relic is deprecated; use ${GROUP}/v1 Relic`];
        const body = { apiVersion: `${GROUP}/v1beta1`, kind: "Relic", metadata: { name: "r" }, spec: { replicas: 1 } };
        const answers: Array<[string, Awaited<ReturnType<typeof call>>]> = [
          ["create", await call(client, "POST", base, body)],
          ["create again (409)", await call(client, "POST", base, body)],
          ["get", await call(client, "GET", `${base}/r`)],
          ["get missing (404)", await call(client, "GET", `${base}/missing`)],
          ["list", await call(client, "GET", base)],
          ["list all namespaces", await call(client, "GET", `/apis/${GROUP}/v1beta1/relics`)],
          ["watch", await call(client, "GET", base, undefined, "?watch=1&timeoutSeconds=1")],
          ["patch", await call(client, "PATCH", `${base}/r`, { spec: { replicas: 2 } })],
          ["status", await call(client, "PATCH", `${base}/r/status`, { status: { replicas: 2 } })],
          ["scale", await call(client, "GET", `${base}/r/scale`)],
          ["delete", await call(client, "DELETE", `${base}/r`)],
          ["delete collection", await call(client, "DELETE", base)],
        ];
        for (const [what, got] of answers) assert.deepEqual(got.warnings, want, `${what}: ${got.code}`);
        assert.deepEqual(answers.map(([, a]) => a.code), [201, 409, 200, 404, 200, 200, 200, 200, 200, 200, 200, 200]);
        const custom = await call(client, "GET", `/apis/${GROUP}/v1alpha1/namespaces/${ns}/relics`);
        assert.deepEqual(custom.warnings, ["relics of v1alpha1 are going away"]);
        for (const path of [`/apis/${GROUP}/v1/namespaces/${ns}/relics`, `/apis/${GROUP}/v2alpha1/relics`]) {
          assert.deepEqual((await call(client, "GET", path)).warnings, [], path);
        }
        // Discovery of the deprecated version does not warn.
        assert.deepEqual((await call(client, "GET", `/apis/${GROUP}/v1beta1`)).warnings, []);
      } finally {
        await call(client, "DELETE", `${CRD_PATH}/${crd.metadata.name}`);
      }
    },
  },
  {
    name: "a deprecated CRD version with no served version left undeprecated warns without a 'use'",
    async run({ client, ns }) {
      const crd = crdWith("Fossil", [{ name: "v1beta2", deprecated: true }, { name: "v1", served: false }]);
      await install(client, crd, "v1beta2");
      try {
        const got = await call(client, "GET", `/apis/${GROUP}/v1beta2/namespaces/${ns}/fossils`);
        assert.deepEqual(got.warnings, [`${GROUP}/v1beta2 Fossil is deprecated`]);
      } finally {
        await call(client, "DELETE", `${CRD_PATH}/${crd.metadata.name}`);
      }
    },
  },
  {
    name: "core v1 Endpoints warn on every request (EndpointSlices do not)",
    async run({ client, ns }) {
      const want = ["v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"];
      const base = `/api/v1/namespaces/${ns}/endpoints`;
      const answers = [
        await call(client, "POST", base, { metadata: { name: "dep-ep" } }),
        await call(client, "GET", `${base}/dep-ep`),
        await call(client, "GET", `${base}/missing`),
        await call(client, "GET", "/api/v1/endpoints"),
        await call(client, "DELETE", `${base}/dep-ep`),
      ];
      for (const got of answers) assert.deepEqual(got.warnings, want, String(got.code));
      const slices = await call(client, "GET", `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`);
      assert.deepEqual(slices.warnings, []);
    },
  },
];
