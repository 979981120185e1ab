/**
 * Conformance cases: how kube-apiserver decodes a write's body. A JSON body is checked whole and its apiVersion/kind
 * read first (malformed JSON, an array, a string or an empty body: 400 `the object provided is unrecognized (must be
 * of type <Kind>): couldn't get version/kind; json parse error: <Go's error> (<first 30 bytes>)`); a built-in's body is
 * then decoded into its Go type, and a field holding the wrong JSON type is 400 `<Kind> in version "v1" cannot be
 * handled as a <Kind>: json: cannot unmarshal ...` (a patched object that does not decode: 422 on `patch`). Patches
 * that are not JSON are `invalid JSON patch`; a Content-Type no route consumes is 415.
 * @module
 */
import assert from "node:assert/strict";
import { type ConformanceCase, sendBody as send } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Asserts a 400 BadRequest (or `code`/`reason`) with exactly `message` and no details. */
function assertBad(res: { code: number; json: Any }, message: string, code = 400, reason = "BadRequest"): void {
  assert.equal(res.code, code, JSON.stringify(res.json));
  assert.equal(res.json.kind, "Status");
  assert.equal(res.json.reason, reason);
  assert.equal(res.json.message, message);
}

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const deploys = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const cm = (metadata: Any, extra: Any = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata, ...extra });
const asConfigMap = (why: string) => `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: ${why}`;
const asDeployment = (why: string) => `Deployment in version "v1" cannot be handled as a Deployment: json: ${why}`;
const TYPE_META =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
const unrecognized = (why: string, summary: string) =>
  `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ` +
  `${why} (${summary})`;

/** A Deployment whose spec is `spec` (not valid otherwise: the decode fails first). */
const deployment = (name: string, spec: Any) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec,
});

export const decodingCases: ConformanceCase[] = [
  {
    name: "a number or bool in metadata.labels: 400 'cannot unmarshal number into Go struct field ObjectMeta...'",
    async run({ noRetry, ns }) {
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-labels", labels: { a: 1 } })),
        asConfigMap("cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
      );
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-labels", labels: { a: true } })),
        asConfigMap("cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string"),
      );
      assert.equal((await noRetry.request("GET", `${cms(ns)}/dec-labels`)).status, 404, "nothing stored");
    },
  },
  {
    name: "wrong JSON types in a ConfigMap: an array for data, an object for a value, a string for metadata",
    async run({ noRetry, ns }) {
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-data" }, { data: [] })),
        asConfigMap("cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string"),
      );
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-data" }, { data: { a: { b: 1 } } })),
        asConfigMap("cannot unmarshal object into Go struct field ConfigMap.data of type string"),
      );
      assertBad(
        await send(noRetry, "POST", cms(ns), { apiVersion: "v1", kind: "ConfigMap", metadata: "x" }),
        asConfigMap("cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta"),
      );
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-data", finalizers: "a" })),
        asConfigMap("cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string"),
      );
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-data" }, { immutable: "yes" })),
        asConfigMap("cannot unmarshal string into Go struct field ConfigMap.immutable of type bool"),
      );
    },
  },
  {
    name: "integers: a string, a fraction or an int32 overflow is refused with the number as sent",
    async run({ noRetry, ns }) {
      assertBad(
        await send(noRetry, "POST", deploys(ns), deployment("dec-int", { replicas: "3" })),
        asDeployment("cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
      );
      assertBad(
        await send(noRetry, "POST", deploys(ns), deployment("dec-int", { replicas: 3000000000 })),
        asDeployment(
          "cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
      );
      assertBad(
        await send(noRetry, "POST", cms(ns), cm({ name: "dec-int", generation: 1.5 })),
        asConfigMap("cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64"),
      );
    },
  },
  {
    name: "nested structs and lists: the innermost struct, the JSON path without indices, Go's type names",
    async run({ noRetry, ns }) {
      assertBad(
        await send(noRetry, "POST", deploys(ns), deployment("dec-nest", { template: { spec: { containers: {} } } })),
        asDeployment(
          "cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
        ),
      );
      assertBad(
        await send(
          noRetry,
          "POST",
          deploys(ns),
          deployment("dec-nest", { template: { spec: { containers: [{ name: 1 }] } } }),
        ),
        asDeployment(
          "cannot unmarshal number into Go struct field Container.spec.template.spec.containers.name of type string",
        ),
      );
      assertBad(
        await send(
          noRetry,
          "POST",
          deploys(ns),
          deployment("dec-nest", { strategy: { rollingUpdate: { maxSurge: true } } }),
        ),
        asDeployment(
          "cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32",
        ),
      );
      assertBad(
        await send(noRetry, "POST", deploys(ns), deployment("dec-nest", [])),
        asDeployment("cannot unmarshal array into Go struct field Deployment.spec of type v1.DeploymentSpec"),
      );
    },
  },
  {
    name: "the first wrong field in document order is reported; a quantity that is not one has its own message",
    async run({ noRetry, ns }) {
      assertBad(
        await send(noRetry, "POST", cms(ns), {
          apiVersion: "v1",
          kind: "ConfigMap",
          data: { a: 2 },
          metadata: { labels: { a: 1 } },
        }),
        asConfigMap("cannot unmarshal number into Go struct field ConfigMap.data of type string"),
      );
      const pod = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "dec-qty" },
        spec: { containers: [{ name: "a", image: "x", resources: { limits: { cpu: true } } }] },
      };
      assertBad(
        await send(noRetry, "POST", `/api/v1/namespaces/${ns}/pods`, pod),
        'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression ' +
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      );
    },
  },
  {
    name: "a body naming another built-in kind is decoded as that kind first: its type error is reported",
    async run({ noRetry, ns }) {
      assertBad(
        await send(noRetry, "POST", cms(ns), { apiVersion: "v1", kind: "Secret", metadata: { name: 5 } }),
        'Secret in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ' +
          "ObjectMeta.metadata.name of type string",
      );
    },
  },
  {
    name: "an update (PUT) is decoded the same way",
    async run({ noRetry, ns }) {
      assert.equal((await send(noRetry, "POST", cms(ns), cm({ name: "dec-put" }))).code, 201);
      assertBad(
        await send(noRetry, "PUT", `${cms(ns)}/dec-put`, cm({ name: "dec-put" }, { data: { a: 1 } })),
        asConfigMap("cannot unmarshal number into Go struct field ConfigMap.data of type string"),
      );
      assertBad(
        await send(noRetry, "PUT", `${cms(ns)}/dec-put`, "[1]"),
        unrecognized(`json: cannot unmarshal array into Go value of type ${TYPE_META}`, "5b315d"),
      );
    },
  },
];
