/**
 * Conformance cases: Discovery and aggregation: aggregated discovery v2 and APIService availability.
 * @module
 */
import assert from "node:assert/strict";
import type { APIService as APIServiceObject } from "../../runtime/builtin_types.ts";
import { isInvalid } from "../../runtime/client/errors.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { eventually } from "../../testing/eventually.ts";
import { type ConformanceCase, expectError, POLL, Widget } from "./support.ts";

/** Discovery and aggregation: aggregated discovery v2 and APIService availability. */
export const discoveryCases: ConformanceCase[] = [
  {
    name: "aggregated discovery v2 for /api and /apis, CRD groups included",
    async run({ client }) {
      const accept =
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
      const fetchDoc = async (path: string) => {
        const res = await client.request("GET", path, { accept, throwOnError: true });
        const params = new Set((res.headers.get("content-type") ?? "").split(";").map((p) => p.trim()));
        for (const p of ["application/json", "g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"]) {
          assert.ok(params.has(p), `${path} Content-Type has ${p}: ${res.headers.get("content-type")}`);
        }
        return JSON.parse(new TextDecoder().decode(res.body));
      };
      const core = await fetchDoc("/api");
      assert.equal(core.kind, "APIGroupDiscoveryList");
      assert.equal(core.apiVersion, "apidiscovery.k8s.io/v2");
      assert.equal(core.items.length, 1);
      assert.equal(core.items[0].metadata.name ?? "", "");
      const v1 = core.items[0].versions[0];
      assert.equal(v1.version, "v1");
      assert.equal(v1.freshness, "Current");
      const pods = v1.resources.find((r: { resource: string }) => r.resource === "pods");
      assert.deepEqual(
        pods.responseKind,
        { group: "", version: "", kind: "Pod" },
        "built-ins leave group/version empty",
      );
      assert.equal(pods.scope, "Namespaced");
      assert.equal(pods.singularResource, "pod");
      assert.deepEqual(pods.shortNames, ["po"]);
      const status = pods.subresources.find((r: { subresource: string }) => r.subresource === "status");
      assert.deepEqual(status.verbs, ["get", "patch", "update"]);
      const namespaces = v1.resources.find((r: { resource: string }) => r.resource === "namespaces");
      assert.equal(namespaces.scope, "Cluster");
      const finalize = namespaces.subresources.find((r: { subresource: string }) => r.subresource === "finalize");
      assert.deepEqual(finalize.verbs, ["update"]);
      const widgets = await eventually("CRD in aggregated discovery", async () => {
        const apis = await fetchDoc("/apis");
        assert.ok(apis.items.every((g: { metadata: { name: string } }) => g.metadata.name !== ""), "no core group");
        const group = apis.items.find((g: { metadata: { name: string } }) => g.metadata.name === Widget.group);
        return group?.versions[0]?.resources.find((r: { resource: string }) => r.resource === "widgets");
      }, POLL);
      assert.deepEqual(widgets.responseKind, { group: Widget.group, version: "v1", kind: "Widget" });
      assert.equal(widgets.singularResource, "widget");
      assert.deepEqual(widgets.shortNames, ["wdg"]);
      assert.deepEqual(widgets.subresources.map((r: { subresource: string }) => r.subresource), ["status"]);
      const legacy = await client.request("GET", "/apis", { throwOnError: true });
      assert.equal(JSON.parse(new TextDecoder().decode(legacy.body)).kind, "APIGroupList");
    },
  },
  {
    name: "APIService: insecureSkipTLSVerify accepted; Available False: ServiceNotFound, EndpointsNotFound",
    async run({ client, ns }) {
      const APIService: ResourceType = {
        group: "apiregistration.k8s.io",
        version: "v1",
        plural: "apiservices",
        kind: "APIService",
        namespaced: false,
      };
      const name = "v1alpha1.conformance-agg.kubeop.dev";
      const spec = {
        group: "conformance-agg.kubeop.dev",
        version: "v1alpha1",
        service: { namespace: ns, name: "agg-backend", port: 443 },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      };
      const both = await expectError(
        client.create<KubeObject>(APIService, { metadata: { name }, spec: { ...spec, caBundle: btoa("not a CA") } }),
        isInvalid,
        "caBundle with insecureSkipTLSVerify",
      );
      assert.ok((both.status.details?.causes ?? []).some((c) => c.field === "spec.insecureSkipTLSVerify"));
      await client.create<KubeObject>(APIService, { metadata: { name }, spec });
      try {
        const available = async (reason: string) => {
          const svc = await client.get<APIServiceObject>(APIService, name);
          const cond = (svc.status?.conditions ?? []).find((c) => c.type === "Available");
          return cond?.status === "False" && cond.reason === reason ? cond : undefined;
        };
        const missing = await eventually("ServiceNotFound", () => available("ServiceNotFound"), POLL);
        assert.match(missing.message ?? "", /service\/agg-backend in ".*" is not present/);
        await client.create<KubeObject>(CoreTypes.Service, {
          metadata: { name: "agg-backend", namespace: ns },
          spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] },
        }, { namespace: ns });
        const noEndpoints = await eventually("EndpointsNotFound", () => available("EndpointsNotFound"), POLL);
        assert.match(noEndpoints.message ?? "", /cannot find endpointslices for service\/agg-backend in ".*"/);
      } finally {
        await client.delete(APIService, name);
      }
    },
  },
];
