/**
 * Conformance cases: HTTP and discovery surface: content negotiation (406), methods a path does not serve (405),
 * unknown paths (404 Status or the mux's plain-text 404), HEAD, what /api/v1 and /apis advertise (and that it is
 * served), and the core/v1 OpenAPI v3 schemas kubectl explain reads.
 * @module
 */
import assert from "node:assert/strict";
import type { KubeClient } from "../../runtime/client/client.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import type { ConformanceCase } from "./support.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A raw request: code, Content-Type and body text. */
async function call(
  client: KubeClient,
  method: string,
  path: string,
  opts: { accept?: string; body?: unknown; contentType?: string } = {},
): Promise<{ code: number; type: string; text: string }> {
  const res = await client.request(method, path, {
    accept: opts.accept,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    contentType: opts.contentType,
  });
  return {
    code: res.status,
    type: res.headers.get("content-type") ?? "",
    text: new TextDecoder().decode(res.body),
  };
}

/** Asserts a Failure Status with this code, reason and message. */
function assertStatus(res: { code: number; text: string }, code: number, reason: string, message: string) {
  assert.equal(res.code, code, res.text);
  const status = JSON.parse(res.text);
  assert.equal(status.kind, "Status");
  assert.equal(status.code, code);
  assert.equal(status.reason, reason);
  assert.equal(status.message, message);
}

const NOT_ALLOWED = "the server does not allow this method on the requested resource";
const NOT_FOUND = "the server could not find the requested resource";
const OBJECT_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf";
const notAcceptable = (types: string) => `406: Not Acceptable\n\nAvailable representations: ${types}`;

async function configMap(client: KubeClient, ns: string, name: string): Promise<void> {
  await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name, namespace: ns }, data: { a: "1" } }, {
    namespace: ns,
  });
}

/** HTTP and discovery surface. */
export const httpCases: ConformanceCase[] = [
  {
    name: "Accept application/xml on an object is 406 NotAcceptable naming json, yaml and protobuf",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "http-xml");
      const res = await call(noRetry, "GET", `/api/v1/namespaces/${ns}/configmaps/http-xml`, {
        accept: "application/xml",
      });
      assertStatus(res, 406, "NotAcceptable", notAcceptable(OBJECT_TYPES));
      // Also before the object is looked up, and for writes.
      const missing = await call(noRetry, "GET", `/api/v1/namespaces/${ns}/configmaps/none`, { accept: "text/html" });
      assertStatus(missing, 406, "NotAcceptable", notAcceptable(OBJECT_TYPES));
      const create = await call(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, {
        accept: "application/xml",
        body: { metadata: { name: "http-xml-2" } },
      });
      assertStatus(create, 406, "NotAcceptable", notAcceptable(OBJECT_TYPES));
    },
  },
  {
    name: "Accept application/xml on a collection is 406 naming the watch stream types too",
    async run({ noRetry, ns }) {
      const res = await call(noRetry, "GET", `/api/v1/namespaces/${ns}/configmaps`, { accept: "application/xml" });
      assertStatus(
        res,
        406,
        "NotAcceptable",
        notAcceptable(
          `${OBJECT_TYPES}, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch`,
        ),
      );
    },
  },
  {
    name: "an Accept list with an acceptable fallback is served as JSON",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "http-fallback");
      const res = await call(noRetry, "GET", `/api/v1/namespaces/${ns}/configmaps/http-fallback`, {
        accept: "application/xml, application/json;q=0.9",
      });
      assert.equal(res.code, 200, res.text);
      assert.match(res.type, /^application\/json/);
      assert.equal(JSON.parse(res.text).kind, "ConfigMap");
      const any = await call(noRetry, "GET", `/api/v1/namespaces/${ns}/configmaps/http-fallback`, { accept: "*/*" });
      assert.equal(any.code, 200);
    },
  },
  {
    name: "discovery documents answer 406 to XML; /version offers only JSON",
    async run({ noRetry }) {
      for (const path of ["/api", "/api/v1", "/apis/apps/v1"]) {
        assertStatus(
          await call(noRetry, "GET", path, { accept: "application/xml" }),
          406,
          "NotAcceptable",
          notAcceptable(OBJECT_TYPES),
        );
      }
      // /apis and /apis/<group> negotiate in the discovery handler, worded differently.
      for (const path of ["/apis", "/apis/apps"]) {
        assertStatus(
          await call(noRetry, "GET", path, { accept: "application/xml" }),
          406,
          "NotAcceptable",
          `only the following media types are accepted: ${OBJECT_TYPES}`,
        );
      }
      assertStatus(
        await call(noRetry, "GET", "/version", { accept: "application/xml" }),
        406,
        "NotAcceptable",
        notAcceptable("application/json"),
      );
    },
  },
  {
    name: "HEAD is 405 on resources, /api, group versions and /version; /apis, /apis/<group> and OpenAPI answer it",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "http-head");
      for (const path of [`/api/v1/namespaces/${ns}/configmaps/http-head`, `/api/v1/namespaces/${ns}/configmaps`]) {
        assert.equal((await call(noRetry, "HEAD", path)).code, 405, path);
      }
      for (const path of ["/api", "/api/v1", "/apis/apps/v1", "/version"]) {
        assert.equal((await call(noRetry, "HEAD", path)).code, 405, path);
      }
      for (const path of ["/apis", "/apis/apps", "/openapi/v3"]) {
        assert.equal((await call(noRetry, "HEAD", path)).code, 200, path);
      }
    },
  },
  {
    name: "PUT or PATCH on a collection, POST on a named object is 405 MethodNotAllowed",
    async run({ noRetry, ns }) {
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const body = { metadata: { name: "http-405" } };
      assertStatus(await call(noRetry, "PUT", base, { body }), 405, "MethodNotAllowed", NOT_ALLOWED);
      assertStatus(
        await call(noRetry, "PATCH", base, { body: {}, contentType: "application/merge-patch+json" }),
        405,
        "MethodNotAllowed",
        NOT_ALLOWED,
      );
      assertStatus(await call(noRetry, "POST", `${base}/http-405`, { body }), 405, "MethodNotAllowed", NOT_ALLOWED);
    },
  },
  {
    name: "an unserved verb on an existing resource is 405: deletecollection of namespaces, get of a review",
    async run({ noRetry }) {
      assertStatus(await call(noRetry, "DELETE", "/api/v1/namespaces"), 405, "MethodNotAllowed", NOT_ALLOWED);
      assertStatus(
        await call(noRetry, "GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
        405,
        "MethodNotAllowed",
        NOT_ALLOWED,
      );
    },
  },
  {
    name: "writes to discovery paths and /version are 405 MethodNotAllowed",
    async run({ noRetry }) {
      assertStatus(await call(noRetry, "POST", "/api/v1", { body: {} }), 405, "MethodNotAllowed", NOT_ALLOWED);
      assertStatus(await call(noRetry, "POST", "/apis/apps/v1", { body: {} }), 405, "MethodNotAllowed", NOT_ALLOWED);
      assertStatus(await call(noRetry, "DELETE", "/version"), 405, "MethodNotAllowed", NOT_ALLOWED);
    },
  },
  {
    name: "an unknown resource, subresource or version of a served group is a 404 Status with the generic message",
    async run({ noRetry, ns }) {
      await configMap(noRetry, ns, "http-404");
      for (
        const path of [
          `/api/v1/namespaces/${ns}/bogus`,
          "/api/v1/bogus",
          `/api/v1/namespaces/${ns}/configmaps/http-404/status`,
          `/api/v1/namespaces/${ns}/configmaps/http-404/status/extra`,
          "/apis/apps/v9/deployments",
          "/apis/apps/v1/bogus",
        ]
      ) {
        assertStatus(await call(noRetry, "GET", path), 404, "NotFound", NOT_FOUND);
      }
    },
  },
  {
    name: "a path outside every served group is the mux's plain-text 404 page not found",
    async run({ noRetry }) {
      for (const path of ["/apis/nope.example.com/v1/things", "/apis/nope.example.com", "/foo/bar"]) {
        const res = await call(noRetry, "GET", path);
        assert.equal(res.code, 404, path);
        assert.match(res.type, /^text\/plain/);
        assert.equal(res.text, "404 page not found\n");
      }
    },
  },
  {
    name: "415 UnsupportedMediaType for a create body in an unknown format",
    async run({ noRetry, ns }) {
      const res = await call(noRetry, "POST", `/api/v1/namespaces/${ns}/configmaps`, {
        body: { metadata: { name: "http-415" } },
        contentType: "text/plain",
      });
      assertStatus(
        res,
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: ${OBJECT_TYPES}`,
      );
    },
  },
  {
    name: "/api/v1 and /apis advertise the core resources and built-in groups of a v1.37 server",
    async run({ noRetry }) {
      const core = JSON.parse((await call(noRetry, "GET", "/api/v1")).text);
      const names = new Set(core.resources.map((r: Any) => r.name));
      for (
        const n of [
          "configmaps",
          "endpoints",
          "events",
          "limitranges",
          "namespaces",
          "nodes",
          "persistentvolumeclaims",
          "persistentvolumes",
          "pods",
          "podtemplates",
          "replicationcontrollers",
          "resourcequotas",
          "secrets",
          "serviceaccounts",
          "services",
        ]
      ) assert.ok(names.has(n), `/api/v1 advertises ${n}`);
      const groups = JSON.parse((await call(noRetry, "GET", "/apis")).text).groups;
      const preferred = new Map(groups.map((g: Any) => [g.name, g.preferredVersion.version]));
      const expected: Record<string, [string, string[]]> = {
        "apps": ["v1", ["controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"]],
        "autoscaling": ["v2", ["horizontalpodautoscalers"]],
        "batch": ["v1", ["cronjobs", "jobs"]],
        "networking.k8s.io": ["v1", ["ingressclasses", "ingresses", "networkpolicies"]],
        "policy": ["v1", ["poddisruptionbudgets"]],
        "storage.k8s.io": ["v1", ["csidrivers", "csinodes", "storageclasses", "volumeattachments"]],
        "scheduling.k8s.io": ["v1", ["priorityclasses"]],
        "node.k8s.io": ["v1", ["runtimeclasses"]],
        "discovery.k8s.io": ["v1", ["endpointslices"]],
        "admissionregistration.k8s.io": ["v1", [
          "mutatingwebhookconfigurations",
          "validatingadmissionpolicies",
          "validatingadmissionpolicybindings",
          "validatingwebhookconfigurations",
        ]],
        "coordination.k8s.io": ["v1", ["leases"]],
        "rbac.authorization.k8s.io": ["v1", ["clusterrolebindings", "clusterroles", "rolebindings", "roles"]],
      };
      for (const [group, [version, resources]] of Object.entries(expected)) {
        assert.equal(preferred.get(group), version, `${group} preferred version`);
        const list = JSON.parse((await call(noRetry, "GET", `/apis/${group}/${version}`)).text);
        const served = new Set(list.resources.map((r: Any) => r.name));
        for (const r of resources) assert.ok(served.has(r), `${group}/${version} advertises ${r}`);
      }
    },
  },
  {
    name: "every listable resource /api/v1 and the preferred group versions advertise answers a list",
    async run({ noRetry }) {
      const targets: string[] = ["/api/v1"];
      for (const g of JSON.parse((await call(noRetry, "GET", "/apis")).text).groups as Any[]) {
        targets.push(`/apis/${g.preferredVersion.groupVersion}`);
      }
      const failures: string[] = [];
      for (const base of targets) {
        const doc = await call(noRetry, "GET", base);
        if (doc.code !== 200) continue; // an unavailable APIService's group
        for (const r of JSON.parse(doc.text).resources as Any[]) {
          if (r.name.includes("/") || !r.verbs.includes("list")) continue;
          const res = await call(noRetry, "GET", `${base}/${r.name}?limit=1`);
          if (res.code !== 200) failures.push(`${base}/${r.name}: ${res.code}`);
        }
      }
      assert.deepEqual(failures, []);
    },
  },
  {
    name: "OpenAPI v3: the core/v1 ConfigMap schema has data, binaryData and immutable (kubectl explain)",
    async run({ noRetry }) {
      const index = JSON.parse((await call(noRetry, "GET", "/openapi/v3")).text);
      const url = index.paths["api/v1"].serverRelativeURL;
      assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
      const doc = JSON.parse((await call(noRetry, "GET", url)).text);
      const cm = doc.components.schemas["io.k8s.api.core.v1.ConfigMap"];
      assert.deepEqual(Object.keys(cm.properties).sort(), [
        "apiVersion",
        "binaryData",
        "data",
        "immutable",
        "kind",
        "metadata",
      ]);
      assert.deepEqual(cm.properties.data.additionalProperties, { type: "string" });
      assert.equal(cm.properties.binaryData.additionalProperties.format, "byte");
      assert.deepEqual(cm["x-kubernetes-group-version-kind"], [{ group: "", kind: "ConfigMap", version: "v1" }]);
      const secret = doc.components.schemas["io.k8s.api.core.v1.Secret"];
      assert.ok(["data", "immutable", "stringData", "type"].every((f) => f in secret.properties));
    },
  },
];
