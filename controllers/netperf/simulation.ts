/**
 * What netperf pods do under `kubeop dev`'s fake kubelet (which runs no containers): netserver serves until its pod
 * is deleted; the client "measures" for `-l` seconds and prints netperf's TCP_STREAM table, which becomes its
 * termination message and log — so the tutorial's Netperf reaches Done on the embedded control plane.
 * @module
 */

import type { Container } from "../../runtime/builtin_types.ts";

/** The outcome of one container run, in the fake kubelet's vocabulary (testing/apiserver/kubelet.ts ContainerOutcome). */
export interface SimulatedOutcome {
  /** Container exit code. */
  exitCode: number;
  /** Written to the termination message. */
  terminationMessage?: string;
  /** Served by pods/log. */
  log?: string;
  /** How long the container runs (Infinity: until deleted). */
  runMs?: number;
}

/** netperf 2.7's TCP_STREAM output for `throughputMbps` (10^6 bits/s) to `host`. */
export function netperfTable(host: string, seconds: number, throughputMbps: number): string {
  return [
    `MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to ${host} () port 0 AF_INET : demo`,
    "Recv   Send    Send",
    "Socket Socket  Message  Elapsed",
    "Size   Size    Size     Time     Throughput",
    "bytes  bytes   bytes    secs.    10^6bits/sec",
    "",
    ` 87380  16384  16384    ${seconds.toFixed(2)}    ${throughputMbps.toFixed(2)}`,
    "",
  ].join("\n");
}

/**
 * A fake-kubelet behaviour for the Netperf pods (undefined for every other container, which keeps the kubelet's
 * default interpretation of echo/sleep/exit).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { simulatedNetperf } from "./simulation.ts";
 * const out = simulatedNetperf({}, { command: ["sh", "-c", "netperf -H 10.0.0.1 -l 2 > /tmp/out"] });
 * assert.ok(out?.runMs === 2000 && out.terminationMessage?.includes("10^6bits/sec"));
 * ```
 */
export function simulatedNetperf(
  _pod: unknown,
  container: Pick<Container, "command" | "args">,
): SimulatedOutcome | undefined {
  const command = [...(container.command ?? []), ...(container.args ?? [])].map(String).join(" ");
  if (/^netserver\b/.test(command)) return { exitCode: 0, runMs: Infinity };
  const m = /netperf -H (\S+) -l (\d+)/.exec(command);
  if (!m) return undefined;
  const seconds = Number(m[2]);
  const output = netperfTable(m[1], seconds, 9416.96);
  return { exitCode: 0, terminationMessage: output, log: output, runMs: seconds * 1000 };
}
