/**
 * `componentstatuses` (core/v1 ComponentStatus, deprecated since v1.19): kube-apiserver probes kube-scheduler
 * (`https://127.0.0.1:10259/healthz`), kube-controller-manager (`https://127.0.0.1:10257/healthz`) and each etcd
 * server on every get or list, and answers a list of scheduler, controller-manager, etcd-0 (each with one `Healthy`
 * condition), filtered by the list's label and field selectors, or one of them; any other name is 404 `componentstatus "x" not found`. Every answer carries the warning
 * `299 - "v1 ComponentStatus is deprecated in v1.19+"` (its definition's `deprecationWarning`, sent by the router). The fake has no kube-scheduler or kube-controller-manager
 * of its own listening there and its storage is in-process: it answers what kube-apiserver answers for a control
 * plane whose scheduler and controller-manager ports are closed, with etcd healthy.
 * @module
 */
import { failureStatus } from "../../runtime/client/errors.ts";
import type { Clock } from "../../runtime/clock.ts";
import { jsonResponse, type ResourceRoute } from "./http_resources.ts";
import { badRequest, methodNotAllowed } from "./status_errors.ts";
import { parseListQuery } from "./list_options.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import { negotiateShape, shapeList, shapeObject } from "./http_negotiation.ts";
import type { KubeObject } from "../../runtime/types.ts";

type Handler = (req: Request, route: ResourceRoute, url: URL) => Promise<Response>;

const unreachable = (port: number) =>
  `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused`;

/** The components in kube's order, with their probe results. */
function components(): { name: string; healthy: boolean; message: string }[] {
  return [
    { name: "scheduler", healthy: false, message: unreachable(10259) },
    { name: "controller-manager", healthy: false, message: unreachable(10257) },
    { name: "etcd-0", healthy: true, message: "ok" },
  ];
}

function item(c: { name: string; healthy: boolean; message: string }) {
  return {
    metadata: { name: c.name },
    conditions: [{ type: "Healthy", status: c.healthy ? "True" : "False", message: c.message }],
  };
}

/**
 * The list options kube's generic list handler validates and the REST list applies (the label and field selectors; a
 * limit or continue token pages nothing): 400 for a selector that does not parse or a field it does not know, 422
 * for a refused option combination.
 */
function listSelection(q: URLSearchParams): (obj: KubeObject) => boolean {
  parseListQuery(q, false);
  try {
    const labels = parseLabelSelector(q.get("labelSelector"));
    const fields = parseFieldSelector(q.get("fieldSelector"), "/componentstatuses");
    return (obj) => labels(obj) && fields(obj);
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message, "list");
    throw err;
  }
}

/**
 * GET `/api/v1/componentstatuses[/name]`.
 *
 * @example
 * ```ts
 * import { componentStatusHandler } from "./component_statuses.ts";
 * import { RealClock } from "../../runtime/clock.ts";
 * const handler = componentStatusHandler(new RealClock());
 * console.assert(typeof handler === "function");
 * ```
 */
export function componentStatusHandler(clock: Clock): Handler {
  return (req, route, url) => {
    if (req.method !== "GET") throw methodNotAllowed(route.def, req.method.toLowerCase());
    // kubectl get componentstatuses asks for a Table (kube's printer: Name, Status, Message, Error).
    const shape = negotiateShape(req.headers.get("accept"));
    const now = clock.now();
    if (!route.name) {
      const selected = listSelection(url.searchParams);
      const items = (components().map(item) as unknown as KubeObject[]).filter(selected);
      const list = { kind: "ComponentStatusList", apiVersion: "v1", metadata: {}, items };
      return Promise.resolve(jsonResponse(200, shapeList(shape, route.def, list, now)));
    }
    const found = components().find((c) => c.name === route.name);
    if (!found) {
      const status = failureStatus(404, "NotFound", `componentstatus "${route.name}" not found`, {
        name: route.name,
        kind: "componentstatus",
      });
      return Promise.resolve(jsonResponse(404, status));
    }
    const obj = { kind: "ComponentStatus", apiVersion: "v1", ...item(found) } as unknown as KubeObject;
    return Promise.resolve(jsonResponse(200, shapeObject(shape, route.def, obj, now)));
  };
}
