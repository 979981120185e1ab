/**
 * A WATCH of a resource as kube-apiserver's watch handler serves it: selectors checked first, then the history replayed
 * from a resourceVersion, or the current state as ADDED events (a plain watch from "0" or none, and WatchList's
 * `sendInitialEvents`, which ends them with the `k8s.io/initial-events-end` bookmark), then live events.
 * @module
 */
import type { Clock } from "../../runtime/clock.ts";
import { matchesShardSelector } from "../../runtime/apimachinery/shard_selector.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { type negotiateShape, watchPresenter } from "./http_negotiation.ts";
import { storageKeyOf } from "./registry.ts";
import type { ResourceRoute } from "./http_route.ts";
import { type FakeStore, parseRv } from "./commit_path.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors.ts";
import { badRequest, expired, tooLargeResourceVersion } from "./status_errors.ts";
import type { WatchHub } from "./watch_hub.ts";
import { WatchStream } from "./watch_stream.ts";
import { type ListQuery, shardSelectorParam } from "./list_options.ts";
import { selectRecords } from "./list.ts";
import type { FeatureGates } from "./feature_gates.ts";

/** What a watch needs from the server (the resource handlers' context has it). */
export interface WatchContext {
  store: FakeStore;
  hub: WatchHub;
  clock: Clock;
  bookmarkIntervalMs: number;
  /** The kube-apiserver feature gates the fake implements (absent: v1.37's defaults). */
  features?: Readonly<FeatureGates>;
}

/** Whether KEP-5866's `shardSelector` is honoured (the ShardedListAndWatch gate). */
export function sharded(ctx: Pick<WatchContext, "features">): boolean {
  return ctx.features?.ShardedListAndWatch === true;
}

/** Opens a watch on `route` (its body streams the events); `stored`: a converting CRD's objects as stored. */
export function openWatch(
  url: URL,
  route: ResourceRoute,
  ctx: WatchContext,
  shape: ReturnType<typeof negotiateShape>,
  opts: ListQuery,
  includeObject?: string,
  stored = false,
): Response {
  const { def } = route;
  const namespace = def.namespaced ? route.namespace : undefined;
  const q = url.searchParams;
  const storageKey = storageKeyOf(def);
  let labels: (o: KubeObject) => boolean;
  let fields: (o: KubeObject) => boolean;
  let unselective: boolean;
  try {
    labels = parseLabelSelector(q.get("labelSelector"));
    const fs = ctx.store.storageFieldSelector(def, q.get("fieldSelector") ?? undefined);
    fields = parseFieldSelector(fs, storageKey, def.selectableFields, def.custom);
    unselective = !q.get("labelSelector") && (!fs || !fs.trim());
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message, "watch");
    throw err;
  }
  const nameFilter = route.name;
  // The watch cache filters by shard before labels and fields (filterWithAttrsAndPrefixFunction). The hashed field
  // (uid or namespace) never changes, so an object never moves in or out of a watch's slice.
  const shard = shardSelectorParam(q, sharded(ctx), "watch");
  // The namespace is part of the match: a replay from the history holds every namespace's changes.
  // Most watches select nothing but their namespace: they skip the selector calls (run per watch per event).
  const matches = unselective && !nameFilter && !shard
    ? (o: KubeObject) => namespace === undefined || o.metadata.namespace === namespace
    : (o: KubeObject) =>
      (namespace === undefined || o.metadata.namespace === namespace) &&
      (!shard || matchesShardSelector(shard, o)) &&
      (!nameFilter || o.metadata.name === nameFilter) && labels(o) && fields(o);
  const rvParam = opts.resourceVersion;
  const sendInitialEvents = opts.sendInitialEvents === true;
  const objects = ctx.store.objects;
  let replay: ReturnType<typeof objects.since> | undefined;
  const fromRv = rvParam && rvParam !== "0" ? parseRv(rvParam, "watch") : undefined;
  // sendInitialEvents waits for the cache to reach the RV (waitUntilFreshAndBlock), then fails; a plain watch from a
  // future RV is accepted and stays silent until the store passes it (the cacher skips events up to that RV).
  if (fromRv !== undefined && fromRv > objects.rv && sendInitialEvents) {
    throw tooLargeResourceVersion(fromRv, objects.rv);
  }
  const future = fromRv !== undefined && fromRv > objects.rv;
  if (fromRv !== undefined && !sendInitialEvents && !future) replay = objects.since(storageKey, fromRv);
  // Objects of a converting CRD keep their stored apiVersion here; the response body converts them (per event).
  const present = stored ? (o: KubeObject) => ({ ...o, kind: def.kind }) : (o: KubeObject) => ctx.store.present(def, o);
  const stream: WatchStream = new WatchStream({
    storageKey,
    namespace,
    matches,
    presenter: watchPresenter(shape, def, present, () => ctx.clock.now(), includeObject),
    clock: ctx.clock,
    allowBookmarks: opts.allowWatchBookmarks,
    bookmarkIntervalMs: ctx.bookmarkIntervalMs,
    timeoutMs: opts.timeoutSeconds !== undefined ? opts.timeoutSeconds * 1000 : undefined,
    afterRv: future ? fromRv : undefined,
    currentRv: () => objects.rv,
    description: `${url.pathname}?${q.toString()}`,
    onClose: () => remove(),
  });
  const remove = ctx.hub.add(stream);
  if (future) {
    // Nothing to replay: live events past fromRv only.
  } else if (replay === "expired") {
    const status = expired(`too old resource version: ${fromRv} (${objects.compactedRv})`).status;
    stream.sendErrorAndClose(status);
  } else if (replay === "too-large") {
    stream.sendErrorAndClose(tooLargeResourceVersion(fromRv!, objects.rv).status);
  } else if (replay) {
    for (const ev of replay) stream.deliver(ev);
  } else {
    // No RV (or "0"), or sendInitialEvents: synthetic ADDED for the current state, selected as a list selects it
    // (on the records' index: one node's pods come from the node index, not a parse of every pod).
    const initial = selectRecords(objects, def, {
      namespace,
      labelSelector: q.get("labelSelector") ?? undefined,
      fieldSelector: q.get("fieldSelector") ?? undefined,
      shardSelector: shard,
    }, { fieldSelector: (s) => ctx.store.storageFieldSelector(def, s) });
    for (const record of initial.records) {
      if (!nameFilter || record.name === nameFilter) stream.sendObject("ADDED", record.parsed ?? record.parse());
    }
    // The end-of-initial-events BOOKMARK only to a watch that allows bookmarks (kube sends none otherwise).
    if (sendInitialEvents && opts.allowWatchBookmarks) stream.sendBookmark({ "k8s.io/initial-events-end": "true" });
  }
  return new Response(stream.body, {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-cache" },
  });
}
