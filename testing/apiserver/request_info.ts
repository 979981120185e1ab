/**
 * A request's authorization attributes, parsed from its method and URL as kube-apiserver's RequestInfoFactory does
 * (k8s.io/apiserver pkg/endpoints/request/requestinfo.go): resource requests under `/api/<v>` and `/apis/<g>/<v>`
 * with verb, namespace, resource, subresource and name; every other path is a non-resource request whose verb is the
 * lower-cased method.
 * @module
 */
import { pinnedName } from "./selectors.ts";

/** The parsed attributes (without the user). */
export interface RequestInfo {
  resourceRequest: boolean;
  verb: string;
  path: string;
  apiGroup?: string;
  apiVersion?: string;
  namespace?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * Parses one request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestInfo } from "./request_info.ts";
 * const info = requestInfo("GET", new URL("http://x/api/v1/namespaces/ns/pods?watch=1"));
 * assert.deepEqual([info.verb, info.resource, info.namespace], ["watch", "pods", "ns"]);
 * ```
 */
export function requestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const info: RequestInfo = { resourceRequest: false, verb: method.toLowerCase(), path };
  let parts = path.split("/").filter(Boolean).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  if (parts.length < 3 || (parts[0] !== "api" && parts[0] !== "apis")) return info;
  const grouped = parts[0] === "apis";
  parts = parts.slice(1);
  let apiGroup = "";
  if (grouped) {
    if (parts.length < 3) return info;
    apiGroup = parts[0];
    parts = parts.slice(1);
  }
  const out: RequestInfo = { resourceRequest: true, verb: "", path, apiGroup, apiVersion: parts[0] };
  parts = parts.slice(1);
  if (parts[0] === "watch" || parts[0] === "proxy") {
    out.verb = parts[0];
    parts = parts.slice(1);
  } else {
    out.verb = ({ POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" } as Record<
      string,
      string
    >)[method] ?? "";
  }
  if (parts[0] === "namespaces") {
    if (parts.length > 1) {
      out.namespace = parts[1];
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && out.verb !== "proxy") out.subresource = parts[2];
  if (parts.length >= 2) out.name = parts[1];
  if (parts.length >= 1) out.resource = parts[0];
  const q = url.searchParams;
  if (!out.name && out.verb === "get") {
    const watch = q.get("watch");
    out.verb = watch !== null && watch.toLowerCase() !== "false" && watch !== "0" ? "watch" : "list";
    const pinned = pinnedName(q.get("fieldSelector"));
    if (pinned && !pinned.includes("/") && pinned !== "." && pinned !== "..") out.name = pinned;
  }
  if (!out.name && out.verb === "delete") out.verb = "deletecollection";
  return out;
}
