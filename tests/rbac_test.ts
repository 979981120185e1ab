/**
 * Least privilege, both directions: deploy/rbac/ grants exactly what the controllers declare (their `RBAC`
 * lists plus the runtime's Events and the leader-election Lease), and every client call in controllers/ is
 * covered by its file's declaration — while nothing is declared that the code does not call.
 * Regenerate deploy/rbac/: `deno run -A tests/rbac_test.ts --write`.
 */

import assert from "node:assert/strict";
import YAML from "yaml";
import { allRbacRules } from "../controllers/mod.ts";
import { RBAC as AT_RBAC } from "../controllers/at/controller.ts";
import { RBAC as MACHINE_RBAC } from "../controllers/machine/controller.ts";
import { RBAC as MULTISECRET_RBAC } from "../controllers/multisecret/controller.ts";
import { RBAC as NETPERF_RBAC } from "../controllers/netperf/controller.ts";
import { rbacManifests, type RbacRule } from "../controllers/rbac.ts";

const root = new URL("../", import.meta.url);

/** Resource-type identifiers the controllers pass to the client, and what they address. */
const TYPES: Record<string, { group: string; resource: string }> = {
  MachineType: { group: "useless.container.training", resource: "machines" },
  SwitchType: { group: "useless.container.training", resource: "switches" },
  AtType: { group: "cnat.ishankhare.dev", resource: "ats" },
  NetperfType: { group: "app.example.com", resource: "netperfs" },
  MultiSecretType: { group: "multi.ddnw.ml", resource: "multisecrets" },
  "CoreTypes.Pod": { group: "", resource: "pods" },
  "CoreTypes.Secret": { group: "", resource: "secrets" },
  "CoreTypes.Namespace": { group: "", resource: "namespaces" },
};

const FILES: [string, readonly RbacRule[]][] = [
  ["controllers/machine/controller.ts", MACHINE_RBAC],
  ["controllers/at/controller.ts", AT_RBAC],
  ["controllers/netperf/controller.ts", NETPERF_RBAC],
  ["controllers/multisecret/controller.ts", MULTISECRET_RBAC],
];

/** The text of the call starting at `start` (up to its balancing parenthesis). */
function callText(source: string, start: number): string {
  let depth = 0;
  for (let i = source.indexOf("(", start); i < source.length; i++) {
    if (source[i] === "(") depth++;
    else if (source[i] === ")" && --depth === 0) return source.slice(start, i + 1);
  }
  return source.slice(start);
}

/** `group resource verb` triples the code in `source` uses. */
export function usedPermissions(source: string): Set<string> {
  const used = new Set<string>();
  const add = (t: { group: string; resource: string }, verb: string, sub?: string) =>
    used.add(`${t.group} ${t.resource}${sub ? `/${sub}` : ""} ${verb}`);
  for (const m of source.matchAll(/client\.(get|list|create|update|patch|delete)(?:<[^>]*>)?\(\s*([\w.]+)/g)) {
    const type = TYPES[m[2]];
    assert.ok(type, `unknown resource type ${m[2]} in a client call`);
    const text = callText(source, m.index!);
    add(type, m[1], /subresource:\s*"status"/.test(text) ? "status" : undefined);
  }
  // The runtime's write helpers take the client and the resource type first (runtime/status_patch.ts and
  // runtime/delete_ignoring_not_found.ts).
  for (const m of source.matchAll(/patchStatusIfChanged\(\s*[\w.]+,\s*([\w.]+)/g)) {
    const type = TYPES[m[1]];
    assert.ok(type, `unknown resource type ${m[1]} in patchStatusIfChanged`);
    add(type, "patch", "status");
  }
  for (const m of source.matchAll(/deleteIgnoringNotFound\(\s*[\w.]+,\s*([\w.]+)/g)) {
    const type = TYPES[m[1]];
    assert.ok(type, `unknown resource type ${m[1]} in deleteIgnoringNotFound`);
    add(type, "delete");
  }
  for (const m of source.matchAll(/client\.request\(/g)) {
    const text = callText(source, m.index!);
    const log = /pods\/\$\{[^}]+\}\/log/.test(text);
    assert.ok(log, `unrecognised raw request: ${text.slice(0, 80)}`);
    add({ group: "", resource: "pods" }, "get", "log");
  }
  // Informers (For, Owns, Watches and cache reads) list and watch; cache misses are confirmed with get.
  for (const m of source.matchAll(/(?:informers\.get(?:<[^>]*>)?\(|\.owns\(|\.watches(?:Opts)?\(|for: )\s*([\w.]+)/g)) {
    const type = TYPES[m[1]];
    if (!type) continue;
    add(type, "list");
    add(type, "watch");
    add(type, "get");
  }
  // Controller references with blockOwnerDeletion need update on the owner's finalizers subresource.
  if (/setControllerReference\(/.test(source)) {
    const forType = /for: (\w+)/.exec(source)?.[1];
    if (forType) add(TYPES[forType], "update", "finalizers");
  }
  return used;
}

function declared(rules: readonly RbacRule[]): Set<string> {
  return new Set(rules.flatMap((r) => r.verbs.map((v) => `${r.group} ${r.resource} ${v}`)));
}

if (import.meta.main && Deno.args.includes("--write")) {
  for (const [file, obj] of Object.entries(rbacManifests(allRbacRules()))) {
    await Deno.writeTextFile(new URL(`deploy/rbac/${file}`, root), YAML.stringify(obj, { lineWidth: 0 }));
  }
}

Deno.test("every client call in controllers/ is declared in its file's RBAC, and nothing more is declared", async () => {
  for (const [file, rules] of FILES) {
    const used = usedPermissions(await Deno.readTextFile(new URL(file, root)));
    const granted = declared(rules);
    const missing = [...used].filter((p) => !granted.has(p));
    const extra = [...granted].filter((p) => !used.has(p));
    assert.deepEqual(missing, [], `${file} calls without RBAC`);
    assert.deepEqual(extra, [], `${file} declares unused RBAC`);
  }
});

Deno.test("deploy/rbac/ is exactly the declared rules (ClusterRole) plus the leader-election Role", async () => {
  for (const [file, obj] of Object.entries(rbacManifests(allRbacRules()))) {
    const onDisk = YAML.parse(await Deno.readTextFile(new URL(`deploy/rbac/${file}`, root)));
    assert.deepEqual(onDisk, obj, `deploy/rbac/${file} drifted (regenerate: deno run -A tests/rbac_test.ts --write)`);
  }
  const role = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/cluster_role.yaml", root)));
  const text = JSON.stringify(role.rules);
  assert.ok(!text.includes('"*"'), "no wildcards");
  assert.ok(!text.includes("leases"), "leases only through the namespaced Role");
  for (const owner of ["machines", "ats", "netperfs"]) {
    assert.ok(text.includes(`"${owner}/finalizers"`), `${owner}/finalizers update for blockOwnerDeletion`);
  }
});

Deno.test("the ServiceAccount is the one the Deployment runs as", async () => {
  const deployment = YAML.parse(await Deno.readTextFile(new URL("deploy/operator/deployment.yaml", root)));
  const sa = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/service_account.yaml", root)));
  assert.equal(deployment.spec.template.spec.serviceAccountName, sa.metadata.name);
  assert.equal(deployment.metadata.namespace, sa.metadata.namespace);
});
