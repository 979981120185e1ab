/**
 * Runs the differential battery against two API servers (the fake and a real kube-apiserver), request by request,
 * and sums up: the share of requests answered identically (status code + normalised body, or the stated shape),
 * overall, by area and by resource, and every request answered differently.
 * @module
 */
import type { KubeClient } from "../../runtime/client/client.ts";
import { resourceSequence } from "./battery.ts";
import { batteryResources, type DiscoveredResource } from "./battery_resources.ts";
import { customResourceSequences, watchSequence } from "./extra_sequences.ts";
import { canonical, normaliseAnswer, type NormalisedAnswer } from "./normalise.ts";
import type { DiffRequest, Sequence, Vars } from "./request.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** One request's outcome. */
export interface DiffOutcome {
  resource: string;
  area: string;
  name: string;
  method: string;
  /** The path as sent to the fake, per-run values normalised. */
  path: string;
  identical: boolean;
  fake: NormalisedAnswer;
  real: NormalisedAnswer;
}

/** A share of identical answers. */
export interface Share {
  total: number;
  identical: number;
  percent: number;
}

/** The result the battery prints and writes. */
export interface DiffResult {
  /** The real server's version. */
  against: string;
  overall: Share;
  byArea: Record<string, Share>;
  byResource: Record<string, Share>;
  /** Every request answered differently (without bodies of identical ones). */
  differing: DiffOutcome[];
}

/** Every sequence of the battery, built from a discovery document's `legacy` part. */
export function buildBattery(
  legacy: Record<string, { resources: DiscoveredResource[] }>,
  ns: string,
  isolatedNs: string,
): Sequence[] {
  return [
    ...batteryResources(legacy).map((r) => resourceSequence(r, ns, isolatedNs)),
    ...customResourceSequences(ns, isolatedNs),
    watchSequence(ns),
  ];
}

async function send(client: KubeClient, req: DiffRequest, v: Vars): Promise<{ answer: NormalisedAnswer; body: Any }> {
  const path = req.path(v);
  const [pathname, query] = path.split("?");
  const body = req.body?.(v);
  const res = await client.request(req.method, query ? `${pathname}?${query}` : pathname, {
    accept: req.accept,
    contentType: req.contentType,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const answer = normaliseAnswer(res.status, res.headers.get("content-type") ?? "", res.body, {
    bodyToo: (req.shape ?? "full") === "full",
    warnings: req.warnings ? res.headers.get("warning") ?? "" : undefined,
  });
  let parsed: Any;
  try {
    parsed = JSON.parse(new TextDecoder().decode(res.body));
  } catch { /* not JSON */ }
  return { answer, body: parsed };
}

async function runOn(client: KubeClient, seq: Sequence): Promise<NormalisedAnswer[]> {
  const v: Vars = {};
  const out: NormalisedAnswer[] = [];
  for (const req of seq.requests) {
    if (req.ready) {
      await req.ready(async (method, path) => {
        const res = await client.request(method, path);
        return { code: res.status, body: undefined };
      });
    }
    const { answer, body } = await send(client, req, v);
    req.capture?.(body, v);
    out.push(answer);
  }
  return out;
}

/** Runs `sequences` on both clients (each sequence in order, `concurrency` sequences at a time) and compares. */
export async function runBattery(
  sequences: Sequence[],
  fake: KubeClient,
  real: KubeClient,
  opts: { concurrency?: number; against?: string } = {},
): Promise<DiffResult> {
  const outcomes: DiffOutcome[][] = new Array(sequences.length);
  let next = 0;
  const worker = async () => {
    while (next < sequences.length) {
      const i = next++;
      const seq = sequences[i];
      const [f, r] = await Promise.all([runOn(fake, seq), runOn(real, seq)]);
      outcomes[i] = seq.requests.map((req, j) => ({
        resource: seq.resource,
        area: req.area,
        name: req.name,
        method: req.method,
        path: req.path({}).replace(/continue=[^&]*/, "continue=<token>"),
        identical: canonical(f[j]) === canonical(r[j]),
        fake: f[j],
        real: r[j],
      }));
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  return summarise(outcomes.flat(), opts.against ?? "kube-apiserver");
}

function share(list: DiffOutcome[]): Share {
  const identical = list.filter((o) => o.identical).length;
  return { total: list.length, identical, percent: Math.round((identical / Math.max(1, list.length)) * 1000) / 10 };
}

function groupShares(all: DiffOutcome[], key: (o: DiffOutcome) => string): Record<string, Share> {
  const groups = new Map<string, DiffOutcome[]>();
  for (const o of all) groups.set(key(o), [...(groups.get(key(o)) ?? []), o]);
  return Object.fromEntries([...groups.entries()].sort().map(([k, v]) => [k, share(v)]));
}

/** The shares and the differing requests of a run's outcomes. */
export function summarise(all: DiffOutcome[], against: string): DiffResult {
  return {
    against,
    overall: share(all),
    byArea: groupShares(all, (o) => o.area),
    byResource: groupShares(all, (o) => o.resource),
    differing: all.filter((o) => !o.identical),
  };
}

/** A few lines for a terminal: the overall share, each area's, and how many requests differ. */
export function formatSummary(result: DiffResult): string {
  const lines = [
    `differential vs ${result.against}: ${result.overall.identical}/${result.overall.total} identical (${result.overall.percent} %)`,
  ];
  for (const [area, s] of Object.entries(result.byArea)) {
    lines.push(`  ${area.padEnd(16)} ${String(s.identical).padStart(5)}/${String(s.total).padEnd(5)} ${s.percent} %`);
  }
  return lines.join("\n");
}
