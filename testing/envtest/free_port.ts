/**
 * Ports for subprocesses that must be told theirs (kube-apiserver, etcd, `kubeop run`'s servers in tests).
 * @module
 */

/**
 * A port free now, for a binary that binds it a moment later. Picked below the kernel's ephemeral range: a port the
 * kernel handed out (`port: 0`) and released again is soon reused as the local port of some outbound connection —
 * the real tier once lost a run to `bind: address already in use` on kube-apiserver's port that way.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freePort } from "./free_port.ts";
 * const port = freePort();
 * Deno.listen({ hostname: "127.0.0.1", port }).close(); // still free
 * assert.ok(port > 0);
 * ```
 */
export function freePort(): number {
  const ephemeralLow = Number(
    (() => {
      try {
        return Deno.readTextFileSync("/proc/sys/net/ipv4/ip_local_port_range").trim().split(/\s+/)[0];
      } catch {
        return "32768";
      }
    })(),
  ) || 32768;
  const low = 10_000;
  for (let attempt = 0; attempt < 50 && ephemeralLow - low > 1_000; attempt++) {
    const port = low + Math.floor(Math.random() * (ephemeralLow - low));
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch {
      // taken: try another
    }
  }
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
