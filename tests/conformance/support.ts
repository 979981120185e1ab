/**
 * What the conformance cases share: the target and case types, the conformance CRD, and helpers that wait on
 * conditions with deadlines.
 * @module
 */
import assert from "node:assert/strict";
import type { EventuallyOptions } from "../../testing/eventually.ts";
import type { KubeClient } from "../../runtime/client/client.ts";
import type { ApiError } from "../../runtime/client/errors.ts";
import type { KubeObject, ResourceType, WatchEvent } from "../../runtime/types.ts";

/** A started API server to run cases against. */
export interface ConformanceTarget {
  kubeconfigPath: string;
  /**
   * The target's server runs with `ShardedListAndWatch` on; this starts (on first call; `stop` stops it) a second
   * API server over the same storage with the gate off and returns its kubeconfig path.
   */
  shardingOff?: () => Promise<string>;
  stop(): Promise<void>;
}

/** Which server a run talks to. */
export type TargetName = "fake" | "real";

/** What a case gets: a client for the target and a fresh namespace shared by the run. */
export interface ConformanceContext {
  client: KubeClient;
  /** The same credentials without retries (to see a 5xx with Retry-After as the server sends it). */
  noRetry: KubeClient;
  ns: string;
  target: TargetName;
  /** A client of the target's second server, with `ShardedListAndWatch` off (see ConformanceTarget.shardingOff). */
  shardingOff?: () => Promise<KubeClient>;
}

/** One behaviour of kube-apiserver, asserted the same way on both targets. */
export interface ConformanceCase {
  name: string;
  /** Set only for a single-target case; `reason` says why (listed in testing/README.md). */
  only?: { target: TargetName; reason: string };
  run(ctx: ConformanceContext): Promise<void>;
}

/** The conformance CRD's kind. */
/** A Widget of the conformance CRD. */
export type WidgetObject = KubeObject & { spec: { size: number; color?: string }; status?: { phase?: string } };

export const Widget: ResourceType = {
  group: "conformance.kubeop.dev",
  version: "v1",
  plural: "widgets",
  kind: "Widget",
  namespaced: true,
};

/** A namespaced CRD with a status subresource, a defaulted enum and bounds. */
export const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.conformance.kubeop.dev" },
  spec: {
    group: Widget.group,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList", shortNames: ["wdg"] },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              required: ["size"],
              properties: {
                size: { type: "integer", minimum: 0, maximum: 100 },
                color: { type: "string", enum: ["red", "blue"], default: "red" },
              },
            },
            status: { type: "object", properties: { phase: { type: "string" } } },
          },
        },
      },
    }],
  },
};

/** The namespaces/finalize subresource (the client types only `status` for PUT subresources). */
/** The Accept of a Table answer (kube-apiserver's meta.k8s.io/v1 Table). */
export const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io";

export const FINALIZE = "finalize" as "status";

/** How the cases poll: the real tier needs long deadlines; an error (not served yet, 404) means "not yet". */
export const POLL: EventuallyOptions = { timeoutMs: 30_000, intervalMs: 50, retryErrors: true };

/** Awaits `p`, which must fail with an error `check` accepts; returns it. */
export async function expectError(
  p: Promise<unknown>,
  check: (e: unknown) => boolean,
  what: string,
): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    assert.ok(check(err), `${what}: unexpected error ${err}`);
    return err as ApiError;
  }
  assert.fail(`${what}: expected an error`);
}

/** Reads `count` events of a watch (20 s deadline), then closes it. */
export async function readEvents(
  client: KubeClient,
  rt: ResourceType,
  opts: { namespace: string; resourceVersion: string; labelSelector?: string },
  count: number,
): Promise<WatchEvent[]> {
  const ac = new AbortController();
  const events: WatchEvent[] = [];
  const timer = setTimeout(() => ac.abort(new Error("watch deadline")), 20_000);
  try {
    for await (const ev of client.watch(rt, { ...opts, signal: ac.signal })) {
      events.push(ev);
      if (events.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return events;
}

/** A frame of a watch stream as sent (the object left untyped: it may be a Table or a Status). */
export interface RawWatchEvent {
  type: string;
  // deno-lint-ignore no-explicit-any
  object: any;
}

/**
 * A bounded watch read whole: GET `path` with `query` (which should carry `timeoutSeconds`, or end in an ERROR) and
 * the frames the server sent before it closed the stream.
 */
export async function boundedWatch(
  client: KubeClient,
  path: string,
  query: Record<string, string | number | boolean>,
  accept?: string,
): Promise<{ status: number; events: RawWatchEvent[] }> {
  const res = await client.request("GET", path, { query, accept });
  const text = new TextDecoder().decode(res.body);
  if (res.status !== 200) return { status: res.status, events: [JSON.parse(text)] };
  const events = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as RawWatchEvent);
  return { status: res.status, events };
}

/** The Status of a failed raw request (asserting its HTTP code). */
export async function rawStatus(
  client: KubeClient,
  method: string,
  path: string,
  query: Record<string, string | number | boolean>,
  code: number,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await client.request(method, path, { query });
  const status = JSON.parse(new TextDecoder().decode(res.body));
  assert.equal(res.status, code, `${method} ${path}: ${JSON.stringify(status)}`);
  assert.equal(status.kind, "Status");
  assert.equal(status.code, code);
  return status;
}

/** What {@link sendBody} answers: the code, the JSON body, and the Warning header (raw, and each warning's text). */
export interface RawAnswer {
  code: number;
  // deno-lint-ignore no-explicit-any
  json: any;
  /** The `Warning` header as sent (empty when none). */
  warning: string;
  /** Each `299 - "<text>"` warning's text, in order. */
  warnings: string[];
}

/**
 * A raw request: `body` (none when undefined) sent as is (a string) or as JSON, with `contentType` and `query`; the
 * answer as {@link RawAnswer}.
 */
export async function sendBody(
  client: KubeClient,
  method: string,
  path: string,
  body?: unknown,
  contentType = "application/json",
  query: Record<string, string> = {},
): Promise<RawAnswer> {
  const res = await client.request(method, path, {
    body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
    contentType,
    query,
  });
  const warning = res.headers.get("warning") ?? "";
  const warnings = warning.split(/,\s*(?=299 )/).filter((w) => w).map((w) => JSON.parse(w.replace(/^299 - /, "")));
  return { code: res.status, json: JSON.parse(new TextDecoder().decode(res.body)), warning, warnings };
}
