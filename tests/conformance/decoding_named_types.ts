/**
 * Conformance cases: kube-apiserver's JSON decoder names Go's *named* types in a type error — `v1.SecretType`, not
 * `string` — at every level: a field's own type (`[]v1.IPFamily`, `v1.ResourceList`) and, for a wrong list item or
 * map value, the element's type (`v1.IPFamily`, `v1.Capability`).
 * @module
 */
import assert from "node:assert/strict";
import { type ConformanceCase, sendBody as send } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Asserts a 400 BadRequest whose message is `<Kind> in version "<version>" cannot be handled as a <Kind>: json: <why>`. */
function assertTypeError(res: { code: number; json: Any }, kind: string, version: string, why: string): void {
  assert.equal(res.code, 400, JSON.stringify(res.json));
  assert.equal(res.json.reason, "BadRequest");
  assert.equal(res.json.message, `${kind} in version "${version}" cannot be handled as a ${kind}: json: ${why}`);
}

/** A Pod named `name` with one container `container` (its name and image filled in) and `spec` fields. */
const pod = (name: string, spec: Any, container: Any = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "a", image: "x", ...container }], ...spec },
});

export const decodingNamedTypeCases: ConformanceCase[] = [
  {
    name: "a number for Secret.type (created or patched) and EndpointSlice.addressType: 'of type v1.SecretType' ...",
    async run({ noRetry, ns }) {
      const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "dec-named" }, type: 1 };
      assertTypeError(
        await send(noRetry, "POST", `/api/v1/namespaces/${ns}/secrets`, secret),
        "Secret",
        "v1",
        "cannot unmarshal number into Go struct field Secret.type of type v1.SecretType",
      );
      const made = await send(noRetry, "POST", `/api/v1/namespaces/${ns}/secrets`, { ...secret, type: undefined });
      assert.equal(made.code, 201, JSON.stringify(made.json));
      const patched = await send(
        noRetry,
        "PATCH",
        `/api/v1/namespaces/${ns}/secrets/dec-named`,
        '{"type":1}',
        "application/merge-patch+json",
      );
      assert.equal(patched.code, 422, JSON.stringify(patched.json));
      assert.ok(
        patched.json.message.endsWith(
          "json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType",
        ),
        patched.json.message,
      );
      const slice = {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: { name: "dec-named" },
        addressType: true,
        endpoints: [],
      };
      assertTypeError(
        await send(noRetry, "POST", `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, slice),
        "EndpointSlice",
        "v1",
        "cannot unmarshal bool into Go struct field EndpointSlice.addressType of type v1.AddressType",
      );
    },
  },
  {
    name: "a Service's spec.type and spec.ipFamilies: the list's type, then the item's type",
    async run({ noRetry, ns }) {
      const service = (spec: Any) => ({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "dec-named" },
        spec: { ports: [{ port: 80 }], ...spec },
      });
      const services = `/api/v1/namespaces/${ns}/services`;
      const field = "Go struct field ServiceSpec.spec";
      assertTypeError(
        await send(noRetry, "POST", services, service({ type: 1 })),
        "Service",
        "v1",
        `cannot unmarshal number into ${field}.type of type v1.ServiceType`,
      );
      assertTypeError(
        await send(noRetry, "POST", services, service({ ipFamilies: "IPv4" })),
        "Service",
        "v1",
        `cannot unmarshal string into ${field}.ipFamilies of type []v1.IPFamily`,
      );
      assertTypeError(
        await send(noRetry, "POST", services, service({ ipFamilies: [4] })),
        "Service",
        "v1",
        `cannot unmarshal number into ${field}.ipFamilies of type v1.IPFamily`,
      );
    },
  },
  {
    name: "a Pod's restartPolicy, imagePullPolicy, capabilities and resource limits name their Go types",
    async run({ noRetry, ns }) {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      const cases: [Any, string][] = [
        [
          pod("dec-named", { restartPolicy: 1 }),
          "number into Go struct field PodSpec.spec.restartPolicy of type " +
          "v1.RestartPolicy",
        ],
        [
          pod("dec-named", {}, { imagePullPolicy: false }),
          "bool into Go struct field Container.spec.containers." +
          "imagePullPolicy of type v1.PullPolicy",
        ],
        [
          pod("dec-named", {}, { securityContext: { capabilities: { add: [1] } } }),
          "number into Go struct field " +
          "Capabilities.spec.containers.securityContext.capabilities.add of type v1.Capability",
        ],
        [
          pod("dec-named", {}, { resources: { limits: "1" } }),
          "string into Go struct field " +
          "ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList",
        ],
      ];
      for (const [body, why] of cases) {
        assertTypeError(await send(noRetry, "POST", pods, body), "Pod", "v1", `cannot unmarshal ${why}`);
      }
      assert.equal((await noRetry.request("GET", `${pods}/dec-named`)).status, 404, "nothing stored");
    },
  },
  {
    name: "a map of a named list type (SubjectAccessReview spec.extra): the map's, the value's, then the item's type",
    async run({ noRetry }) {
      const review = (extra: Any) => ({
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user: "u", resourceAttributes: { verb: "get", resource: "pods" }, extra },
      });
      const reviews = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
      const field = "Go struct field SubjectAccessReviewSpec.spec.extra";
      const cases: [Any, string][] = [
        ["x", `string into ${field} of type map[string]v1.ExtraValue`],
        [{ a: "x" }, `string into ${field} of type v1.ExtraValue`],
        [{ a: [1] }, `number into ${field} of type string`],
      ];
      for (const [extra, why] of cases) {
        assertTypeError(
          await send(noRetry, "POST", reviews, review(extra)),
          "SubjectAccessReview",
          "v1",
          `cannot unmarshal ${why}`,
        );
      }
    },
  },
  {
    name: "a Namespace's spec.finalizers: []v1.FinalizerName, an item v1.FinalizerName",
    async run({ noRetry }) {
      const namespace = (finalizers: Any) => ({
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "dec-named-ns" },
        spec: { finalizers },
      });
      const field = "Go struct field NamespaceSpec.spec.finalizers";
      assertTypeError(
        await send(noRetry, "POST", "/api/v1/namespaces", namespace("kubernetes")),
        "Namespace",
        "v1",
        `cannot unmarshal string into ${field} of type []v1.FinalizerName`,
      );
      assertTypeError(
        await send(noRetry, "POST", "/api/v1/namespaces", namespace([1])),
        "Namespace",
        "v1",
        `cannot unmarshal number into ${field} of type v1.FinalizerName`,
      );
    },
  },
];
