/**
 * Counts requests from the kube-apiserver audit log (JSON lines, Metadata level): one request per auditID, told apart
 * by User-Agent prefix and namespace. Watches are counted once (their ResponseStarted and ResponseComplete stages share
 * an auditID).
 * @module
 */

/** One audit event, the fields used here. */
interface AuditEvent {
  auditID: string;
  verb: string;
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string; apiGroup?: string };
  responseStatus?: { code?: number };
}

/** Request counts of one client. */
export interface RequestCounts {
  /** Every request (Events and Leases included). */
  total: number;
  /** create/update/patch/delete of Machines and Switches (status subresource included). */
  writes: number;
  /** Event creates and patches (events.k8s.io/v1 or core/v1). */
  events: number;
  /** Lease requests (leader election). */
  leases: number;
  /** list + watch + get. */
  reads: number;
  /** `verb resource[/subresource]` → count. */
  byVerb: Record<string, number>;
  /** Machine name → writes to that Machine (spec and status). */
  machineWrites: Record<string, number>;
}

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** Counts the requests in `auditPath` whose User-Agent starts with `userAgentPrefix` (and namespace, if given). */
export async function countRequests(
  auditPath: string,
  userAgentPrefix: string,
  namespace?: string,
): Promise<RequestCounts> {
  const text = await Deno.readTextFile(auditPath);
  const seen = new Set<string>();
  const counts: RequestCounts = {
    total: 0,
    writes: 0,
    events: 0,
    leases: 0,
    reads: 0,
    byVerb: {},
    machineWrites: {},
  };
  for (const line of text.split("\n")) {
    if (!line) continue;
    let ev: AuditEvent;
    try {
      ev = JSON.parse(line);
    } catch {
      continue; // a line cut by a concurrent write
    }
    if (!ev.userAgent?.startsWith(userAgentPrefix)) continue;
    if (namespace !== undefined && ev.objectRef?.namespace !== namespace) continue;
    if (seen.has(ev.auditID)) continue;
    seen.add(ev.auditID);
    const resource = ev.objectRef?.resource ?? "";
    const key = `${ev.verb} ${resource}${ev.objectRef?.subresource ? "/" + ev.objectRef.subresource : ""}`;
    counts.byVerb[key] = (counts.byVerb[key] ?? 0) + 1;
    counts.total++;
    if (resource === "events") counts.events++;
    else if (resource === "leases") counts.leases++;
    else if (WRITE_VERBS.has(ev.verb)) {
      counts.writes++;
      const name = ev.objectRef?.name;
      if (resource === "machines" && name) counts.machineWrites[name] = (counts.machineWrites[name] ?? 0) + 1;
    } else counts.reads++;
  }
  return counts;
}
