/**
 * Least privilege, both directions: deploy/rbac/ grants exactly what the controllers declare (one ClusterRole per
 * controller from its `RBAC` list, plus the runtime's Events, the leader-election Lease and `--metrics-secure`'s
 * reviews), and every client call in controllers/ is covered by its file's declaration — while nothing is declared
 * that the code does not call.
 * Regenerate deploy/rbac/: `deno run -A tests/rbac_test.ts --write`.
 */

import assert from "node:assert/strict";
import YAML from "yaml";
import { CONTROLLER_NAMES, RBAC_BY_CONTROLLER } from "../controllers/mod.ts";
import { RBAC as AT_RBAC } from "../controllers/at/controller.ts";
import { RBAC as MACHINE_RBAC } from "../controllers/machine/controller.ts";
import { RBAC as MULTISECRET_RBAC } from "../controllers/multisecret/controller.ts";
import { RBAC as NETPERF_RBAC } from "../controllers/netperf/controller.ts";
import { clusterRoleRules, rbacManifests, type RbacRule } from "../controllers/rbac.ts";
import { seedWebhooks } from "../cli/webhooks.ts";
import { caBundleTargets } from "../runtime/webhook/manifests.ts";

const root = new URL("../", import.meta.url);

/** What the webhook server injects its caBundle into: its RBAC names exactly these. */
const WEBHOOK_TARGETS = caBundleTargets(seedWebhooks());

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
  "CoreTypes.Node": { group: "", resource: "nodes" },
};

const FILES: [string, string, readonly RbacRule[]][] = [
  ["machine", "controllers/machine/controller.ts", MACHINE_RBAC],
  ["at", "controllers/at/controller.ts", AT_RBAC],
  ["netperf", "controllers/netperf/controller.ts", NETPERF_RBAC],
  ["multisecret", "controllers/multisecret/controller.ts", MULTISECRET_RBAC],
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
export function usedPermissions(code: string): Set<string> {
  // JSDoc examples are programs of their own (a test's calls through its admin client), not the module's calls.
  const source = code.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const used = new Set<string>();
  const add = (t: { group: string; resource: string }, verb: string, sub?: string) =>
    used.add(`${t.group} ${t.resource}${sub ? `/${sub}` : ""} ${verb}`);
  for (const m of source.matchAll(/client\.(get|list|create|update|patch|delete)(?:<[^>]*>)?\(\s*([\w.]+)/g)) {
    const type = TYPES[m[2]];
    assert.ok(type, `unknown resource type ${m[2]} in a client call`);
    const text = callText(source, m.index!);
    add(type, m[1], /subresource:\s*"status"/.test(text) ? "status" : undefined);
  }
  // The runtime's write helpers take the client and the resource type first (runtime/controller/status_patch.ts and
  // runtime/client/delete_ignoring_not_found.ts).
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
  const manifests = rbacManifests(RBAC_BY_CONTROLLER, WEBHOOK_TARGETS);
  for (const entry of Deno.readDirSync(new URL("deploy/rbac/", root))) {
    if (entry.name.endsWith(".yaml") && !(entry.name in manifests)) {
      Deno.removeSync(new URL(`deploy/rbac/${entry.name}`, root));
    }
  }
  for (const [file, obj] of Object.entries(manifests)) {
    await Deno.writeTextFile(new URL(`deploy/rbac/${file}`, root), YAML.stringify(obj, { lineWidth: 0 }));
  }
}

Deno.test("every client call in controllers/ is declared in its file's RBAC, and nothing more is declared", async () => {
  for (const [, file, rules] of FILES) {
    const used = usedPermissions(await Deno.readTextFile(new URL(file, root)));
    const granted = declared(rules);
    const missing = [...used].filter((p) => !granted.has(p));
    const extra = [...granted].filter((p) => !used.has(p));
    assert.deepEqual(missing, [], `${file} calls without RBAC`);
    assert.deepEqual(extra, [], `${file} declares unused RBAC`);
  }
});

Deno.test("deploy/rbac/ is exactly the generated manifests: one ClusterRole per controller, runtime, metrics", async () => {
  const manifests = rbacManifests(RBAC_BY_CONTROLLER, WEBHOOK_TARGETS);
  const onDiskFiles = [...Deno.readDirSync(new URL("deploy/rbac/", root))].map((e) => e.name).filter((n) =>
    n.endsWith(".yaml")
  );
  assert.deepEqual(onDiskFiles.sort(), Object.keys(manifests).sort(), "stale or missing files in deploy/rbac/");
  for (const [file, obj] of Object.entries(manifests)) {
    const onDisk = YAML.parse(await Deno.readTextFile(new URL(`deploy/rbac/${file}`, root)));
    assert.deepEqual(onDisk, obj, `deploy/rbac/${file} drifted (regenerate: deno run -A tests/rbac_test.ts --write)`);
  }
  for (const name of CONTROLLER_NAMES) {
    assert.ok(FILES.some(([n]) => n === name), `${name} is checked against its code`);
    const role = YAML.parse(await Deno.readTextFile(new URL(`deploy/rbac/controller_${name}_role.yaml`, root)));
    assert.equal(role.metadata.name, `kubeop-controller-${name}`);
    // The controller's role is its own RBAC list and nothing else: `--controllers machine` needs only this file.
    assert.deepEqual(role.rules, clusterRoleRules(RBAC_BY_CONTROLLER[name]));
    const text = JSON.stringify(role.rules);
    assert.ok(!text.includes('"*"'), "no wildcards");
    assert.ok(!text.includes("leases"), "leases only through the namespaced Role");
    assert.ok(!text.includes("events"), "events through the runtime role");
  }
  for (const [owner, controller] of [["machines", "machine"], ["ats", "at"], ["netperfs", "netperf"]]) {
    const role = YAML.parse(await Deno.readTextFile(new URL(`deploy/rbac/controller_${controller}_role.yaml`, root)));
    assert.ok(
      JSON.stringify(role.rules).includes(`"${owner}/finalizers"`),
      `${owner}/finalizers for blockOwnerDeletion`,
    );
  }
  const machine = JSON.stringify(
    YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/controller_machine_role.yaml", root))),
  );
  assert.ok(!machine.includes("secrets"), "the machine controller's role grants no Secret access");
  const reader = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/metrics_reader_role.yaml", root)));
  assert.deepEqual(reader.rules, [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }]);
  const auth = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/metrics_auth_role.yaml", root)));
  assert.deepEqual(auth.rules.map((r: { resources: string[]; verbs: string[] }) => [r.resources[0], r.verbs]), [
    ["tokenreviews", ["create"]],
    ["subjectaccessreviews", ["create"]],
  ]);
});

Deno.test("deploy/kustomization.yaml installs every file of deploy/rbac/", async () => {
  const kustomization = YAML.parse(await Deno.readTextFile(new URL("deploy/kustomization.yaml", root)));
  const listed = (kustomization.resources as string[]).filter((r) => r.startsWith("rbac/")).map((r) => r.slice(5));
  assert.deepEqual(listed.sort(), Object.keys(rbacManifests(RBAC_BY_CONTROLLER, WEBHOOK_TARGETS)).sort());
});

Deno.test("the ServiceAccount is the one the Deployment runs as", async () => {
  const deployment = YAML.parse(await Deno.readTextFile(new URL("deploy/operator/deployment.yaml", root)));
  const sa = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/service_account.yaml", root)));
  assert.equal(deployment.spec.template.spec.serviceAccountName, sa.metadata.name);
  assert.equal(deployment.metadata.namespace, sa.metadata.namespace);
});

Deno.test("the webhook roles name what they touch: kubeop's configurations and CRDs, and the CA Secret", async () => {
  const role = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/webhook_role.yaml", root)));
  for (const rule of role.rules) {
    assert.ok(rule.resourceNames?.length, `${rule.resources} limited by name`);
    assert.deepEqual(rule.verbs, ["get", "update"]);
  }
  assert.deepEqual(
    role.rules.flatMap((r: { resourceNames: string[] }) => r.resourceNames).sort(),
    [...WEBHOOK_TARGETS.validating!, ...WEBHOOK_TARGETS.mutating!, ...WEBHOOK_TARGETS.crds!].sort(),
  );
  const secrets = YAML.parse(await Deno.readTextFile(new URL("deploy/rbac/webhook_secret_role.yaml", root)));
  assert.equal(secrets.kind, "Role", "Secrets only in the operator's namespace");
  assert.deepEqual(secrets.rules[0].resourceNames, ["kubeop-webhook-ca"]);
});

Deno.test("the webhooks' lookups are covered by their controller's RBAC (they run in the same process)", async () => {
  const webhookFiles: [string, readonly RbacRule[]][] = [
    ["controllers/netperf/webhook.ts", NETPERF_RBAC],
    ["controllers/multisecret/webhook.ts", MULTISECRET_RBAC],
  ];
  for (const [file, rules] of webhookFiles) {
    const source = (await Deno.readTextFile(new URL(file, root))).replaceAll("deps.client.", "client.");
    const used = usedPermissions(source);
    assert.ok(used.size > 0, `${file} makes calls`);
    const granted = declared(rules);
    assert.deepEqual([...used].filter((p) => !granted.has(p)), [], `${file} calls without RBAC`);
  }
});
