/**
 * The farmpods REST handlers (read-only): list (JSON or Table), watch (synthetic ADDED for the current state, then
 * live changes from the Pod cache), get. Writes answer 405 MethodNotAllowed.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { KubeObject, WatchEvent } from "../runtime/types.ts";
import type { PodCache } from "./cluster.ts";
import { farmPodListRV, getFarmPod, listFarmPods, requireSynced, toFarmPod } from "./farmpods.ts";
import { FARM_API_VERSION, FARMPODS } from "./llama.ts";
import { jsonResponse, wantsTable } from "./http.ts";
import { parseFieldSelector, parseLabelSelector } from "./selectors.ts";
import { toTable } from "./table.ts";
import { watchResponse } from "./watch_stream.ts";

/** What the farmpod handlers share. */
export interface FarmPodRouteContext {
  /** The Pod cache (undefined: farmpods answer 503). */
  pods?: PodCache;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** Interval of BOOKMARK events on watches that allow them, ms. */
  bookmarkIntervalMs: number;
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
  const rv = farmPodListRV(listFarmPods(ctx.pods, undefined));
  if (q.get("watch") === "true" || q.get("watch") === "1") {
    const pods = requireSynced(ctx.pods);
    const rvParam = q.get("resourceVersion") ?? "";
    const sendInitial = q.get("sendInitialEvents") === "true";
    const bookmarks = q.get("allowWatchBookmarks") === "true";
    let lastRV = rv;
    const initial: WatchEvent<KubeObject>[] = sendInitial || rvParam === "" || rvParam === "0"
      ? items.map((object) => ({ type: "ADDED" as const, object }))
      : [];
    const bookmarkObject = (annotate: boolean): KubeObject => ({
      apiVersion: FARM_API_VERSION,
      kind: "FarmPod",
      metadata: {
        resourceVersion: lastRV,
        ...(annotate ? { annotations: { "k8s.io/initial-events-end": "true" } } : {}),
      },
    });
    if (sendInitial && bookmarks) initial.push({ type: "BOOKMARK", object: bookmarkObject(true) });
    const timeoutSeconds = Number(q.get("timeoutSeconds") ?? "");
    return watchResponse({
      clock: ctx.clock,
      initial,
      subscribe: (send) => {
        const emit = (type: "ADDED" | "MODIFIED" | "DELETED", pod: KubeObject) => {
          if (namespace !== undefined && pod.metadata.namespace !== namespace) return;
          const object = toFarmPod(pod);
          lastRV = object.metadata.resourceVersion ?? lastRV;
          if (match(object)) send({ type, object });
        };
        return pods.addHandler({
          added: (p) => emit("ADDED", p),
          modified: (_old, p) => emit("MODIFIED", p),
          deleted: (p) => emit("DELETED", p),
        });
      },
      bookmark: bookmarks ? () => bookmarkObject(false) : undefined,
      bookmarkIntervalMs: ctx.bookmarkIntervalMs,
      timeoutMs: timeoutSeconds > 0 ? timeoutSeconds * 1000 : undefined,
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
