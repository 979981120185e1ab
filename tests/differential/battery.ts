/**
 * The differential battery: for every resource of the recorded v1.37.2 discovery (and the battery's CRDs), a
 * systematic set of requests — creates valid and invalid, reads with selectors, pages, tables and protobuf, updates
 * with stale resourceVersions, patches of every type, deletes with preconditions, dry runs and propagation, and
 * subresources. The same requests go to both targets; run.ts compares the answers.
 * @module
 */
import type { DiffRequest, Sequence } from "./request.ts";
import {
  type BatteryResource,
  collectionPath,
  namespaceFor,
  objectName,
  q,
  SET_LABEL,
  setOf,
  validObject,
} from "./battery_resources.ts";
import { type Add, addPatches, addUpdates } from "./battery_writes.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";
const PARTIAL = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io";
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const MERGE = "application/merge-patch+json";

/** The requests for one resource. */
export function resourceSequence(r: BatteryResource, mainNs: string, isolatedNs: string): Sequence {
  const ns = namespaceFor(r, mainNs, isolatedNs);
  const coll = collectionPath(r, ns);
  const a = objectName(r, "a"), b = objectName(r, "b"), c = objectName(r, "c");
  const item = (name: string) => `${coll}/${encodeURIComponent(name)}`;
  const sel = `${SET_LABEL}=${setOf(r)}`;
  const verbs = new Set(r.res.verbs);
  const reqs: DiffRequest[] = [];
  const add = (area: string, name: string, req: Omit<DiffRequest, "area" | "name">) =>
    reqs.push({ area, name, ...req });
  const valid = (name: string) => validObject(r, name, ns);

  if (verbs.has("create") && r.sample) {
    add("create-valid", "create", {
      method: "POST",
      path: () => coll,
      body: () => valid(a),
      capture: (o, v) => {
        v.rv0 = o?.metadata?.resourceVersion ?? "";
        v.uid = o?.metadata?.uid ?? "";
      },
    });
    if (!verbs.has("get")) {
      // Create-only (reviews): the answer is the point; a wrong type and an unknown field are the invalid cases.
      add("create-invalid", "create with a wrong JSON type (metadata.labels a string)", {
        method: "POST",
        path: () => coll,
        body: () => ({ ...valid(a), metadata: { labels: "x" } }),
      });
      add("create-invalid", "create with an unknown field (Strict)", {
        method: "POST",
        path: () => coll + q({ fieldValidation: "Strict" }),
        body: () => ({ ...valid(a), bogusField: 1 }),
      });
      return { resource: `${r.group}/${r.version}/${r.res.name}`, requests: reqs };
    }
    add("create-invalid", "create an existing name", { method: "POST", path: () => coll, body: () => valid(a) });
    add("create-valid", "create with dryRun=All", {
      method: "POST",
      path: () => coll + q({ dryRun: "All" }),
      body: () => valid(b),
    });
    add("get", "get the dry-run object (never stored)", { method: "GET", path: () => item(b) });
    add("create-invalid", "create with an invalid name", {
      method: "POST",
      path: () => coll,
      body: () => valid("Bad_Name"),
    });
    add("create-invalid", "create without a name", {
      method: "POST",
      path: () => coll,
      body: () => {
        const o: Any = valid("x");
        delete o.metadata.name;
        return o;
      },
    });
    add("create-valid", "create with generateName", {
      method: "POST",
      path: () => coll,
      body: () => {
        const o: Any = valid("x");
        delete o.metadata.name;
        o.metadata.generateName = r.res.name === "ipaddresses" ? "x" : "d-gen-";
        return o;
      },
    });
    add("create-invalid", "create with an unknown field (Strict)", {
      method: "POST",
      path: () => coll + q({ fieldValidation: "Strict" }),
      body: () => ({ ...valid(b), bogusField: 1, metadata: { ...valid(b).metadata, bogusMeta: "x" } }),
    });
    add("create-valid", "create with an unknown field (Warn)", {
      method: "POST",
      path: () => coll + q({ fieldValidation: "Warn" }),
      body: () => ({ ...valid(b), bogusField: 1 }),
      warnings: true,
    });
    add("create-invalid", "create with a wrong JSON type (metadata.labels a string)", {
      method: "POST",
      path: () => coll,
      body: () => ({ ...valid(c), metadata: { name: c, labels: "x" } }),
    });
    add("create-invalid", "create with a JSON array body", { method: "POST", path: () => coll, body: () => [1, 2] });
    add("create-invalid", "create with another kind in the body", {
      method: "POST",
      path: () => coll,
      body: () => ({ ...valid(c), kind: "Wrong" }),
    });
    add("create-invalid", "create with another apiVersion in the body", {
      method: "POST",
      path: () => coll,
      body: () => ({ ...valid(c), apiVersion: "wrong.example.com/v9" }),
    });
    const fields = Object.keys(r.sample(c, ns));
    if (fields.length > 0) {
      add("create-invalid", `create with a wrong JSON type (${fields[0]} a number)`, {
        method: "POST",
        path: () => coll,
        body: () => ({ ...valid(c), [fields[0]]: 12345 }),
      });
      add("create-invalid", `create without ${fields.join(", ")}`, {
        method: "POST",
        path: () => coll,
        body: () => {
          const o: Any = valid(c);
          for (const f of fields) delete o[f];
          return o;
        },
      });
    }
    add("create-invalid", "create with a duplicate field (Strict)", {
      method: "POST",
      path: () => coll + q({ fieldValidation: "Strict" }),
      contentType: "application/json",
      body: () => JSON.stringify(valid(c)).replace('"metadata":{', `"metadata":{"name":"${c}",`),
    });
    if (r.res.namespaced) {
      add("create-invalid", "create with another namespace in the body", {
        method: "POST",
        path: () => coll,
        body: () => ({ ...valid(c), metadata: { ...valid(c).metadata, namespace: "other" } }),
      });
    }
  }
  addReads(r, coll, sel, a, add);
  if (verbs.has("update") && r.sample) addUpdates(r, coll, a, c, ns, add);
  if (verbs.has("patch") && r.sample) addPatches(r, coll, a, c, ns, add);
  for (const sub of r.subresources) addSubresource(r, sub, item(a), add);
  if (verbs.has("delete") && r.sample) addDeletes(coll, sel, a, verbs.has("deletecollection"), add);
  return { resource: `${r.group}/${r.version}/${r.res.name}`, requests: reqs };
}

function addReads(r: BatteryResource, coll: string, sel: string, a: string, add: Add): void {
  const verbs = new Set(r.res.verbs);
  const item = `${coll}/${encodeURIComponent(a)}`;
  if (verbs.has("get")) {
    add("get", "get", { method: "GET", path: () => item });
    add("get", "get a missing object", { method: "GET", path: () => `${coll}/d-missing` });
    add("table", "get as Table", { method: "GET", path: () => item, accept: TABLE });
    add("table", "get as Table with includeObject=None", {
      method: "GET",
      path: () => item + q({ includeObject: "None" }),
      accept: TABLE,
    });
    add("metadata", "get as PartialObjectMetadata", { method: "GET", path: () => item, accept: PARTIAL });
    add("protobuf", "get with Accept protobuf", { method: "GET", path: () => item, accept: PROTOBUF, shape: "code" });
    add("protobuf", "get with Accept protobuf, json", {
      method: "GET",
      path: () => item,
      accept: `${PROTOBUF}, application/json`,
      shape: "code",
    });
    add("get", "get with resourceVersion=0", { method: "GET", path: () => item + q({ resourceVersion: "0" }) });
  }
  if (!verbs.has("list")) return;
  add("list", "list by label", { method: "GET", path: () => coll + q({ labelSelector: sel }) });
  add("list", "list by label, limit 1", {
    method: "GET",
    path: () => coll + q({ labelSelector: sel, limit: "1" }),
    capture: (o, v) => void (v.continue = o?.metadata?.continue ?? ""),
  });
  add("list", "list the next page", {
    method: "GET",
    path: (v) => coll + q({ labelSelector: sel, limit: "1", continue: v.continue ?? "" }),
  });
  add("list", "list with an invalid continue token", {
    method: "GET",
    path: () => coll + q({ labelSelector: sel, limit: "1", continue: "not-a-token" }),
  });
  add("list", "list by metadata.name", {
    method: "GET",
    path: () => coll + q({ fieldSelector: `metadata.name=${a}` }),
  });
  add("list", "list by an unsupported field", {
    method: "GET",
    path: () => coll + q({ fieldSelector: "spec.bogus=x" }),
  });
  add("list", "list by label with set and inequality terms", {
    method: "GET",
    path: () => coll + q({ labelSelector: `${SET_LABEL} in (${setOf(r)}),changed!=yes` }),
  });
  add("list", "list with an invalid label selector", {
    method: "GET",
    path: () => coll + q({ labelSelector: "a in (" }),
  });
  add("list", "list with resourceVersionMatch and no resourceVersion", {
    method: "GET",
    path: () => coll + q({ labelSelector: sel, resourceVersionMatch: "NotOlderThan" }),
  });
  add("table", "list as Table", { method: "GET", path: () => coll + q({ labelSelector: sel }), accept: TABLE });
  add("metadata", "list as PartialObjectMetadataList", {
    method: "GET",
    path: () => coll + q({ labelSelector: sel }),
    accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
  });
  add("protobuf", "list with Accept protobuf", {
    method: "GET",
    path: () => coll + q({ labelSelector: sel }),
    accept: PROTOBUF,
    shape: "code",
  });
}

function addSubresource(r: BatteryResource, sub: string, item: string, add: Add): void {
  if (sub === "status") {
    add("subresource", "get status", { method: "GET", path: () => `${item}/status` });
    add("subresource", "merge patch status labels", {
      method: "PATCH",
      path: () => `${item}/status`,
      contentType: MERGE,
      body: () => ({ metadata: { labels: { status: "patched" } } }),
    });
    add("subresource", "get status of a missing object", { method: "GET", path: () => `${item}-missing/status` });
  } else if (sub === "scale") {
    add("subresource", "get scale", { method: "GET", path: () => `${item}/scale` });
    add("subresource", "merge patch scale", {
      method: "PATCH",
      path: () => `${item}/scale`,
      contentType: MERGE,
      body: () => ({ spec: { replicas: 2 } }),
    });
    add("subresource", "merge patch scale to -1", {
      method: "PATCH",
      path: () => `${item}/scale`,
      contentType: MERGE,
      body: () => ({ spec: { replicas: -1 } }),
    });
  } else if (sub === "token") {
    add("subresource", "create a token", {
      method: "POST",
      path: () => `${item}/token`,
      body: () => ({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } }),
    });
  } else if (sub === "ephemeralcontainers" || sub === "resize") {
    add("subresource", `get ${sub}`, { method: "GET", path: () => `${item}/${sub}` });
  }
  void r;
}

function addDeletes(coll: string, sel: string, a: string, collection: boolean, add: Add): void {
  const item = `${coll}/${encodeURIComponent(a)}`;
  const options = (extra: Any) => ({ apiVersion: "v1", kind: "DeleteOptions", ...extra });
  add("delete", "delete with a wrong uid precondition", {
    method: "DELETE",
    path: () => item,
    body: () => options({ preconditions: { uid: "00000000-0000-0000-0000-000000000000" } }),
  });
  add("delete", "delete with a stale resourceVersion precondition", {
    method: "DELETE",
    path: () => item,
    body: (v) => options({ preconditions: { resourceVersion: v.rv0 } }),
  });
  add("delete", "delete with dryRun=All", { method: "DELETE", path: () => item + q({ dryRun: "All" }) });
  add("delete", "get after a dry-run delete", { method: "GET", path: () => item });
  add("delete", "delete with an invalid propagationPolicy", {
    method: "DELETE",
    path: () => item,
    body: () => options({ propagationPolicy: "Sideways" }),
  });
  add("delete", "delete with a negative grace period", {
    method: "DELETE",
    path: () => item,
    // Background: kinds whose default is to orphan (RC, Job) would keep the object until the garbage collector drops
    // the finalizer — a race the next request would see.
    body: () => options({ gracePeriodSeconds: -5, propagationPolicy: "Background" }),
  });
  add("delete", "delete (Background)", {
    method: "DELETE",
    path: () => item,
    body: () => options({ propagationPolicy: "Background" }),
  });
  add("delete", "delete a missing object", { method: "DELETE", path: () => `${coll}/d-missing` });
  if (collection) {
    add("delete", "deletecollection by label with dryRun=All", {
      method: "DELETE",
      path: () => coll + q({ labelSelector: sel, dryRun: "All" }),
    });
    add("delete", "deletecollection by label", { method: "DELETE", path: () => coll + q({ labelSelector: sel }) });
  }
}
