/**
 * One conformance suite, two targets (STYLE §14): the same cases run against the fake API server (default tier,
 * tests/conformance_fake_test.ts) and a real kube-apiserver (tests/real/conformance_real_test.ts). A case that
 * passes on the real server and fails on the fake is a bug in the fake.
 * @module
 */
import { eventually, type EventuallyOptions } from "../../testing/eventually.ts";
import assert from "node:assert/strict";
import { KubeClient } from "../../runtime/client.ts";
import {
  type ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInvalid,
  isNotFound,
} from "../../runtime/errors.ts";
import { loadKubeconfigFile } from "../../runtime/kubeconfig.ts";
import { CoreTypes, type KubeObject, type ResourceType, type WatchEvent } from "../../runtime/types.ts";

/** A started API server to run cases against. */
export interface ConformanceTarget {
  kubeconfigPath: string;
  stop(): Promise<void>;
}

const Widget: ResourceType = {
  group: "conformance.kubeop.dev",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.conformance.kubeop.dev" },
  spec: {
    group: Widget.group,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList", shortNames: ["wdg"] },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              required: ["size"],
              properties: {
                size: { type: "integer", minimum: 0, maximum: 100 },
                color: { type: "string", enum: ["red", "blue"], default: "red" },
              },
            },
            status: { type: "object", properties: { phase: { type: "string" } } },
          },
        },
      },
    }],
  },
};

/** The namespaces/finalize subresource (the client types only `status` for PUT subresources). */
const FINALIZE = "finalize" as "status";

/** How the cases poll: the real tier needs long deadlines; an error (not served yet, 404) means "not yet". */
export const POLL: EventuallyOptions = { timeoutMs: 30_000, intervalMs: 50, retryErrors: true };

async function expectError(p: Promise<unknown>, check: (e: unknown) => boolean, what: string): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(check(err), `${what}: unexpected error ${err}`);
    return err as ApiError;
  }
  assert.fail(`${what}: expected an error`);
}

async function readEvents(
  client: KubeClient,
  rt: ResourceType,
  opts: { namespace: string; resourceVersion: string; labelSelector?: string },
  count: number,
): Promise<WatchEvent[]> {
  const ac = new AbortController();
  const events: WatchEvent[] = [];
  const timer = setTimeout(() => ac.abort(new Error("watch deadline")), 20_000);
  try {
    for await (const ev of client.watch(rt, { ...opts, signal: ac.signal })) {
      events.push(ev);
      if (events.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return events;
}

/** Registers every conformance case as a Deno test against the target `start` returns. */
export function defineConformance(targetName: string, start: () => Promise<ConformanceTarget>, ignore = false): void {
  Deno.test({
    name: `conformance[${targetName}]`,
    ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const target = await start();
      const client = new KubeClient({ config: await loadKubeconfigFile(target.kubeconfigPath) });
      const ns = `conf-${crypto.randomUUID().slice(0, 8)}`;
      try {
        await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name: ns } });
        await cases(t, client, ns);
      } finally {
        client.close();
        await target.stop();
      }
    },
  });
}

async function cases(t: Deno.TestContext, client: KubeClient, ns: string): Promise<void> {
  await t.step("create fills uid, creationTimestamp and a decimal resourceVersion; generateName", async () => {
    const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { generateName: "gen-", namespace: ns },
      data: { a: "1" },
    }, { namespace: ns });
    assert.match(cm.metadata.name!, /^gen-[a-z0-9]{5}$/);
    assert.match(cm.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.match(cm.metadata.resourceVersion!, /^\d+$/);
    assert.match(cm.metadata.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(cm.kind, "ConfigMap");
    assert.equal(cm.apiVersion, "v1");
  });

  await t.step("404 NotFound, 409 AlreadyExists and 409 Conflict on a stale resourceVersion", async () => {
    const nf = await expectError(client.get(CoreTypes.ConfigMap, "missing", { namespace: ns }), isNotFound, "get");
    assert.equal(nf.status.reason, "NotFound");
    assert.equal(nf.status.details?.name, "missing");
    assert.equal(nf.status.details?.kind, "configmaps");
    assert.equal(nf.status.message, 'configmaps "missing" not found');
    const cm = await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "dup", namespace: ns } }, {
      namespace: ns,
    });
    const ae = await expectError(
      client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "dup", namespace: ns } }, { namespace: ns }),
      isAlreadyExists,
      "create twice",
    );
    assert.equal(ae.status.message, 'configmaps "dup" already exists');
    await client.update(CoreTypes.ConfigMap, { ...cm, data: { v: "2" } });
    const stale = await expectError(
      client.update(CoreTypes.ConfigMap, { ...cm, data: { v: "3" } }),
      isConflict,
      "stale update",
    );
    assert.match(stale.status.message!, /the object has been modified; please apply your changes/);
  });

  await t.step("CRD becomes Established and serves its kind; defaults applied; 422 names the field", async () => {
    await client.create<KubeObject>(
      CoreTypes.CustomResourceDefinition,
      structuredClone(WIDGET_CRD) as unknown as KubeObject,
    );
    await eventually("CRD Established", async () => {
      const crd = await client.get(CoreTypes.CustomResourceDefinition, WIDGET_CRD.metadata.name);
      const established = (crd.status?.conditions ?? []).find((c: { type: string }) => c.type === "Established");
      return established?.status === "True" ? true : undefined;
    }, POLL);
    const w = await eventually("widgets served", () =>
      client.create<KubeObject>(Widget, {
        apiVersion: "conformance.kubeop.dev/v1",
        kind: "Widget",
        metadata: { name: "w1", namespace: ns },
        spec: { size: 3 },
      }, { namespace: ns }), POLL);
    assert.equal(w.spec.color, "red");
    assert.equal(w.metadata.generation, 1);
    const bad = await expectError(
      client.create<KubeObject>(Widget, {
        apiVersion: "conformance.kubeop.dev/v1",
        kind: "Widget",
        metadata: { name: "w-bad", namespace: ns },
        spec: { size: 1000, color: "green" },
      }, { namespace: ns }),
      isInvalid,
      "schema violation",
    );
    assert.equal(bad.status.reason, "Invalid");
    assert.match(bad.status.message!, /spec\.size/);
    assert.match(bad.status.message!, /spec\.color/);
    const fields = (bad.status.details?.causes ?? []).map((c) => c.field).sort();
    assert.deepEqual(fields, ["spec.color", "spec.size"]);
  });

  await t.step("aggregated discovery v2 for /api and /apis, CRD groups included", async () => {
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
    assert.deepEqual(pods.responseKind, { group: "", version: "", kind: "Pod" }, "built-ins leave group/version empty");
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
  });

  await t.step("generation: spec changes bump it, label and status changes do not; status subresource", async () => {
    const w = await client.get(Widget, "w1", { namespace: ns });
    const labelled = await client.patch(Widget, "w1", { metadata: { labels: { a: "b" } } }, {
      namespace: ns,
      type: "merge",
    });
    assert.equal(labelled.metadata.generation, w.metadata.generation);
    const resized = await client.patch(Widget, "w1", { spec: { size: 4 }, status: { phase: "ignored" } }, {
      namespace: ns,
      type: "merge",
    });
    assert.equal(resized.metadata.generation, w.metadata.generation! + 1);
    assert.equal(resized.status?.phase, undefined, "main resource ignores status");
    const st = await client.patch(Widget, "w1", { spec: { size: 99 }, status: { phase: "Ready" } }, {
      namespace: ns,
      type: "merge",
      subresource: "status",
    });
    assert.equal(st.status.phase, "Ready");
    assert.equal(st.spec.size, 4, "status subresource ignores spec");
    assert.equal(st.metadata.generation, resized.metadata.generation);
  });

  await t.step("list: label selectors (=, !=, in, notin, exists) and limit + continue", async () => {
    for (let i = 0; i < 5; i++) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: `sel-${i}`, namespace: ns, labels: { tier: i % 2 ? "odd" : "even", idx: `${i}` } },
      }, { namespace: ns });
    }
    const names = async (labelSelector: string) =>
      (await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector })).items.map((o) => o.metadata.name)
        .sort();
    assert.deepEqual(await names("tier=odd"), ["sel-1", "sel-3"]);
    assert.deepEqual(await names("tier!=odd,idx"), ["sel-0", "sel-2", "sel-4"]);
    assert.deepEqual(await names("idx in (1,2)"), ["sel-1", "sel-2"]);
    assert.deepEqual(await names("idx notin (0,1,2,3),tier"), ["sel-4"]);
    const seen: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await client.list(CoreTypes.ConfigMap, {
        namespace: ns,
        labelSelector: "tier",
        limit: 2,
        continue: cont,
      });
      seen.push(...page.items.map((o) => o.metadata.name!));
      cont = page.metadata.continue || undefined;
      pages++;
    } while (cont);
    assert.equal(pages, 3);
    assert.deepEqual(seen.sort(), ["sel-0", "sel-1", "sel-2", "sel-3", "sel-4"]);
  });

  await t.step("continue pages and Exact lists serve the snapshot at the first page's resourceVersion", async () => {
    for (const i of [1, 2, 3, 4]) {
      await client.create<KubeObject>(CoreTypes.ConfigMap, {
        metadata: { name: `pg-${i}`, namespace: ns, labels: { pg: "1" } },
      }, { namespace: ns });
    }
    const first = await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector: "pg", limit: 2 });
    assert.deepEqual(first.items.map((o) => o.metadata.name), ["pg-1", "pg-2"]);
    const rv = first.metadata.resourceVersion!;
    await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: "pg-5", namespace: ns, labels: { pg: "1" } },
    }, { namespace: ns });
    await client.delete(CoreTypes.ConfigMap, "pg-3", { namespace: ns });
    await client.patch(CoreTypes.ConfigMap, "pg-4", { data: { late: "yes" } }, { namespace: ns, type: "merge" });
    const rest = await client.list(CoreTypes.ConfigMap, {
      namespace: ns,
      labelSelector: "pg",
      limit: 10,
      continue: first.metadata.continue,
    });
    assert.deepEqual(rest.items.map((o) => o.metadata.name), ["pg-3", "pg-4"]);
    assert.equal(rest.items[1].data?.late, undefined, "pg-4 as it was at the first page");
    assert.equal(rest.metadata.resourceVersion, rv);
    const exact = await client.list(CoreTypes.ConfigMap, {
      namespace: ns,
      labelSelector: "pg",
      resourceVersion: rv,
      resourceVersionMatch: "Exact",
    });
    assert.deepEqual(exact.items.map((o) => o.metadata.name), ["pg-1", "pg-2", "pg-3", "pg-4"]);
    assert.equal(exact.metadata.resourceVersion, rv);
    const now = await client.list(CoreTypes.ConfigMap, { namespace: ns, labelSelector: "pg" });
    assert.deepEqual(now.items.map((o) => o.metadata.name), ["pg-1", "pg-2", "pg-4", "pg-5"]);
  });

  await t.step(
    "namespaces: spec.finalizers [kubernetes] on create, kept by updates, replaced by /finalize",
    async () => {
      const name = `${ns}-fin`;
      const created = await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name } });
      assert.deepEqual(created.spec?.finalizers, ["kubernetes"]);
      assert.equal(created.status?.phase, "Active");
      assert.equal(created.metadata.labels?.["kubernetes.io/metadata.name"], name);
      const updated = await client.update(CoreTypes.Namespace, {
        ...created,
        metadata: { ...created.metadata, labels: { ...created.metadata.labels, a: "b" } },
        spec: { finalizers: [] },
      });
      assert.deepEqual(updated.spec?.finalizers, ["kubernetes"], "a plain update keeps spec.finalizers");
      const finalized = await client.update(CoreTypes.Namespace, {
        ...updated,
        spec: { finalizers: ["kubernetes", "conformance.kubeop.dev/extra"] },
      }, { subresource: FINALIZE });
      assert.deepEqual(finalized.spec?.finalizers, ["kubernetes", "conformance.kubeop.dev/extra"]);
      await client.delete(CoreTypes.Namespace, name);
      const terminating = await client.get(CoreTypes.Namespace, name);
      assert.equal(terminating.status?.phase, "Terminating");
      const cleared = await client.update(CoreTypes.Namespace, { ...terminating, spec: { finalizers: [] } }, {
        subresource: FINALIZE,
      });
      assert.deepEqual(cleared.spec?.finalizers ?? [], []);
      await eventually("namespace without finalizers gone", async () => {
        try {
          await client.get(CoreTypes.Namespace, name);
          return undefined;
        } catch (err) {
          return isNotFound(err) ? true : undefined;
        }
      }, POLL);
    },
  );

  await t.step("a pod bound to a node is deleted gracefully; grace 0 and unscheduled pods go at once", async () => {
    const pod = (name: string, nodeName?: string) => ({
      metadata: { name, namespace: ns },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "busybox" }] },
    });
    await client.create<KubeObject>(CoreTypes.Pod, pod("bound", "conformance-absent-node"), { namespace: ns });
    await client.delete(CoreTypes.Pod, "bound", { namespace: ns });
    const held = await client.get(CoreTypes.Pod, "bound", { namespace: ns });
    assert.ok(held.metadata.deletionTimestamp, "deletionTimestamp set");
    assert.equal(held.metadata.deletionGracePeriodSeconds, 30);
    await client.delete(CoreTypes.Pod, "bound", { namespace: ns, gracePeriodSeconds: 5 });
    const shorter = await client.get(CoreTypes.Pod, "bound", { namespace: ns });
    assert.equal(shorter.metadata.deletionGracePeriodSeconds, 5, "a later delete shortens the grace period");
    await client.delete(CoreTypes.Pod, "bound", { namespace: ns, gracePeriodSeconds: 0 });
    await expectError(client.get(CoreTypes.Pod, "bound", { namespace: ns }), isNotFound, "pod after grace 0");
    await client.create<KubeObject>(CoreTypes.Pod, pod("unbound"), { namespace: ns });
    await client.delete(CoreTypes.Pod, "unbound", { namespace: ns });
    await expectError(client.get(CoreTypes.Pod, "unbound", { namespace: ns }), isNotFound, "unscheduled pod");
  });

  await t.step("watch from a resourceVersion resumes exactly after it, in order", async () => {
    const a = await client.create<KubeObject>(
      CoreTypes.ConfigMap,
      { metadata: { name: "wa", namespace: ns, labels: { w: "1" } } },
      {
        namespace: ns,
      },
    );
    await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: "wb", namespace: ns, labels: { w: "1" } },
    }, {
      namespace: ns,
    });
    await client.patch(CoreTypes.ConfigMap, "wa", { data: { x: "y" } }, { namespace: ns, type: "merge" });
    await client.delete(CoreTypes.ConfigMap, "wb", { namespace: ns });
    const events = await readEvents(client, CoreTypes.ConfigMap, {
      namespace: ns,
      resourceVersion: a.metadata.resourceVersion!,
      labelSelector: "w=1",
    }, 3);
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), [
      "ADDED wb",
      "MODIFIED wa",
      "DELETED wb",
    ]);
  });

  await t.step("finalizers hold deletion with deletionTimestamp until removed", async () => {
    await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: "fin", namespace: ns, finalizers: ["conformance.kubeop.dev/hold"] },
    }, { namespace: ns });
    await client.delete(CoreTypes.ConfigMap, "fin", { namespace: ns });
    const held = await client.get(CoreTypes.ConfigMap, "fin", { namespace: ns });
    assert.ok(held.metadata.deletionTimestamp, "deletionTimestamp set");
    assert.deepEqual(held.metadata.finalizers, ["conformance.kubeop.dev/hold"]);
    await client.patch(CoreTypes.ConfigMap, "fin", { metadata: { finalizers: null } }, {
      namespace: ns,
      type: "merge",
    });
    await eventually("finalized object gone", async () => {
      try {
        await client.get(CoreTypes.ConfigMap, "fin", { namespace: ns });
        return undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    }, POLL);
  });

  await t.step("garbage collection deletes dependents of a deleted owner", async () => {
    const owner = await client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "owner", namespace: ns } }, {
      namespace: ns,
    });
    await client.create<KubeObject>(CoreTypes.Secret, {
      metadata: {
        name: "dependent",
        namespace: ns,
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid! }],
      },
      type: "Opaque",
    }, { namespace: ns });
    await client.delete(CoreTypes.ConfigMap, "owner", { namespace: ns });
    await eventually("dependent collected", async () => {
      try {
        await client.get(CoreTypes.Secret, "dependent", { namespace: ns });
        return undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    }, { ...POLL, timeoutMs: 60_000 });
  });

  await t.step(
    "APIService: insecureSkipTLSVerify accepted; Available False: ServiceNotFound, EndpointsNotFound",
    async () => {
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
          const svc = await client.get(APIService, name);
          const cond = (svc.status?.conditions ?? []).find((c: { type: string }) => c.type === "Available");
          return cond?.status === "False" && cond.reason === reason ? cond : undefined;
        };
        const missing = await eventually("ServiceNotFound", () => available("ServiceNotFound"), POLL);
        assert.match(missing.message, /service\/agg-backend in ".*" is not present/);
        await client.create<KubeObject>(CoreTypes.Service, {
          metadata: { name: "agg-backend", namespace: ns },
          spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }] },
        }, { namespace: ns });
        const noEndpoints = await eventually("EndpointsNotFound", () => available("EndpointsNotFound"), POLL);
        assert.match(noEndpoints.message, /cannot find endpointslices for service\/agg-backend in ".*"/);
      } finally {
        await client.delete(APIService, name);
      }
    },
  );

  await t.step("a Terminating namespace refuses new objects with 403, then disappears", async () => {
    const doomed = `${ns}-doomed`;
    await client.create<KubeObject>(CoreTypes.Namespace, { metadata: { name: doomed } });
    await client.create<KubeObject>(CoreTypes.ConfigMap, {
      metadata: { name: "keep", namespace: doomed, finalizers: ["conformance.kubeop.dev/hold"] },
    }, { namespace: doomed });
    await client.delete(CoreTypes.Namespace, doomed);
    const nsObj = await client.get(CoreTypes.Namespace, doomed);
    assert.equal(nsObj.status?.phase, "Terminating");
    const forbidden = await expectError(
      client.create<KubeObject>(CoreTypes.ConfigMap, { metadata: { name: "late", namespace: doomed } }, {
        namespace: doomed,
      }),
      isForbidden,
      "create in terminating namespace",
    );
    assert.match(forbidden.status.message!, /because it is being terminated/);
    await eventually("finalizer-held object marked for deletion", async () => {
      const keep = await client.get(CoreTypes.ConfigMap, "keep", { namespace: doomed });
      return keep.metadata.deletionTimestamp ? true : undefined;
    }, { ...POLL, timeoutMs: 60_000 });
    await client.patch(CoreTypes.ConfigMap, "keep", { metadata: { finalizers: null } }, {
      namespace: doomed,
      type: "merge",
    });
    await eventually("namespace gone", async () => {
      try {
        await client.get(CoreTypes.Namespace, doomed);
        return undefined;
      } catch (err) {
        return isNotFound(err) ? true : undefined;
      }
    }, { ...POLL, timeoutMs: 90_000 });
  });
}
