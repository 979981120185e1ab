/**
 * The fake server's routing vocabulary, below every handler: where a resource request goes ({@link ResourceRoute}),
 * where an aggregated API group is served ({@link AggregatedTarget}), and the JSON answer every handler writes
 * ({@link jsonResponse}). Handlers (http_resources.ts, auth_reviews.ts, service_account_tokens.ts) and the router
 * (http_router.ts) import it; also which subresources are served as the object itself ({@link objectSubresource}).
 * @module
 */

import type { ResourceDef } from "./resource_def.ts";
import { type WrittenSubresource, writtenSubresource } from "./strategy.ts";
import { methodNotAllowed, noSuchResource } from "./status_errors.ts";

/** A parsed resource URL. */
export interface ResourceRoute {
  def: ResourceDef;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The deprecated `/watch/` path form (`/api/v1/watch/namespaces/{ns}/{plural}[/{name}]`). */
  watch?: boolean;
}

/** JSON response helper. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An aggregated API target: a URL to proxy to, or an in-process handler. */
export type AggregatedTarget =
  | { url: string; caPEM?: string; insecureSkipTLSVerify?: boolean; serverName?: string }
  | ((req: Request) => Promise<Response>);

/**
 * The route's subresource when it is served as the object itself (status; a Pod's ephemeralcontainers and resize,
 * which answer get, update and patch only), else undefined; 404 when the resource has no such subresource.
 */
export function objectSubresource(route: ResourceRoute, verb: string): WrittenSubresource | undefined {
  const written = writtenSubresource(route.subresource);
  if (!written) return undefined;
  if (!route.def.subresources.includes(written)) throw noSuchResource(verb);
  if (written !== "status" && !["get", "update", "patch"].includes(verb)) throw methodNotAllowed(route.def, verb);
  return written;
}
