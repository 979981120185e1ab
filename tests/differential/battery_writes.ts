/**
 * The battery's writes to an existing object: updates (stale, invalid and missing resourceVersions, another name,
 * unknown fields) and patches of every type (merge, JSON, strategic, apply; malformed, conflicting, dry-run).
 * @module
 */
import { apiVersion, type BatteryResource, objectName, q, SET_LABEL, setOf, validObject } from "./battery_resources.ts";
import type { DiffRequest, Vars } from "./request.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Adds one request. */
export type Add = (area: string, name: string, req: Omit<DiffRequest, "area" | "name">) => void;

const MERGE = "application/merge-patch+json";
const JSONPATCH = "application/json-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";

/** PUTs of the object `a`. */
export function addUpdates(r: BatteryResource, coll: string, a: string, c: string, ns: string, add: Add): void {
  const item = `${coll}/${encodeURIComponent(a)}`;
  const changed = (v: Vars, rv?: string) => {
    const o: Any = validObject(r, a, ns, { changed: "yes" });
    if (rv !== undefined) o.metadata.resourceVersion = rv;
    void v;
    return o;
  };
  add("update", "get for update", {
    method: "GET",
    path: () => item,
    capture: (o, v) => void (v.rv = o?.metadata?.resourceVersion ?? ""),
  });
  add("update", "update with the current resourceVersion", {
    method: "PUT",
    path: () => item,
    body: (v) => changed(v, v.rv),
    capture: (o, v) => void (v.rv = o?.metadata?.resourceVersion ?? v.rv),
  });
  add("update", "update with a stale resourceVersion", {
    method: "PUT",
    path: () => item,
    body: (v) => changed(v, v.rv0),
  });
  add("update", "update with an invalid resourceVersion", {
    method: "PUT",
    path: () => item,
    body: (v) => changed(v, "abc"),
  });
  add("update", "update without a resourceVersion", { method: "PUT", path: () => item, body: (v) => changed(v) });
  add("update", "update with another name in the body", {
    method: "PUT",
    path: () => item,
    body: () => validObject(r, c, ns),
  });
  add("update", "update a missing object", {
    method: "PUT",
    path: () => `${coll}/${encodeURIComponent(objectName(r, "d"))}`,
    body: () => validObject(r, objectName(r, "d"), ns),
  });
  add("update", "update with an unknown field (Strict)", {
    method: "PUT",
    path: () => item + q({ fieldValidation: "Strict" }),
    body: (v) => ({ ...changed(v), bogusField: 1 }),
  });
}

/** PATCHes of the object `a`. */
export function addPatches(r: BatteryResource, coll: string, a: string, c: string, ns: string, add: Add): void {
  const item = `${coll}/${encodeURIComponent(a)}`;
  const labels = (value: string) => ({ metadata: { labels: { patched: value } } });
  add("patch", "merge patch", { method: "PATCH", path: () => item, contentType: MERGE, body: () => labels("m") });
  add("patch", "merge patch with malformed JSON", {
    method: "PATCH",
    path: () => item,
    contentType: MERGE,
    body: () => "{",
  });
  add("patch", "merge patch with a stale resourceVersion", {
    method: "PATCH",
    path: () => item,
    contentType: MERGE,
    body: (v) => ({ metadata: { resourceVersion: v.rv0, labels: { patched: "s" } } }),
  });
  add("patch", "merge patch with an unknown field (Strict)", {
    method: "PATCH",
    path: () => item + q({ fieldValidation: "Strict" }),
    contentType: MERGE,
    body: () => ({ bogusField: 1 }),
  });
  add("patch", "merge patch changing the name", {
    method: "PATCH",
    path: () => item,
    contentType: MERGE,
    body: () => ({ metadata: { name: c } }),
  });
  add("patch", "json patch", {
    method: "PATCH",
    path: () => item,
    contentType: JSONPATCH,
    body: () => [{ op: "add", path: "/metadata/labels/patched", value: "j" }],
  });
  add("patch", "json patch whose test fails", {
    method: "PATCH",
    path: () => item,
    contentType: JSONPATCH,
    body: () => [{ op: "test", path: "/metadata/labels/patched", value: "other" }],
  });
  add("patch", "json patch that is not a list", {
    method: "PATCH",
    path: () => item,
    contentType: JSONPATCH,
    body: () => ({ op: "add" }),
  });
  add("patch", "json patch removing a missing path", {
    method: "PATCH",
    path: () => item,
    contentType: JSONPATCH,
    body: () => [{ op: "remove", path: "/metadata/annotations/none" }],
  });
  add("patch", "strategic merge patch", {
    method: "PATCH",
    path: () => item,
    contentType: STRATEGIC,
    body: () => labels("s"),
  });
  add("patch", "strategic merge patch with a $patch directive", {
    method: "PATCH",
    path: () => item,
    contentType: STRATEGIC,
    body: () => ({ metadata: { labels: { $patch: "replace", [SET_LABEL]: setOf(r) } } }),
  });
  const applied = (value: string) => ({
    apiVersion: apiVersion(r),
    kind: r.res.kind,
    metadata: { name: a, ...(r.res.namespaced ? { namespace: ns } : {}), labels: { applied: value } },
  });
  add("apply", "apply without a fieldManager", {
    method: "PATCH",
    path: () => item,
    contentType: APPLY,
    body: () => applied("1"),
  });
  add("apply", "apply", {
    method: "PATCH",
    path: () => item + q({ fieldManager: "diff-a" }),
    contentType: APPLY,
    body: () => applied("1"),
  });
  add("apply", "apply a conflicting value as another manager", {
    method: "PATCH",
    path: () => item + q({ fieldManager: "diff-b" }),
    contentType: APPLY,
    body: () => applied("2"),
  });
  add("apply", "apply a conflicting value with force", {
    method: "PATCH",
    path: () => item + q({ fieldManager: "diff-b", force: "true" }),
    contentType: APPLY,
    body: () => applied("2"),
  });
  add("apply", "apply with a kind that does not match", {
    method: "PATCH",
    path: () => item + q({ fieldManager: "diff-a" }),
    contentType: APPLY,
    body: () => ({ ...applied("1"), kind: "Wrong" }),
  });
  add("apply", "apply creating a missing object", {
    method: "PATCH",
    path: () => `${coll}/${encodeURIComponent(c)}` + q({ fieldManager: "diff-a" }),
    contentType: APPLY,
    body: () => ({ ...validObject(r, c, ns), metadata: { ...validObject(r, c, ns).metadata } }),
  });
  add("patch", "merge patch a missing object", {
    method: "PATCH",
    path: () => `${coll}/d-missing`,
    contentType: MERGE,
    body: () => labels("m"),
  });
  add("patch", "patch with an unsupported content type", {
    method: "PATCH",
    path: () => item,
    contentType: "text/plain",
    body: () => "x",
  });
  add("patch", "merge patch with dryRun=All", {
    method: "PATCH",
    path: () => item + q({ dryRun: "All" }),
    contentType: MERGE,
    body: () => labels("dry"),
  });
}
