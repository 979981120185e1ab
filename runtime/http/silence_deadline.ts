/**
 * The dead-connection deadline of a unary request: a connection that brings no byte for a while is presumed dead
 * (black-holed by a NAT or load balancer, or held open by a proxy that forwards nothing — no FIN, no RST) and the
 * request fails. HTTP/1.1 has no way to ask a connection whether it is alive, and TCP keepalive cannot see a proxy that
 * keeps the socket, so silence is the only sign (docs/http_timeouts.md, "Dead connections"). Both transports use it:
 * kubeop's pool (http1_pool.ts) and fetch through a proxy (api_http_client.ts).
 * @module
 */

/** Default silence after which a unary request's connection is presumed dead: 25 s. */
export const DEFAULT_SILENCE_TIMEOUT_MS = 25_000;

/**
 * Once another connection to the same server was found dead (a watch's: runtime/watch/watch.ts), a request whose
 * connection has brought no byte for this long is presumed dead with it: 5 s, the grace a watch gets past its window.
 */
export const DEAD_PATH_SILENCE_MS = 5_000;

/** An armed deadline: `fired` says why it fired (undefined while it has not); `stop` disarms it. */
export interface SilenceDeadline {
  /** The error the request fails with, once the deadline fired. */
  readonly fired?: Error;
  /** Disarms it (idempotent). */
  stop(): void;
  /**
   * Fires now if there has been no progress for `ms` (the path to the server was found dead elsewhere); returns
   * whether it fired.
   */
  fireIfQuiet(ms: number): boolean;
}

/**
 * Arms a deadline that calls `kill` once `ms` pass with no progress: from now, or from `lastProgressAt()` (a
 * `performance.now()` value, 0 for none) when later.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { armSilenceDeadline } from "./silence_deadline.ts";
 * const deadline = armSilenceDeadline(10, () => 0, () => {});
 * await new Promise((r) => setTimeout(r, 30));
 * assert.match(String(deadline.fired), /connection presumed dead/);
 * deadline.stop();
 * ```
 */
export function armSilenceDeadline(ms: number, lastProgressAt: () => number, kill: () => void): SilenceDeadline {
  const since = performance.now();
  const quietFor = () => performance.now() - Math.max(since, lastProgressAt());
  const fire = (why: string) => {
    clearTimeout(timer);
    state.fired = new Error(why);
    kill();
  };
  const state: { fired?: Error } & Omit<SilenceDeadline, "fired"> = {
    stop: () => clearTimeout(timer),
    fireIfQuiet: (quietMs) => {
      const quiet = quietFor();
      if (state.fired || quiet < quietMs) return false;
      fire(
        `no byte from the server for ${Math.round(quiet)} ms, and another connection to it was found dead: ` +
          "connection presumed dead",
      );
      return true;
    },
  };
  const check = () => {
    const quiet = quietFor();
    if (quiet < ms) {
      timer = setTimeout(check, ms - quiet);
      return;
    }
    fire(`no byte from the server for ${Math.round(quiet)} ms: connection presumed dead`);
  };
  let timer = setTimeout(check, ms);
  return state;
}
