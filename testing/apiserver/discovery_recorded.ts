/**
 * kube-apiserver v1.37.2's own discovery of its built-in group-versions, recorded by testdata/capture_discovery.ts
 * into testdata/real/discovery.json: the fake's `/api/v1`, `/apis/<group>/<version>` and aggregated discovery v2
 * serve these entries for every built-in resource the fake serves, so their verbs, short names, categories,
 * subresources (pods/exec, pods/eviction as policy/v1 Eviction, serviceaccounts/token as TokenRequest, ...) and
 * storage version hashes are kube's, not a hand-kept table. Custom resources and aggregated APIs keep their own
 * rules (discovery.ts, discovery_v2.ts).
 * @module
 */
import recorded from "./testdata/real/discovery.json" with { type: "json" };
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

type Json = Record<string, unknown>;

/** What testdata/real/discovery.json holds. */
export interface DiscoveryRecording {
  /** `gitVersion` of the server recorded, e.g. v1.37.2. */
  serverVersion: string;
  /** The legacy APIResourceList of each built-in group-version, keyed `v1` or `<group>/<version>`. */
  legacy: Record<string, { resources: Json[] } & Json>;
  /** The aggregated discovery v2 documents (APIGroupDiscoveryList) of `/api` and `/apis`. */
  v2: { api: Json; apis: Json };
}

/** The Accept header that asks for aggregated discovery v2. */
const V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/**
 * Reads a server's discovery through `get(path, accept)` (JSON answers): what testdata/capture_discovery.ts records
 * and what the real tier compares with the recording.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFakeApiServer } from "../mod.ts";
 * import { captureDiscovery } from "./discovery_recorded.ts";
 * const server = await startFakeApiServer({ anonymousAdmin: true });
 * const get = async (path: string, accept = "application/json") =>
 *   await (await fetch(`${server.url}${path}`, { headers: { accept } })).json();
 * const seen = await captureDiscovery(get);
 * assert.ok(seen.legacy["apps/v1"].resources.some((r) => r.name === "deployments/scale"));
 * await server.stop();
 * ```
 */
export async function captureDiscovery(
  get: (path: string, accept?: string) => Promise<unknown>,
): Promise<DiscoveryRecording> {
  const version = await get("/version") as { gitVersion: string };
  const legacy: DiscoveryRecording["legacy"] = {};
  legacy["v1"] = await get("/api/v1") as DiscoveryRecording["legacy"][string];
  const groups = await get("/apis") as { groups: { versions: { groupVersion: string }[] }[] };
  for (const group of groups.groups) {
    for (const { groupVersion } of group.versions) {
      legacy[groupVersion] = await get(`/apis/${groupVersion}`) as DiscoveryRecording["legacy"][string];
    }
  }
  const v2 = { api: await get("/api", V2) as Json, apis: await get("/apis", V2) as Json };
  return { serverVersion: version.gitVersion, legacy, v2 };
}

/** The recording (testdata/real/discovery.json). */
export const DISCOVERY_RECORDING = recorded as unknown as DiscoveryRecording;

/**
 * kube's legacy discovery entries of built-in resource `plural` in `group`/`version` — the resource and its
 * subresources, in kube's order — or undefined when kube does not serve it there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedLegacyEntries } from "./discovery_recorded.ts";
 * const pods = recordedLegacyEntries("", "v1", "pods")!;
 * assert.ok(pods.some((e) => e.name === "pods/exec"));
 * const eviction = pods.find((e) => e.name === "pods/eviction")!;
 * assert.deepEqual([eviction.group, eviction.version, eviction.kind], ["policy", "v1", "Eviction"]);
 * ```
 */
export function recordedLegacyEntries(group: string, version: string, plural: string): Json[] | undefined {
  const list = DISCOVERY_RECORDING.legacy[group ? `${group}/${version}` : version];
  const entries = list?.resources.filter((r) => r.name === plural || String(r.name).startsWith(`${plural}/`));
  return entries?.length ? copyJson(entries) : undefined;
}

/**
 * kube's aggregated discovery v2 entry (APIResourceDiscovery, with its subresources) of built-in resource `plural` in
 * `group`/`version`, or undefined when kube does not serve it there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedV2Resource } from "./discovery_recorded.ts";
 * const token = (recordedV2Resource("", "v1", "serviceaccounts")!.subresources as { subresource: string }[])
 *   .find((s) => s.subresource === "token");
 * assert.ok(token);
 * ```
 */
export function recordedV2Resource(group: string, version: string, plural: string): Json | undefined {
  const doc = group ? DISCOVERY_RECORDING.v2.apis : DISCOVERY_RECORDING.v2.api;
  const items = (doc.items ?? []) as { metadata?: { name?: string }; versions?: Json[] }[];
  const entry = items.find((g) => (g.metadata?.name ?? "") === group)?.versions?.find((v) => v.version === version);
  const found = (entry?.resources as Json[] | undefined)?.find((r) => r.resource === plural);
  return found ? copyJson(found) : undefined;
}
