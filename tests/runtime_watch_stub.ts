/**
 * A deliberately small list+watch server for one namespaced collection (configmaps in `ns`), with fault hooks, so
 * the watch loop can be tested over real HTTP independently of testing/'s full fake API server: paginated list,
 * watch from an RV with history replay, bookmarks on demand, WatchList (`sendInitialEvents`), 410 below a
 * compaction point (as HTTP status or in-stream ERROR), dropped streams (clean end or reset), stalled
 * (half-open) streams, injected 500s, and restart with lost state.
 * @module
 */

import type { KubeObject } from "../runtime/types.ts";
import { byName } from "../runtime/apimachinery/string_order.ts";

interface Stream {
  ctrl: ReadableStreamDefaultController<Uint8Array>;
  stalled: boolean;
  closed: boolean;
}

interface HistoryEntry {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  obj: KubeObject;
}

const enc = new TextEncoder();

function status(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, reason, message };
}

/** The stub server. */
export class WatchStub {
  readonly objects = new Map<string, KubeObject>();
  rv = 100;
  compactedBelow = 0;
  watchListSupported = true;
  fail500 = 0;
  requests: URL[] = [];
  #history: HistoryEntry[] = [];
  #streams = new Set<Stream>();
  #server: Deno.HttpServer<Deno.NetAddr>;
  #uid = 0;

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {}, onError: () => new Response(null, { status: 500 }) },
      (req) => this.#handle(req),
    );
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Number of open watch streams (stalled ones included). */
  get openStreams(): number {
    let n = 0;
    for (const s of this.#streams) if (!s.closed) n++;
    return n;
  }

  /** Creates or updates `name`; returns the new RV. */
  write(name: string, data: Record<string, string> = {}): string {
    const old = this.objects.get(name);
    const rv = ++this.rv;
    const obj: KubeObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name,
        namespace: "ns",
        uid: old?.metadata.uid ?? `uid-${++this.#uid}`,
        resourceVersion: String(rv),
        managedFields: [{ manager: "test" }],
      },
      data,
    };
    this.objects.set(name, obj);
    this.#emit({ rv, type: old ? "MODIFIED" : "ADDED", obj });
    return String(rv);
  }

  /** Deletes `name` (no-op when absent). */
  remove(name: string): void {
    const old = this.objects.get(name);
    if (!old) return;
    this.objects.delete(name);
    const rv = ++this.rv;
    const obj = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
    this.#emit({ rv, type: "DELETED", obj });
  }

  /** Sends a BOOKMARK at the current RV to every live stream. */
  bookmark(): void {
    const frame = {
      type: "BOOKMARK",
      object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: String(this.rv) } },
    };
    for (const s of this.#streams) this.#send(s, frame);
  }

  /** Sends a raw line (possibly malformed) to every live stream. */
  sendRaw(line: string): void {
    for (const s of this.#streams) {
      if (s.closed || s.stalled) continue;
      try {
        s.ctrl.enqueue(enc.encode(line + "\n"));
      } catch {
        s.closed = true;
      }
    }
  }

  /** Ends every stream: cleanly (`end`) or with a reset (`reset`). */
  drop(mode: "end" | "reset" = "end"): void {
    for (const s of this.#streams) this.#close(s, mode === "reset");
  }

  /** Every current stream stops sending but stays open (a half-open connection). */
  stall(): void {
    for (const s of this.#streams) s.stalled = true;
  }

  /** Forgets history up to now; streams get an in-stream 410 ERROR (or are reset when `inStream` is false). */
  compact(inStream = true): void {
    this.compactedBelow = this.rv + 1;
    this.#history = [];
    for (const s of this.#streams) {
      if (inStream) this.#send(s, { type: "ERROR", object: status(410, "Expired", "too old resource version") });
      this.#close(s, !inStream);
    }
  }

  /** Restart: streams reset; with lost state, every object and all history vanish and RVs jump. */
  restart(opts: { keepState: boolean }): void {
    this.drop("reset");
    if (!opts.keepState) {
      this.objects.clear();
      this.#history = [];
      this.rv += 1_000;
      this.compactedBelow = this.rv + 1;
    }
  }

  async close(): Promise<void> {
    for (const s of this.#streams) this.#close(s, false);
    await this.#server.shutdown();
  }

  #emit(entry: HistoryEntry): void {
    this.#history.push(entry);
    const frame = { type: entry.type, object: entry.obj };
    for (const s of this.#streams) this.#send(s, frame);
  }

  #send(s: Stream, frame: unknown): void {
    if (s.closed || s.stalled) return;
    try {
      s.ctrl.enqueue(enc.encode(JSON.stringify(frame) + "\n"));
    } catch {
      s.closed = true;
    }
  }

  #close(s: Stream, reset: boolean): void {
    if (s.closed) return;
    s.closed = true;
    this.#streams.delete(s);
    try {
      if (reset) s.ctrl.error(new DOMException("connection reset", "AbortError")); // AbortError: Deno.serve does not log it
      else s.ctrl.close();
    } catch { /* already gone */ }
  }

  #handle(req: Request): Response {
    const url = new URL(req.url);
    this.requests.push(url);
    const q = url.searchParams;
    const json = (body: unknown, code = 200) =>
      new Response(JSON.stringify(body), { status: code, headers: { "content-type": "application/json" } });
    if (this.fail500 > 0) {
      this.fail500--;
      return json(status(500, "InternalError", "injected"), 500);
    }
    if (url.pathname !== "/api/v1/namespaces/ns/configmaps") return json(status(404, "NotFound", "no"), 404);
    if (q.get("watch") !== "true") {
      const all = [...this.objects.values()].sort(byName);
      const limit = Number(q.get("limit") ?? all.length) || all.length;
      const start = Number(q.get("continue") ?? 0);
      const items = all.slice(start, start + limit);
      const cont = start + limit < all.length ? String(start + limit) : undefined;
      return json({
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: String(this.rv), continue: cont },
        items,
      });
    }
    const initial = q.get("sendInitialEvents") === "true";
    if (initial && !this.watchListSupported) {
      return json(status(400, "BadRequest", "sendInitialEvents unsupported"), 400);
    }
    const from = Number(q.get("resourceVersion") ?? 0);
    if (!initial && (from < this.compactedBelow - 1 || from > this.rv)) {
      return json(status(410, "Expired", `too old resource version: ${from}`), 410);
    }
    let stream!: Stream;
    const body = new ReadableStream<Uint8Array>({
      start: (ctrl) => {
        stream = { ctrl, stalled: false, closed: false };
      },
      cancel: () => {
        stream.closed = true;
        this.#streams.delete(stream);
      },
    });
    this.#streams.add(stream);
    if (initial) {
      for (const obj of this.objects.values()) this.#send(stream, { type: "ADDED", object: obj });
      this.#send(stream, {
        type: "BOOKMARK",
        object: {
          metadata: { resourceVersion: String(this.rv), annotations: { "k8s.io/initial-events-end": "true" } },
        },
      });
    } else {
      for (const e of this.#history) if (e.rv > from) this.#send(stream, { type: e.type, object: e.obj });
    }
    return new Response(body, { headers: { "content-type": "application/json" } });
  }
}
