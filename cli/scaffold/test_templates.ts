/**
 * The tests `kubeop init` and `kubeop create api|webhook` write: controllers/<kind>/controller_test.ts (unit tests of
 * the reconcile on the FakeCluster, then the controller in a Manager against startFakeApiServer over HTTP) and
 * controllers/<kind>/webhook_test.ts.
 * @module
 */

import type { KindNames } from "./names.ts";

/** controllers/<kind>/controller_test.ts. */
export function controllerTestTs(k: KindNames): string {
  const key = k.clusterScoped ? `"${k.lower}-sample"` : `"default/${k.lower}-sample"`;
  const nsMeta = k.clusterScoped ? "" : `, namespace: "default"`;
  const target = k.clusterScoped ? `, targetNamespace: "default"` : "";
  const nsOpt = k.clusterScoped ? "" : `, { namespace: "default" }`;
  return `import assert from "node:assert/strict";
import { CoreTypes, findCondition, installCrds, KubeClient, Manager, parseKubeconfig } from "@kubeop/kubeop";
import { eventually, FakeCluster, startFakeApiServer } from "@kubeop/kubeop/testing";
import { type ConfigMapObject, ${k.camel}Controller, reconcile${k.kind} } from "./controller.ts";
import { type ${k.kind}, ${k.camel}Crd, ${k.kind}Type } from "./schema.ts";

const KEY = ${key};

function sample(message = "hello"): ${k.kind} {
  return {
    apiVersion: "${k.group}/${k.version}",
    kind: "${k.kind}",
    metadata: { name: "${k.lower}-sample"${nsMeta} },
    spec: { message${target} },
  };
}

Deno.test("${k.lower}: a reconcile creates the ConfigMap, sets Ready and records an Event", async () => {
  const cluster = new FakeCluster({ crds: [${k.camel}Crd()] });
  cluster.create(${k.kind}Type, sample());
  await reconcile${k.kind}(cluster.context(${k.kind}Type, KEY));
  const cm = cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, "default/${k.lower}-sample");
  assert.equal(cm?.data?.message, "hello");
  assert.equal(cm?.metadata.ownerReferences?.[0].kind, "${k.kind}");
  const ready = findCondition(cluster.get<${k.kind}>(${k.kind}Type, KEY)?.status?.conditions, "Ready");
  assert.equal(ready?.status, "True");
  assert.deepEqual(cluster.events.map((e) => e.input.reason), ["Created"]);
});

Deno.test("${k.lower}: a changed message updates the ConfigMap; a second reconcile writes nothing", async () => {
  const cluster = new FakeCluster({ crds: [${k.camel}Crd()] });
  cluster.create(${k.kind}Type, sample());
  await reconcile${k.kind}(cluster.context(${k.kind}Type, KEY));
  cluster.patch(${k.kind}Type, KEY, { spec: { message: "changed" } });
  await reconcile${k.kind}(cluster.context(${k.kind}Type, KEY));
  assert.equal(cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, "default/${k.lower}-sample")?.data?.message, "changed");
  const writes = cluster.writes().length;
  await reconcile${k.kind}(cluster.context(${k.kind}Type, KEY));
  assert.equal(cluster.writes().length, writes, "nothing changed, nothing written");
});

Deno.test("${k.lower}: a ConfigMap of the same name that is not ours is left alone and Ready is False", async () => {
  const cluster = new FakeCluster({ crds: [${k.camel}Crd()] });
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "${k.lower}-sample", namespace: "default" }, data: { mine: "yes" } });
  cluster.create(${k.kind}Type, sample());
  await reconcile${k.kind}(cluster.context(${k.kind}Type, KEY));
  assert.deepEqual(cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, "default/${k.lower}-sample")?.data, { mine: "yes" });
  const ready = findCondition(cluster.get<${k.kind}>(${k.kind}Type, KEY)?.status?.conditions, "Ready");
  assert.equal(ready?.reason, "ChildConflict");
});

Deno.test("${k.lower}: the controller reconciles on a fake API server over HTTP", async () => {
  const server = await startFakeApiServer({ port: 0 });
  const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
  const stop = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  try {
    await installCrds(client, [${k.camel}Crd()]);
    running = new Manager({ client }).add(${k.camel}Controller()).start(stop.signal);
    await client.create(${k.kind}Type, sample()${nsOpt});
    await eventually("the ${k.kind} to be Ready", async () => {
      const got = await client.get<${k.kind}>(${k.kind}Type, "${k.lower}-sample"${nsOpt});
      return findCondition(got.status?.conditions, "Ready")?.status === "True";
    });
    const cm = await client.get<ConfigMapObject>(CoreTypes.ConfigMap, "${k.lower}-sample", { namespace: "default" });
    assert.equal(cm.data?.message, "hello");
  } finally {
    stop.abort();
    await running;
    client.close();
    await server.stop();
  }
});
`;
}

/** controllers/<kind>/webhook_test.ts. */
export function webhookTestTs(k: KindNames): string {
  const validate = k.webhooks?.validate
    ? `
Deno.test("${k.lower} webhook: a message of only spaces is refused", () => {
  const verdict = validate${k.kind}(sample("   "));
  assert.match(verdict && !verdict.allowed ? verdict.message : "allowed", /spec\\.message/);
  assert.equal(validate${k.kind}(sample("hello")), undefined);
});
`
    : "";
  const mutate = k.webhooks?.default
    ? `
Deno.test("${k.lower} webhook: the defaulter trims the message", () => {
  const out = default${k.kind}(sample("  hello  "));
  assert.equal(out.spec.message, "hello");
});
`
    : "";
  const imports = [k.webhooks?.default ? `default${k.kind}` : "", k.webhooks?.validate ? `validate${k.kind}` : ""]
    .filter(Boolean).join(", ");
  return `import assert from "node:assert/strict";
import { ${imports} } from "./webhook.ts";
import type { ${k.kind} } from "./schema.ts";

function sample(message: string): ${k.kind} {
  return {
    apiVersion: "${k.group}/${k.version}",
    kind: "${k.kind}",
    metadata: { name: "${k.lower}-sample"${k.clusterScoped ? "" : `, namespace: "default"`} },
    spec: { message${k.clusterScoped ? `, targetNamespace: "default"` : ""} },
  };
}
${validate}${mutate}`;
}
