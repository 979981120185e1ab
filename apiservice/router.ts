/**
 * The farm API as one fetch-style handler, `(Request) → Response`, with no authentication of its own: health
 * endpoints, discovery (legacy and aggregated), OpenAPI v2/v3, and the llamas and farmpods resources. The TLS server
 * ({@link ./server.ts}) puts the auth gate in front of it; `kubeop dev` may call it in-process.
 * @module
 */
import { ApiError, failureStatus } from "../runtime/client/errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { PodCache } from "./cluster.ts";
import {
  AGGREGATED_DISCOVERY_CONTENT_TYPE,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  wantsAggregatedDiscovery,
} from "./discovery.ts";
import { farmPodsReadOnly, getFarmPodResponse, listOrWatchFarmPods } from "./farmpod_routes.ts";
import { acceptsJson, errorResponse, jsonResponse, statusResponse } from "./http.ts";
import { FARM_GROUP, FARM_VERSION } from "./llama.ts";
import {
  createLlama,
  deleteLlama,
  deleteLlamaCollection,
  getLlama,
  listOrWatchLlamas,
  patchLlama,
  replaceLlama,
} from "./llama_routes.ts";
import type { LlamaStore } from "./llama_store.ts";
import { FarmPodHistory } from "./farmpod_history.ts";
import { openApiV2Document, openApiV3Document, openApiV3Index } from "./openapi.ts";
import { parseResourcePath } from "./authz.ts";
import type { Registry } from "../runtime/observe/prom_client.ts";

/** Options of {@link createFarmRouter}. */
export interface FarmRouterOptions {
  /** The Llama store. */
  store: LlamaStore;
  /** The Pod cache (undefined: farmpods answer 503). */
  pods?: PodCache;
  /** Time source for timestamps, timers and TTLs (inject VirtualClock in tests). */
  clock: Clock;
  /** BOOKMARK interval of watches that allow them (default 60 s, like kube-apiserver). */
  bookmarkIntervalMs?: number;
  /** Extra readiness check (e.g. serving cert loaded); default ready. */
  ready?: () => string | undefined;
  /** FarmPod changes kept for watch resumption (default 1000). */
  farmPodHistorySize?: number;
  /** Served at `/metrics` in Prometheus text (absent: 404). */
  metrics?: Registry;
}

/** The health paths, answered here without a body read (the gate authorizes them as k8s.io/apiserver does). */
export const PUBLIC_PATHS = new Set(["/healthz", "/livez", "/readyz"]);

function notFound(path: string): never {
  throw new ApiError(failureStatus(404, "NotFound", `the server could not find the requested resource (${path})`), {
    verb: "get",
    path,
  });
}

function methodNotAllowed(method: string, what: string): never {
  throw new ApiError(failureStatus(405, "MethodNotAllowed", `${method} is not supported on ${what}`), {
    verb: method.toLowerCase(),
  });
}

/**
 * Creates the router.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RealClock } from "../runtime/clock.ts";
 * import { LlamaStore } from "./llama_store.ts";
 * import { createFarmRouter } from "./router.ts";
 * const clock = new RealClock();
 * const handle = createFarmRouter({ store: await LlamaStore.open({ clock }), clock });
 * const res = await handle(new Request("https://x/apis/farm.example.com/v1alpha/namespaces/default/llamas/dolly"));
 * assert.ok((await res.json()).spec.weight === 31.4);
 * ```
 */
export function createFarmRouter(opts: FarmRouterOptions): (req: Request) => Promise<Response> {
  const llamaCtx = { store: opts.store, clock: opts.clock, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000 };
  const podCtx = {
    pods: opts.pods,
    clock: opts.clock,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    history: opts.pods ? new FarmPodHistory(opts.pods, { size: opts.farmPodHistorySize }) : undefined,
  };
  const v3Key = `/openapi/v3/apis/${FARM_GROUP}/${FARM_VERSION}`;

  const route = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const accept = req.headers.get("accept");
    if (PUBLIC_PATHS.has(path) || path.startsWith("/livez/") || path.startsWith("/readyz/")) {
      const why = path.startsWith("/readyz") ? opts.ready?.() : undefined;
      return new Response(why ? `not ready: ${why}\n` : "ok", {
        status: why ? 503 : 200,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    const resource = parseResourcePath(path);
    if (!resource) {
      if (req.method !== "GET" && req.method !== "HEAD") methodNotAllowed(req.method, path);
      switch (path) {
        case "/apis":
          return wantsAggregatedDiscovery(accept)
            ? jsonResponse(aggregatedDiscovery(), 200, AGGREGATED_DISCOVERY_CONTENT_TYPE)
            : jsonResponse(apiGroupList());
        case `/apis/${FARM_GROUP}`:
          return jsonResponse(apiGroup());
        case `/apis/${FARM_GROUP}/${FARM_VERSION}`:
          return jsonResponse(apiResourceList());
        case "/openapi/v2":
          if (!acceptsJson(accept)) {
            return statusResponse(
              failureStatus(406, "NotAcceptable", "only application/json is served for /openapi/v2"),
            );
          }
          return jsonResponse(openApiV2Document());
        case "/openapi/v3":
          return jsonResponse(openApiV3Index());
        case v3Key:
          return jsonResponse(openApiV3Document());
        case "/metrics":
          if (!opts.metrics) break;
          return new Response(await opts.metrics.metrics(), {
            headers: { "content-type": opts.metrics.contentType },
          });
        case "/version":
          return jsonResponse({ major: "1", minor: "0", gitVersion: "v1.0.0-kubeop-farm", platform: "deno" });
      }
      notFound(path);
    }
    if (resource.group !== FARM_GROUP || resource.version !== FARM_VERSION || resource.subresource) notFound(path);
    const { namespace, name } = resource;
    if (resource.resource === "llamas") {
      if (!name) {
        if (req.method === "GET") return listOrWatchLlamas(req, url, llamaCtx, namespace);
        if (req.method === "POST" && namespace) return await createLlama(req, llamaCtx, namespace);
        if (req.method === "DELETE") return await deleteLlamaCollection(req, url, llamaCtx, namespace);
        methodNotAllowed(req.method, "llamas collections");
      }
      if (!namespace) notFound(path);
      switch (req.method) {
        case "GET":
          return getLlama(req, llamaCtx, namespace, name);
        case "PUT":
          return await replaceLlama(req, llamaCtx, namespace, name);
        case "PATCH":
          return await patchLlama(req, llamaCtx, namespace, name);
        case "DELETE":
          return await deleteLlama(req, llamaCtx, namespace, name);
      }
      methodNotAllowed(req.method, "llamas");
    }
    if (resource.resource === "farmpods") {
      if (req.method !== "GET") farmPodsReadOnly(req.method);
      if (!name) return listOrWatchFarmPods(req, url, podCtx, namespace);
      if (!namespace) notFound(path);
      return getFarmPodResponse(req, podCtx, namespace, name);
    }
    notFound(path);
  };

  return async (req) => {
    try {
      return await route(req);
    } catch (err) {
      return errorResponse(err);
    }
  };
}
