/**
 * The Kubernetes verb of a resource request, as kube-apiserver's RequestInfo derives it from the HTTP method: GET
 * and HEAD are `get` (named), `list`, or `watch` (`?watch=true`/`1`); POST `create`; PUT `update`; PATCH `patch`;
 * DELETE `delete` (named) or `deletecollection`. Authorizers and audit see this verb.
 * @module
 */

const truthy = (v: string | null): boolean => v === "true" || v === "1";

/**
 * The verb of a request for `method` on a resource URL naming an object (`named`) or a collection.
 *
 * @example
 * ```ts
 * import { requestVerb } from "./verbs.ts";
 * requestVerb("GET", false, new URLSearchParams("watch=true")); // "watch"
 * requestVerb("DELETE", true, new URLSearchParams()); // "delete"
 * ```
 */
export function requestVerb(method: string, named: boolean, query: URLSearchParams): string {
  switch (method) {
    case "GET":
    case "HEAD":
      if (truthy(query.get("watch"))) return "watch";
      return named ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return method.toLowerCase();
  }
}
