/**
 * The HTTP-aware half of the fault proxy for target `real`: a TLS-terminating reverse proxy on 127.0.0.1 in front of
 * a real kube-apiserver. kube-apiserver speaks only TLS, so a byte-level proxy cannot answer a request with a 429 or
 * end a watch with a 410; this one terminates the client's TLS with the apiserver's own serving certificate (its SAN
 * covers 127.0.0.1 and the cluster CA signed it, so the client's kubeconfig CA still verifies it) and re-originates
 * TLS to the apiserver with fetch. It counts the operator's requests by verb (the real apiserver counts nothing for
 * us), answers requests with a kube-shaped Status while a fault is injected (429 with Retry-After, 500, 409 Conflict),
 * stalls open watch streams (socket open, nothing forwarded), and produces 410 storms: it ends every open watch and
 * answers a re-watch from a resourceVersion older than a given revision with the ERROR event kube-apiserver's watch
 * cache sends for a compacted revision (`too old resource version`).
 *
 * The byte-level faults (cuts inside a frame, latency) stay in {@link FaultProxy} (tests/faults/tcp_proxy.ts), which
 * sits in front of this one: client → FaultProxy → HttpFaultProxy → kube-apiserver. When the apiserver is down
 * (killed by a fault), this proxy cannot reach it and asks the FaultProxy to reset the client's connection
 * (`onUpstreamDown` with the port the request came from), so the client sees what a dead server shows it.
 * @module
 */

/** A request-level fault: every matching request is answered with `code` while it is injected. */
export interface HttpFault {
  /** update (PUT), patch, create (POST), delete, get, list, watch; undefined: every verb. */
  verb?: string;
  code: 409 | 429 | 500;
  retryAfterSeconds?: number;
}

/** Options of {@link HttpFaultProxy.start}. */
export interface HttpFaultProxyOptions {
  /** The apiserver, https://127.0.0.1:<port>. */
  upstream: string;
  /** PEM of the CA that signed the apiserver's serving certificate. */
  caCert: string;
  /** Serving certificate and key this proxy presents (PEM). */
  cert: string;
  key: string;
  /** Requests whose User-Agent is this one are counted (the operator's). */
  countUserAgent: string;
  /** The apiserver could not be reached for a request that came from this local port of the FaultProxy. */
  onUpstreamDown?: (remotePort: number) => void;
}

/** One open watch stream through the proxy. */
interface OpenWatch {
  stalled: boolean;
  /** Ends the stream cleanly (the server closed it). */
  end(): void;
  /** Wakes a stalled pull so it sees `ended`. */
  wake(): void;
  ended: boolean;
}

/** The verb of a request, as kube's request info names it (list and get share `get` unless the path says). */
export function verbOf(method: string, url: URL): string {
  const watch = url.searchParams.get("watch");
  switch (method) {
    case "GET":
      return watch === "true" || watch === "1" ? "watch" : "get";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "POST":
      return "create";
    case "DELETE":
      return "delete";
    default:
      return method.toLowerCase();
  }
}

const REASONS: Record<number, [string, string]> = {
  409: ["Conflict", "the object has been modified; please apply your changes to the latest version and try again"],
  410: ["Expired", "too old resource version"],
  429: ["TooManyRequests", "the server has received too many requests and has asked us to try again later"],
  500: ["InternalError", "Internal error occurred: injected by the fault proxy"],
};

function status(code: number, message?: string): Record<string, unknown> {
  const [reason, text] = REASONS[code];
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: message ?? text, reason, code };
}

const DROP_REQUEST = ["host", "connection", "keep-alive", "content-length", "transfer-encoding", "accept-encoding"];
const DROP_RESPONSE = ["connection", "keep-alive", "content-length", "transfer-encoding", "content-encoding"];

/**
 * A running proxy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createCA } from "../../runtime/http/pki.ts";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { HttpFaultProxy } from "./http_fault_proxy.ts";
 * const server = await startFakeApiServer({ tls: true, anonymousAdmin: true });
 * const ca = await createCA({ commonName: "proxy-ca" });
 * const { certPEM: cert, keyPEM: key } = await ca.issue({ commonName: "proxy", hosts: ["127.0.0.1"], usage: "server" });
 * const proxy = HttpFaultProxy.start({ upstream: server.url, caCert: server.caPEM!, cert, key, countUserAgent: "op" });
 * const client = Deno.createHttpClient({ caCerts: [ca.certPEM] });
 * const list = () => fetch(`https://127.0.0.1:${proxy.port}/api/v1/namespaces`, { client, headers: { "user-agent": "op" } });
 * proxy.inject({ code: 429, retryAfterSeconds: 1 });
 * const refused = await list();
 * assert.deepEqual([refused.status, refused.headers.get("retry-after")], [429, "1"]);
 * await refused.body?.cancel();
 * proxy.clear();
 * const passed = await list();
 * assert.equal(passed.status, 200);
 * await passed.body?.cancel();
 * assert.equal(proxy.calls, 2);
 * client.close();
 * await proxy.close();
 * await server.stop();
 * ```
 */
export class HttpFaultProxy {
  readonly #opts: HttpFaultProxyOptions;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #client: Deno.HttpClient;
  readonly #watches = new Set<OpenWatch>();
  #faults: HttpFault[] = [];
  #expiredBelow = 0;
  /** Operator requests received, in total and by verb. */
  calls = 0;
  readonly callsByVerb = new Map<string, number>();
  /** Re-watches answered with a 410 ERROR event. */
  expired = 0;
  /**
   * The counted requests, one line each: time, verb, status (502: kube-apiserver unreachable) and path with query; a
   * watch gets a second line when its stream ends (`watch-end`, how, bytes forwarded).
   */
  readonly requestLog: string[] = [];

  private constructor(opts: HttpFaultProxyOptions) {
    this.#opts = opts;
    this.#client = Deno.createHttpClient({ caCerts: [opts.caCert] });
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: opts.cert,
      key: opts.key,
      onListen: () => {},
      onError: () => new Response(null, { status: 502 }),
    }, (req, info) => this.#handle(req, info.remoteAddr.port));
  }

  /** Listens on a free port of 127.0.0.1. */
  static start(opts: HttpFaultProxyOptions): HttpFaultProxy {
    return new HttpFaultProxy(opts);
  }

  /** The proxy's port. */
  get port(): number {
    return this.#server.addr.port;
  }

  /** Answers every matching request with the fault's Status until {@link clear}. */
  inject(fault: HttpFault): void {
    this.#faults.push(fault);
  }

  /** Ends every injected fault. */
  clear(): void {
    this.#faults = [];
  }

  /** Every watch open now stops receiving anything (its socket stays open). Returns how many. */
  stallWatches(): number {
    let n = 0;
    for (const w of this.#watches) {
      if (!w.stalled && !w.ended) n++;
      w.stalled = true;
    }
    return n;
  }

  /**
   * A compaction at revision `revision`: every open watch ends, and a later watch from an older resourceVersion gets
   * kube's 410 ERROR event (a relist's newer resourceVersion passes). Returns how many watches ended.
   */
  expireWatches(revision: number): number {
    this.#expiredBelow = Math.max(this.#expiredBelow, revision);
    let n = 0;
    for (const w of [...this.#watches]) {
      if (!w.ended) n++;
      w.end();
    }
    return n;
  }

  /** Stops serving and ends every open watch. */
  async close(): Promise<void> {
    for (const w of [...this.#watches]) w.end();
    await this.#server.shutdown();
    this.#client.close();
  }

  async #handle(req: Request, remotePort: number): Promise<Response> {
    const url = new URL(req.url);
    const verb = verbOf(req.method, url);
    const counted = req.headers.get("user-agent") === this.#opts.countUserAgent;
    if (counted) {
      this.calls++;
      this.callsByVerb.set(verb, (this.callsByVerb.get(verb) ?? 0) + 1);
    }
    const response = await this.#answer(req, url, verb, remotePort, counted);
    if (counted) this.#record(`${verb} ${response.status} ${url.pathname}${url.search}`);
    return response;
  }

  #record(line: string): void {
    if (this.requestLog.length < 1_000_000) this.requestLog.push(`${new Date().toISOString()} ${line}`);
  }

  async #answer(req: Request, url: URL, verb: string, remotePort: number, counted: boolean): Promise<Response> {
    const fault = this.#faults.find((f) => f.verb === undefined || f.verb === verb);
    if (fault) {
      await req.body?.cancel();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
      return new Response(JSON.stringify(status(fault.code)), { status: fault.code, headers });
    }
    if (verb === "watch" && this.#isExpired(url)) {
      this.expired++;
      const rv = url.searchParams.get("resourceVersion");
      const frame = { type: "ERROR", object: status(410, `too old resource version: ${rv} (${this.#expiredBelow})`) };
      return new Response(JSON.stringify(frame) + "\n", { headers: { "content-type": "application/json" } });
    }
    const headers = new Headers(req.headers);
    for (const h of DROP_REQUEST) headers.delete(h);
    let upstream: Response;
    try {
      upstream = await fetch(this.#opts.upstream + url.pathname + url.search, {
        method: req.method,
        headers,
        body: req.body ? await req.arrayBuffer() : undefined,
        client: this.#client,
        redirect: "manual",
      });
    } catch (err) {
      this.#opts.onUpstreamDown?.(remotePort);
      return new Response(`fault proxy: upstream unreachable: ${(err as Error).message}`, { status: 502 });
    }
    const out = new Headers(upstream.headers);
    for (const h of DROP_RESPONSE) out.delete(h);
    out.set("cache-control", "no-transform"); // Deno.serve must not re-compress (and buffer) a watch stream
    const noBody = upstream.status === 204 || upstream.status === 304 || req.method === "HEAD";
    if (noBody) {
      await upstream.body?.cancel();
      return new Response(null, { status: upstream.status, headers: out });
    }
    const body = verb === "watch" && upstream.body
      ? this.#track(upstream.body, remotePort, counted ? `${url.pathname}${url.search}` : undefined)
      : upstream.body;
    return new Response(body, { status: upstream.status, headers: out });
  }

  /** Whether a watch resumes from a resourceVersion older than the last expiry (WatchList requests never are). */
  #isExpired(url: URL): boolean {
    if (this.#expiredBelow === 0 || url.searchParams.get("sendInitialEvents") === "true") return false;
    const rv = Number(url.searchParams.get("resourceVersion") ?? "0");
    return Number.isFinite(rv) && rv > 0 && rv < this.#expiredBelow;
  }

  /** Forwards a watch body chunk by chunk, so it can be stalled or ended. */
  #track(body: ReadableStream<Uint8Array>, remotePort: number, logAs?: string): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let wakeUp: (() => void) | undefined;
    let bytes = 0;
    const logEnd = (how: string) => logAs !== undefined && this.#record(`watch-end ${how} ${bytes} B ${logAs}`);
    const watch: OpenWatch = {
      stalled: false,
      ended: false,
      end: () => {
        if (watch.ended) return;
        logEnd("ended");
        watch.ended = true;
        this.#watches.delete(watch);
        reader.cancel().catch(() => {});
        try {
          controller.close();
        } catch { /* closed or errored already */ }
        watch.wake();
      },
      wake: () => wakeUp?.(),
    };
    this.#watches.add(watch); // a client that goes away cancels the body (below)
    return new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      pull: async (c) => {
        while (watch.stalled && !watch.ended) await new Promise<void>((resolve) => (wakeUp = resolve));
        if (watch.ended) return;
        try {
          const { done, value } = await reader.read();
          if (watch.ended) return;
          if (done) {
            watch.end();
            return;
          }
          bytes += value.byteLength;
          c.enqueue(value);
        } catch (err) {
          if (watch.ended) return;
          logEnd(`error (${(err as Error).message})`);
          watch.ended = true;
          this.#watches.delete(watch);
          this.#opts.onUpstreamDown?.(remotePort); // the apiserver died mid-stream: the client's link goes too
          c.error(err);
        }
      },
      cancel: () => watch.end(),
    }, { highWaterMark: 0 });
  }
}
