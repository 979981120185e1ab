/**
 * Helpers shared by the fake-API-server benchmarks (fake_*_bench.ts): memory snapshots after a forced GC, a
 * sample ConfigMap of a fixed shape, a wall-clock timestamp comparable across processes, and a deadline.
 * @module
 */

/** The ConfigMap resource reference of testing/'s store API. */
export const CONFIGMAPS = { group: "", version: "v1", plural: "configmaps" } as const;

/** Heap and RSS in bytes. */
export interface MemorySample {
  heapUsedBytes: number;
  rssBytes: number;
}

/** Runs a full GC when the process was started with `--v8-flags=--expose-gc` (bench/all.ts does); else nothing. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** Heap used and RSS now, after a GC when one can be forced. */
export function memoryAfterGc(): MemorySample {
  collectGarbage();
  const m = Deno.memoryUsage();
  return { heapUsedBytes: m.heapUsed, rssBytes: m.rss };
}

/**
 * The `--v8-flags` value for a bench's server child: `base` plus `KUBEOP_BENCH_V8_FLAGS` (comma-separated, for A/B
 * runs of V8 settings without editing the bench).
 */
export function serverV8Flags(base = ""): string {
  const extra = Deno.env.get("KUBEOP_BENCH_V8_FLAGS") ?? "";
  return [base, extra].filter((f) => f !== "").join(",");
}

/** Milliseconds since the Unix epoch with sub-millisecond resolution; comparable between processes on one host. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * A ConfigMap of a fixed shape (~400 bytes as JSON): three data keys and two labels derived from `i` and `seed`,
 * so every run builds the same objects.
 */
export function sampleConfigMap(
  namespace: string,
  i: number,
  seed: number,
): { metadata: { name: string; namespace: string; labels: Record<string, string> }; data: Record<string, string> } {
  const x = (i * 2654435761 + seed) >>> 0;
  return {
    metadata: {
      name: `cm-${String(i).padStart(6, "0")}`,
      namespace,
      labels: { app: `app-${x % 17}`, tier: x % 2 ? "web" : "db" },
    },
    data: {
      "config.yaml": `replicas: ${x % 9}\nimage: registry.example/app:${x % 1000}\nport: ${8000 + (x % 100)}\n`,
      "feature-flags": `a=${x & 1},b=${(x >> 1) & 1},c=${(x >> 2) & 1}`,
      checksum: x.toString(16).padStart(8, "0").repeat(4),
    },
  };
}

/** Rejects with `what timed out` when `p` has not settled within `timeoutMs`. */
export function withDeadline<T>(p: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let id: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      id = setTimeout(() => reject(new Error(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(id));
}

/** Bytes → MiB rounded to 0.1. */
export function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 102.4) / 10;
}
