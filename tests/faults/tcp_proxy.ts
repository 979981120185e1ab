/**
 * A TCP fault proxy on 127.0.0.1 in front of an API server (the fake or a real kube-apiserver): it forwards bytes
 * both ways and, on command, cuts every open connection in the middle of the next thing the server sends (a watch
 * frame half delivered), stalls the server's direction (sockets open, nothing arrives), holds the connections open now
 * while forwarding nothing more on them, ever (a dead connection: a black-holing NAT, or a proxy that keeps the socket),
 * or delays every chunk by a random latency (order kept). It knows nothing of HTTP, so the client sees exactly what a broken network shows it.
 * @module
 */

/** Per-connection state. */
interface Link {
  client: Deno.Conn;
  upstream: Deno.Conn;
  closed: boolean;
  /** Release time of the last delayed chunk per direction (keeps order under random latency). */
  lastRelease: [number, number];
}

/** Options of {@link FaultProxy.start}. */
export interface FaultProxyOptions {
  /** Where to forward to. */
  target: { hostname: string; port: number };
  /** Random source in [0, 1) for latency (tests pass a seeded one). */
  random?: () => number;
}

/**
 * A running proxy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../../testing/mod.ts";
 * import { FaultProxy } from "./tcp_proxy.ts";
 * const server = await startFakeApiServer({ anonymousAdmin: true });
 * const proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port: Number(new URL(server.url).port) } });
 * const res = await fetch(`http://127.0.0.1:${proxy.port}/version`); // through the proxy
 * assert.equal((await res.json()).gitVersion, "v1.37.2");
 * proxy.cutMidFrame(); // every open connection breaks inside the server's next write
 * await proxy.close();
 * await server.stop();
 * ```
 */
export class FaultProxy {
  readonly #listener: Deno.TcpListener;
  readonly #opts: FaultProxyOptions;
  readonly #links = new Set<Link>();
  #cutArmed = new Set<Link>();
  /** Connections that forward nothing more, either way, and stay open until the client closes them. */
  readonly #held = new Set<Link>();
  #stalled = false;
  #stallWaiters: (() => void)[] = [];
  #latency: [number, number] | undefined;
  #accepting: Promise<void>;
  /** Connections cut inside a server write so far. */
  cuts = 0;

  private constructor(listener: Deno.TcpListener, opts: FaultProxyOptions) {
    this.#listener = listener;
    this.#opts = opts;
    this.#accepting = this.#accept();
  }

  /** Listens on a free port of 127.0.0.1. */
  static start(opts: FaultProxyOptions): Promise<FaultProxy> {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    return Promise.resolve(new FaultProxy(listener, opts));
  }

  /** The proxy's port. */
  get port(): number {
    return this.#listener.addr.port;
  }

  /** Open connections. */
  get connections(): number {
    return this.#links.size;
  }

  /** Every connection open now breaks after forwarding part of the server's next chunk. Returns how many. */
  cutMidFrame(): number {
    this.#cutArmed = new Set(this.#links);
    return this.#cutArmed.size;
  }

  /**
   * Every connection open now goes dead: it stays open, but nothing more is forwarded on it either way, and the
   * server's close is not passed on (only the client's close ends it). New connections work. Returns how many.
   */
  holdOpen(): number {
    for (const link of this.#links) this.#held.add(link);
    return this.#links.size;
  }

  /** While on, nothing from the server reaches clients (new connections still open). */
  stall(on: boolean): void {
    this.#stalled = on;
    if (!on) { for (const wake of this.#stallWaiters.splice(0)) wake(); }
  }

  /** Delays each chunk, both ways, by a random latency in [minMs, maxMs]; undefined turns it off. */
  latency(range: [number, number] | undefined): void {
    this.#latency = range;
  }

  /** Closes every open connection (a network partition's RST). */
  closeAll(): void {
    for (const link of this.#links) this.#close(link);
  }

  /**
   * Closes the connection whose server side leaves from local port `port` (an HTTP proxy behind this one found the
   * real server down while serving that connection: the client must see the connection die, as with a dead server).
   */
  reset(port: number): void {
    for (const link of this.#links) {
      if ((link.upstream.localAddr as Deno.NetAddr).port === port) this.#close(link);
    }
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.stall(false);
    try {
      this.#listener.close();
    } catch {
      // closed already
    }
    this.closeAll();
    await this.#accepting;
  }

  async #accept(): Promise<void> {
    for (;;) {
      let client: Deno.Conn;
      try {
        client = await this.#listener.accept();
      } catch {
        return; // listener closed
      }
      this.#open(client);
    }
  }

  async #open(client: Deno.Conn): Promise<void> {
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect({ hostname: this.#opts.target.hostname, port: this.#opts.target.port });
    } catch {
      client.close();
      return;
    }
    const link: Link = { client, upstream, closed: false, lastRelease: [0, 0] };
    this.#links.add(link);
    await Promise.all([this.#pump(link, client, upstream, 0), this.#pump(link, upstream, client, 1)]);
    this.#close(link);
  }

  /** Direction 0: client → server; 1: server → client (the one faults cut and stall). */
  async #pump(link: Link, from: Deno.Conn, to: Deno.Conn, dir: 0 | 1): Promise<void> {
    const buf = new Uint8Array(64 * 1024);
    const pending: Promise<void>[] = [];
    try {
      for (;;) {
        const n = await from.read(buf);
        if (n === null || link.closed) break;
        if (this.#held.has(link)) continue; // dead: read and dropped
        let chunk = buf.slice(0, n);
        if (dir === 1) {
          while (this.#stalled && !link.closed) await new Promise<void>((wake) => this.#stallWaiters.push(wake));
          if (this.#cutArmed.has(link)) {
            this.#cutArmed.delete(link);
            chunk = chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2)));
            await writeAll(to, chunk).catch(() => {});
            this.cuts++;
            break;
          }
        }
        if (this.#latency) {
          const [lo, hi] = this.#latency;
          const now = performance.now();
          const due = Math.max(link.lastRelease[dir], now + lo + (this.#opts.random ?? Math.random)() * (hi - lo));
          link.lastRelease[dir] = due;
          const delayed = chunk;
          const prev = pending.at(-1) ?? Promise.resolve();
          pending.push(
            new Promise<void>((resolve) => setTimeout(resolve, due - now))
              .then(() => prev)
              .then(() => link.closed ? undefined : writeAll(to, delayed))
              .catch(() => this.#close(link)),
          );
          if (pending.length > 64) pending.splice(0, pending.length - 64);
          continue;
        }
        await writeAll(to, chunk);
      }
    } catch {
      // either side reset: the link goes
    }
    await Promise.all(pending);
    // A dead connection hides the server's close: the client must notice on its own (its close ends the link).
    if (dir === 0 || !this.#held.has(link)) this.#close(link);
  }

  #close(link: Link): void {
    if (link.closed) return;
    link.closed = true;
    this.#links.delete(link);
    this.#cutArmed.delete(link);
    this.#held.delete(link);
    for (const c of [link.client, link.upstream]) {
      try {
        c.close();
      } catch {
        // closed already
      }
    }
    for (const wake of this.#stallWaiters.splice(0)) wake();
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}
