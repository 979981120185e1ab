/**
 * `PUT /api/v1/namespaces/<name>/finalize`: replaces the namespace's `spec.finalizers` (the only way to change
 * them; a plain update keeps the old ones), what the namespace controller does when it has emptied a namespace.
 * A Terminating namespace with no finalizers left is then removed by the namespace controller (gc.ts).
 * @module
 */
import { deepEqual } from "../../runtime/apimachinery/equality.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import { decodeBody, mediaType, readBody, requireObject } from "./http_body.ts";
import { jsonResponse, type ResourceRoute } from "./http_resources.ts";
import { badRequest, conflict, methodNotAllowed, notFound } from "./status_errors.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

/** The handler for the `namespaces/finalize` subresource. */
export function namespaceFinalizeHandler(
  store: () => FakeStore,
): (req: Request, route: ResourceRoute) => Promise<Response> {
  return async (req, route) => {
    const { def, name } = route;
    if (req.method !== "PUT") throw methodNotAllowed(def, req.method.toLowerCase());
    const bytes = await readBody(req);
    const body = requireObject(decodeBody(bytes, mediaType(req.headers.get("content-type")), "update"), "update");
    const meta = (body.metadata ?? {}) as KubeObject["metadata"];
    if (meta.name && meta.name !== name) {
      throw badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
        "update",
      );
    }
    const finalizers = (body.spec as { finalizers?: unknown } | undefined)?.finalizers ?? [];
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== "string")) {
      throw badRequest("spec.finalizers must be a list of strings", "update");
    }
    const s = store();
    const old = s.peek(def, undefined, name!);
    if (!old) throw notFound(def, name!, "update");
    if (meta.resourceVersion && meta.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(def, name!, "update");
    }
    const next = copyJson(old);
    next.spec = { ...next.spec, finalizers: [...new Set(finalizers as string[])] };
    if (!deepEqual(next.spec, old.spec)) s.objects.put("/namespaces", next);
    return jsonResponse(200, s.get(def, name!));
  };
}
