/**
 * Listening with a node:http or node:https server under Deno, the way every kubeop server does it: header-read and
 * idle deadlines installed (./http_deadlines.ts), every accepted socket tracked so that stopping can cut the
 * connections still open (watches, slow clients), and a listen error rejected instead of thrown as an event.
 * @module
 */
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type ConnectionDeadlines, enforceConnectionDeadlines } from "./http_deadlines.ts";

/** A server once bound. */
export interface TrackedListener {
  /** The bound port (the one chosen when 0 was asked for). */
  readonly port: number;
  /** Destroys every socket still open (plain and TLS). */
  destroySockets(): void;
}

/** Where and how {@link listenTracked} listens. */
export interface ListenOptions {
  /** Address to bind. */
  hostname: string;
  /** Port to bind; 0 = a free port. */
  port: number;
  /** Header-read and idle deadlines (defaults in ./http_deadlines.ts). */
  deadlines?: ConnectionDeadlines;
}

/**
 * Installs the connection deadlines and socket tracking on `server` (node:http or node:https), then listens;
 * resolves once bound, rejects with the listen error.
 *
 * @example
 * ```ts
 * import http from "node:http";
 * import { listenTracked } from "./node_listen.ts";
 * const server = http.createServer((_req, res) => res.end("ok"));
 * const listener = await listenTracked(server, { hostname: "127.0.0.1", port: 0 });
 * const res = await fetch(`http://127.0.0.1:${listener.port}/`);
 * await res.text();
 * const closed = new Promise<void>((resolve) => server.close(() => resolve()));
 * listener.destroySockets();
 * await closed;
 * ```
 */
export async function listenTracked(server: Server, opts: ListenOptions): Promise<TrackedListener> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  server.on("connection", track);
  server.on("secureConnection", track);
  enforceConnectionDeadlines(server, opts.deadlines);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    destroySockets() {
      for (const s of sockets) s.destroy();
    },
  };
}
