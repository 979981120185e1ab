/**
 * The farmpods REST handlers (read-only): list (JSON or Table), watch (synthetic ADDED for the current state, then
 * live changes from the Pod cache), get. Writes answer 405 MethodNotAllowed.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { KubeObject } from "../runtime/types.ts";
import type { PodCache } from "./cluster.ts";
import { farmPodListRV, getFarmPod, listFarmPods, requireSynced } from "./farmpods.ts";
import type { FarmPodChange, FarmPodHistory } from "./farmpod_history.ts";
import { FARM_API_VERSION, FARMPODS } from "./llama.ts";
import { badRequest, jsonResponse, wantsTable } from "./http.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { toTable } from "./table.ts";
import { serveResourceWatch } from "./watch_stream.ts";

/** What the farmpod handlers share. */
export interface FarmPodRouteContext {
  /** The Pod cache (undefined: farmpods answer 503). */
  pods?: PodCache;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** Interval of BOOKMARK events on watches that allow them, ms. */
  bookmarkIntervalMs: number;
  /** Recent FarmPod changes (watches resume from a resourceVersion; older → 410). Set whenever `pods` is. */
  history?: FarmPodHistory;
}

/** 405 for a write to farmpods. */
export function farmPodsReadOnly(method: string): never {
  throw new ApiError(
    failureStatus(405, "MethodNotAllowed", `${method} is not supported on resources of kind "farmpods"`),
    { verb: method.toLowerCase(), resource: "farmpods.farm.example.com" },
  );
}

/** GET collection (list or watch). */
export function listOrWatchFarmPods(req: Request, url: URL, ctx: FarmPodRouteContext, namespace?: string): Response {
  const q = url.searchParams;
  const labels = parseLabelSelector(q.get("labelSelector"));
  const fields = parseFieldSelector(q.get("fieldSelector"));
  const match = (o: KubeObject) => labels(o) && fields(o);
  const table = wantsTable(req.headers.get("accept"));
  const includeObject = q.get("includeObject") ?? undefined;
  const items = listFarmPods(ctx.pods, namespace).filter(match);
  const rv = String(
    Math.max(Number(farmPodListRV(listFarmPods(ctx.pods, undefined))), ctx.history?.latestResourceVersion ?? 0),
  );
  if (q.get("watch") === "true" || q.get("watch") === "1") {
    requireSynced(ctx.pods);
    const history = ctx.history!;
    const rvParam = q.get("resourceVersion") ?? "";
    const sendInitial = q.get("sendInitialEvents") === "true";
    const bookmarks = q.get("allowWatchBookmarks") === "true";
    if (rvParam && !/^\d+$/.test(rvParam)) badRequest(`invalid resourceVersion ${JSON.stringify(rvParam)}`);
    let lastRV = rv;
    const fromState = sendInitial || rvParam === "" || rvParam === "0";
    const inScope = (o: KubeObject) => (namespace === undefined || o.metadata.namespace === namespace) && match(o);
    return serveResourceWatch<FarmPodChange>({
      clock: ctx.clock,
      kind: "FarmPod",
      apiVersion: FARM_API_VERSION,
      subscribe: (listener) =>
        history.subscribe(fromState ? Number(rv) : Number(rvParam), (change) => {
          lastRV = String(change.resourceVersion);
          listener(change);
        }),
      eventOf: (change) => inScope(change.object) ? { type: change.type, object: change.object } : undefined,
      fromState,
      stateObjects: () => items,
      resourceVersion: () => lastRV,
      sendInitialEvents: sendInitial,
      bookmarks,
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      timeoutSeconds: Number(q.get("timeoutSeconds") ?? ""),
      encode: table
        ? (object, i) => toTable([object], FARMPODS, { nowMs: ctx.clock.now(), noHeaders: i > 0, includeObject })
        : undefined,
    });
  }
  if (table) {
    return jsonResponse(toTable(items, FARMPODS, { nowMs: ctx.clock.now(), resourceVersion: rv, includeObject }));
  }
  return jsonResponse({
    apiVersion: FARM_API_VERSION,
    kind: FARMPODS.listKind,
    metadata: { resourceVersion: rv },
    items,
  });
}

/** GET one FarmPod. */
export function getFarmPodResponse(req: Request, ctx: FarmPodRouteContext, namespace: string, name: string): Response {
  const fp = getFarmPod(ctx.pods, namespace, name);
  if (wantsTable(req.headers.get("accept"))) {
    return jsonResponse(
      toTable([fp], FARMPODS, { nowMs: ctx.clock.now(), resourceVersion: fp.metadata.resourceVersion }),
    );
  }
  return jsonResponse(fp);
}
