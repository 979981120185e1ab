/**
 * Normalising one answer of the battery: the values each run makes anew (uids, timestamps, resourceVersions,
 * generated names and suffixes, continue tokens, allocated IPs, tokens, ages) become placeholders, so two servers'
 * answers to the same request compare equal when they differ only in those.
 * @module
 */

// deno-lint-ignore no-explicit-any
type Any = any;

const UID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
const GENERATED = /\b(d-gen-|kube-api-access-)[a-z0-9]{5}\b/g;
const GENERATED_IP = /^x[a-z0-9]{5}$/;
/** `too old resource version: 5 (9)` and kin: the numbers are this run's. */
const RV_IN_MESSAGE =
  /(resource version:? |resourceVersion[ =:]+|resourceVersion\\?":\\?|ResourceVersion in (?:the precondition|record) \()"?\d+\\?"?( \(\d+\))?/gi;

/** Keys whose values are per-run wherever they appear. */
const PER_RUN_KEYS = new Set([
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "deletionTimestamp",
  "time",
  "lastTransitionTime",
  "lastUpdateTime",
  "lastHeartbeatTime",
  "renewTime",
  "acquireTime",
  "firstTimestamp",
  "lastTimestamp",
  "expirationTimestamp",
  "token",
  "continue",
]);

function normaliseString(s: string): string {
  return s.replace(UID, "<uid>").replace(TIME, "<time>").replace(GENERATED, "$1<gen>").replace(
    RV_IN_MESSAGE,
    "$1<rv>",
  );
}

/** A deep copy of `v` with every per-run value replaced by a placeholder. */
export function normaliseValue(v: Any, key = ""): Any {
  if (typeof v === "string") {
    if (PER_RUN_KEYS.has(key) && v !== "") return `<${key}>`;
    if ((key === "clusterIP" || key === "clusterIPs") && v !== "None") return "<ip>";
    if (key === "name" && GENERATED_IP.test(v)) return "x<gen>";
    return normaliseString(v);
  }
  if (Array.isArray(v)) {
    if (key === "clusterIPs") return v.map((x) => (x === "None" ? x : "<ip>"));
    return v.map((x) => normaliseValue(x, key === "cells" ? "cell" : ""));
  }
  if (v && typeof v === "object") {
    const out: Record<string, Any> = {};
    for (const k of Object.keys(v).sort()) out[k] = normaliseValue(v[k], k);
    if (out.kind === "Table") normaliseTableAges(out);
    return out;
  }
  return v;
}

/** A Table's Age cells ("0s", "3s", …) depend on when the request came. */
function normaliseTableAges(table: Any): void {
  const columns: Any[] = table.columnDefinitions ?? [];
  const ages = columns.flatMap((c, i) => (c?.name === "Age" || c?.name === "Last Seen" ? [i] : []));
  for (const row of table.rows ?? []) for (const i of ages) if (row.cells?.[i] !== undefined) row.cells[i] = "<age>";
}

/** A normalised answer: code, media type and body (JSON, one JSON value per watch line, or text). */
export interface NormalisedAnswer {
  code: number;
  type: string;
  body: Any;
  warnings?: string[];
}

/** Normalises a raw answer. */
export function normaliseAnswer(
  code: number,
  contentType: string,
  bytes: Uint8Array,
  opts: { bodyToo: boolean; warnings?: string },
): NormalisedAnswer {
  const type = contentType.split(";")[0].trim();
  const answer: NormalisedAnswer = { code, type, body: undefined };
  if (opts.warnings !== undefined) {
    answer.warnings = opts.warnings.split(/,(?=\s*\d{3} )/).map((w) => normaliseString(w.trim()))
      .filter((w) => w && !/deprecated/i.test(w)).sort();
  }
  if (!opts.bodyToo) return answer;
  const text = new TextDecoder().decode(bytes);
  if (type.includes("json")) {
    try {
      answer.body = normaliseValue(JSON.parse(text));
      return answer;
    } catch {
      // a watch stream: one JSON document per line
      try {
        answer.body = text.split("\n").filter((l) => l.trim()).map((l) => normaliseValue(JSON.parse(l)));
        return answer;
      } catch { /* text */ }
    }
  }
  answer.body = normaliseString(text);
  return answer;
}

/** A stable text of a normalised answer (keys sorted), for equality and for the report. */
export function canonical(a: NormalisedAnswer): string {
  return JSON.stringify(a);
}
