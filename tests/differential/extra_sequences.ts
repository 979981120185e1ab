/**
 * The battery's sequences beyond one-resource CRUD: two CRDs and their custom resources (a namespaced one with
 * status and scale subresources, defaults, bounds and printer columns; a cluster-scoped one that keeps unknown
 * fields), and watches from resourceVersion edge cases.
 * @module
 */
import { resourceSequence } from "./battery.ts";
import { type BatteryResource, SET_LABEL } from "./battery_resources.ts";
import type { DiffRequest, Sequence } from "./request.ts";

const STANDARD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const GROUP = "diff.example.com";

const GADGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList", shortNames: ["gd"] },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: {
        status: {},
        scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
      },
      additionalPrinterColumns: [
        { name: "Size", type: "integer", jsonPath: ".spec.size" },
        { name: "Color", type: "string", jsonPath: ".spec.color" },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ],
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              required: ["size"],
              properties: {
                replicas: { type: "integer", minimum: 0 },
                size: { type: "integer", minimum: 0, maximum: 10 },
                color: { type: "string", enum: ["red", "blue"], default: "red" },
                tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
              },
            },
            status: { type: "object", properties: { replicas: { type: "integer" } } },
          },
        },
      },
    }],
  },
};

const KNOB_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `knobs.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Cluster",
    names: { plural: "knobs", singular: "knob", kind: "Knob", listKind: "KnobList" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      },
    }],
  },
};

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/** The custom resources' sequences, each waiting for its CRD to be served. */
export function customResourceSequences(ns: string, isolated: string): Sequence[] {
  const gadgets: BatteryResource = {
    group: GROUP,
    version: "v1",
    res: { name: "gadgets", kind: "Gadget", namespaced: true, verbs: STANDARD },
    subresources: ["status", "scale"],
    sample: () => ({ spec: { replicas: 1, size: 3, tags: ["a"] } }),
  };
  const knobs: BatteryResource = {
    group: GROUP,
    version: "v1",
    res: { name: "knobs", kind: "Knob", namespaced: false, verbs: STANDARD },
    subresources: [],
    sample: () => ({ spec: { anything: { nested: [1, "two"] } } }),
  };
  return [gadgets, knobs].map((r) => {
    const seq = resourceSequence(r, ns, isolated);
    const crd = r.res.name === "gadgets" ? GADGET_CRD : KNOB_CRD;
    const create: DiffRequest = {
      area: "crd",
      name: "create the CRD",
      method: "POST",
      path: () => CRDS,
      body: () => crd,
    };
    const served: DiffRequest = {
      area: "crd",
      name: "the CRD is Established",
      method: "GET",
      path: () => `${CRDS}/${crd.metadata.name}`,
      ready: async (send) => {
        const deadline = Date.now() + 30_000;
        while (Date.now() < deadline) {
          const res = await send("GET", `/apis/${GROUP}/v1/${r.res.name}`);
          if (res.code === 200) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`${crd.metadata.name} not served after 30 s`);
      },
    };
    return { resource: seq.resource, requests: [create, served, ...seq.requests] };
  });
}

/** Watches of ConfigMaps from resourceVersion edge cases (each runs for one second: `timeoutSeconds=1`). */
export function watchSequence(ns: string): Sequence {
  const coll = `/api/v1/namespaces/${ns}/configmaps`;
  const sel = `${SET_LABEL}=watch`;
  const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();
  const watch = (params: Record<string, string>) => coll + q({ watch: "1", timeoutSeconds: "1", ...params });
  const reqs: DiffRequest[] = [];
  const add = (name: string, req: Omit<DiffRequest, "area" | "name">) => reqs.push({ area: "watch", name, ...req });
  add("create a ConfigMap to watch", {
    method: "POST",
    path: () => coll,
    body: () => ({ metadata: { name: "d-watched", labels: { [SET_LABEL]: "watch" } }, data: { a: "1" } }),
  });
  add("list for a resourceVersion", {
    method: "GET",
    path: () => coll + q({ labelSelector: sel }),
    capture: (o, v) => void (v.listRv = o?.metadata?.resourceVersion ?? ""),
  });
  add("watch from resourceVersion 0", {
    method: "GET",
    path: () => watch({ labelSelector: sel, resourceVersion: "0" }),
  });
  add("watch without a resourceVersion", { method: "GET", path: () => watch({ labelSelector: sel }) });
  add("watch from the list's resourceVersion", {
    method: "GET",
    path: (v) => watch({ labelSelector: sel, resourceVersion: v.listRv }),
  });
  add("watch from a malformed resourceVersion", {
    method: "GET",
    path: () => watch({ labelSelector: sel, resourceVersion: "abc" }),
  });
  add("watch with sendInitialEvents and no bookmarks", {
    method: "GET",
    path: () => watch({ labelSelector: sel, sendInitialEvents: "true", resourceVersionMatch: "NotOlderThan" }),
  });
  add("watch with sendInitialEvents and bookmarks", {
    method: "GET",
    path: () =>
      watch({
        labelSelector: sel,
        sendInitialEvents: "true",
        resourceVersionMatch: "NotOlderThan",
        allowWatchBookmarks: "true",
      }),
  });
  add("watch with resourceVersionMatch=Exact", {
    method: "GET",
    path: () => watch({ labelSelector: sel, resourceVersion: "0", resourceVersionMatch: "Exact" }),
  });
  add("watch with an invalid label selector", { method: "GET", path: () => watch({ labelSelector: "a in (" }) });
  add("watch by metadata.name", {
    method: "GET",
    path: () => watch({ fieldSelector: "metadata.name=d-watched", resourceVersion: "0" }),
  });
  add("watch through the /watch/ prefix", {
    method: "GET",
    path: () =>
      `/api/v1/watch/namespaces/${ns}/configmaps` +
      q({ labelSelector: sel, resourceVersion: "0", timeoutSeconds: "1" }),
  });
  add("watch as Table", {
    method: "GET",
    path: () => watch({ labelSelector: sel, resourceVersion: "0" }),
    accept: "application/json;as=Table;v=v1;g=meta.k8s.io",
  });
  add("watch with Accept protobuf", {
    method: "GET",
    path: () => watch({ labelSelector: sel, resourceVersion: "0" }),
    accept: "application/vnd.kubernetes.protobuf;stream=watch",
    shape: "code",
  });
  add("watch one object with a field selector on a missing name", {
    method: "GET",
    path: () => watch({ fieldSelector: "metadata.name=d-none", resourceVersion: "0" }),
  });
  return { resource: "/v1/configmaps (watch)", requests: reqs };
}
