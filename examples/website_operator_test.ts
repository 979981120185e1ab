import assert from "node:assert/strict";
import {
  type Condition,
  CoreTypes,
  findCondition,
  isNotFound,
  KubeClient,
  type KubeObject,
  Manager,
  parseKubeconfig,
} from "../runtime/mod.ts";
import { eventually, FakeCluster, startFakeApiServer } from "../testing/mod.ts";
import {
  type ConfigMapObject,
  CONTENT_HASH,
  type DeploymentObject,
  DeploymentType,
  FINALIZER,
  reconcileWebsite,
  REGISTRY_NAME,
  registryKey,
  type Website,
  websiteController,
  websiteCrd,
  WebsiteType,
} from "./website_operator.ts";

const REGISTRY_NS = "kubeop-system";
const KEY = "default/blog";
const REGISTRY_KEY = `${REGISTRY_NS}/${REGISTRY_NAME}`;

function newCluster(): FakeCluster {
  return new FakeCluster({ crds: [websiteCrd()], namespaces: ["default", REGISTRY_NS] });
}

function blog(): Website {
  return {
    apiVersion: "examples.kubeop.dev/v1alpha1",
    kind: "Website",
    metadata: { name: "blog", namespace: "default" },
    spec: { image: "nginx:1.27", replicas: 2, message: "<h1>hello</h1>" },
  };
}

async function reconcile(cluster: FakeCluster): Promise<void> {
  await reconcileWebsite(cluster.context<Website>(WebsiteType, KEY), { registryNamespace: REGISTRY_NS });
}

function condition(site: Website | undefined, type: string): Condition | undefined {
  return findCondition(site?.status?.conditions, type);
}

/** The status the Deployment controller (absent from the fake) would write once the rollout finished. */
function rolledOutStatus(d: DeploymentObject): Record<string, unknown> {
  const replicas = d.spec.replicas ?? 1;
  return {
    observedGeneration: d.metadata.generation,
    replicas,
    updatedReplicas: replicas,
    availableReplicas: replicas,
  };
}

Deno.test("the Website CRD is served with its schema: a Website without spec.image is refused", () => {
  const cluster = newCluster();
  assert.throws(
    () => cluster.create(WebsiteType, { metadata: { name: "bad", namespace: "default" }, spec: { replicas: 1 } }),
    /image/,
  );
  assert.equal(cluster.create<Website>(WebsiteType, blog()).spec.image, "nginx:1.27");
});

Deno.test("a new Website gets the finalizer, owned children, a registry entry and RollingOut until available", async () => {
  const cluster = newCluster();
  const created = cluster.create<Website>(WebsiteType, blog());
  await reconcile(cluster);

  const site = cluster.get<Website>(WebsiteType, KEY)!;
  assert.deepEqual(site.metadata.finalizers, [FINALIZER]);
  const page = cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, KEY)!;
  assert.equal(page.data?.["index.html"], "<h1>hello</h1>");
  const deployment = cluster.get<DeploymentObject>(DeploymentType, KEY)!;
  assert.equal(deployment.spec.replicas, 2);
  assert.equal(deployment.spec.template.spec.containers[0].image, "nginx:1.27");
  for (const child of [page, deployment]) {
    assert.deepEqual(child.metadata.ownerReferences?.map((r) => [r.kind, r.uid, r.controller]), [
      ["Website", created.metadata.uid, true],
    ]);
  }
  const registry = cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, REGISTRY_KEY);
  assert.equal(registry?.data?.[registryKey(site)], "nginx:1.27");
  assert.equal(site.status?.observedGeneration, 1);
  assert.equal(condition(site, "Ready")?.status, "False");
  assert.equal(condition(site, "Ready")?.reason, "RollingOut");
  assert.equal(condition(site, "Progressing")?.status, "True");
  assert.equal(condition(site, "Degraded")?.status, "False");
  assert.deepEqual(cluster.events.map((e) => e.input.reason), ["Created", "Created", "Registered"]);

  cluster.patch(DeploymentType, KEY, { status: rolledOutStatus(deployment) }, "status");
  await reconcile(cluster);
  const ready = cluster.get<Website>(WebsiteType, KEY)!;
  assert.equal(condition(ready, "Ready")?.status, "True");
  assert.equal(condition(ready, "Ready")?.reason, "Available");
  assert.equal(condition(ready, "Ready")?.observedGeneration, 1);
  assert.equal(condition(ready, "Progressing")?.status, "False");
  assert.equal(ready.status?.availableReplicas, 2);
});

Deno.test("reconciling a converged Website writes nothing", async () => {
  const cluster = newCluster();
  cluster.create(WebsiteType, blog());
  await reconcile(cluster);
  const deployment = cluster.get<DeploymentObject>(DeploymentType, KEY)!;
  cluster.patch(DeploymentType, KEY, { status: rolledOutStatus(deployment) }, "status");
  await reconcile(cluster);
  const writes = cluster.writes().length;
  cluster.clock.advance(60_000); // a later resync: lastTransitionTime must not move
  await reconcile(cluster);
  assert.equal(cluster.writes().length, writes);
});

Deno.test("a spec change updates both children and the status observes the new generation", async () => {
  const cluster = newCluster();
  cluster.create(WebsiteType, blog());
  await reconcile(cluster);
  const before = cluster.get<DeploymentObject>(DeploymentType, KEY)!;
  cluster.patch(WebsiteType, KEY, { spec: { image: "nginx:1.28", replicas: 3, message: "<h1>news</h1>" } });
  await reconcile(cluster);

  const site = cluster.get<Website>(WebsiteType, KEY)!;
  assert.equal(site.metadata.generation, 2);
  assert.equal(site.status?.observedGeneration, 2);
  assert.equal(condition(site, "Ready")?.observedGeneration, 2);
  assert.equal(cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, KEY)?.data?.["index.html"], "<h1>news</h1>");
  const after = cluster.get<DeploymentObject>(DeploymentType, KEY)!;
  assert.equal(after.spec.replicas, 3);
  assert.equal(after.spec.template.spec.containers[0].image, "nginx:1.28");
  const annotation = (d: DeploymentObject) => d.spec.template.metadata?.annotations?.[CONTENT_HASH];
  assert.notEqual(annotation(after), annotation(before)); // a new page rolls the Pods
  assert.equal(cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, REGISTRY_KEY)?.data?.["default.blog"], "nginx:1.28");
});

Deno.test("a same-named ConfigMap that is not ours is left alone and reported Degraded with a Warning", async () => {
  const cluster = newCluster();
  cluster.create(CoreTypes.ConfigMap, { metadata: { name: "blog", namespace: "default" }, data: { mine: "yes" } });
  cluster.create(WebsiteType, blog());
  await reconcile(cluster);

  assert.deepEqual(cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, KEY)?.data, { mine: "yes" });
  const site = cluster.get<Website>(WebsiteType, KEY)!;
  assert.equal(condition(site, "Degraded")?.status, "True");
  assert.equal(condition(site, "Degraded")?.reason, "ChildConflict");
  assert.equal(condition(site, "Ready")?.status, "False");
  assert.ok(cluster.events.some((e) => e.input.type === "Warning" && e.input.reason === "ChildConflict"));
});

Deno.test("deleting a Website runs the finalizer, then the garbage collector removes the children", async () => {
  const cluster = newCluster();
  cluster.create(WebsiteType, blog());
  await reconcile(cluster);
  cluster.delete(WebsiteType, KEY);
  const terminating = cluster.get<Website>(WebsiteType, KEY);
  assert.ok(terminating?.metadata.deletionTimestamp, "the finalizer holds the Website");
  assert.ok(cluster.get(CoreTypes.ConfigMap, KEY), "children stay while the owner exists");

  await reconcile(cluster);
  assert.equal(cluster.context(WebsiteType, KEY).object, undefined); // (a new context lets the collector run)
  assert.equal(cluster.get(WebsiteType, KEY), undefined);
  assert.equal(cluster.get(CoreTypes.ConfigMap, KEY), undefined);
  assert.equal(cluster.get(DeploymentType, KEY), undefined);
  assert.equal(cluster.get<ConfigMapObject>(CoreTypes.ConfigMap, REGISTRY_KEY)?.data?.["default.blog"], undefined);
  assert.equal(cluster.events.at(-1)?.input.reason, "Unregistered");
});

Deno.test("the Website operator on a Manager over HTTP: create → Ready, spec change → observed, delete → cleaned up", async () => {
  const server = await startFakeApiServer();
  const client = new KubeClient({ config: await parseKubeconfig(server.kubeconfig) });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  const ns = { namespace: "default" };
  const get = <T extends KubeObject>(rt: typeof WebsiteType, name: string, namespace = "default") =>
    client.get<T>(rt, name, { namespace }).catch((err) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  // Plays the Deployment controller, which the fake server does not run.
  const rollOut = async () => {
    const d = await eventually("the Deployment", () => get<DeploymentObject>(DeploymentType, "blog"));
    await client.patch(DeploymentType, "blog", { status: rolledOutStatus(d) }, {
      ...ns,
      type: "merge",
      subresource: "status",
    });
  };
  const readyAt = (generation: number) =>
    eventually(`the Website Ready at generation ${generation}`, async () => {
      const site = await get<Website>(WebsiteType, "blog");
      return site?.status?.observedGeneration === generation && condition(site, "Ready")?.status === "True" && site;
    });
  try {
    await client.create(CoreTypes.CustomResourceDefinition, websiteCrd());
    await client.create(CoreTypes.Namespace, { metadata: { name: REGISTRY_NS } });
    await eventually("the Website kind to be served", () => client.list(WebsiteType, ns), { retryErrors: true });
    running = new Manager({ client }).add(websiteController({ registryNamespace: REGISTRY_NS })).start(ac.signal);

    await client.create(WebsiteType, blog(), ns);
    await rollOut();
    const ready = await readyAt(1);
    assert.equal(condition(ready, "Ready")?.reason, "Available");
    assert.deepEqual(ready.metadata.finalizers, [FINALIZER]);

    await client.patch(WebsiteType, "blog", { spec: { replicas: 1, message: "v2" } }, { ...ns, type: "merge" });
    await eventually("the new page", async () => {
      const page = await get<ConfigMapObject>(CoreTypes.ConfigMap, "blog");
      return page?.data?.["index.html"] === "v2";
    });
    await eventually("the Deployment scaled to 1", async () => {
      return (await get<DeploymentObject>(DeploymentType, "blog"))?.spec.replicas === 1;
    });
    await rollOut();
    assert.equal((await readyAt(2)).status?.availableReplicas, 1);

    await client.delete(WebsiteType, "blog", ns);
    await eventually("the Website, its children and its registry entry to be gone", async () => {
      const registry = await get<ConfigMapObject>(CoreTypes.ConfigMap, REGISTRY_NAME, REGISTRY_NS);
      return registry?.data?.["default.blog"] === undefined &&
        !(await get(WebsiteType, "blog")) && !(await get(CoreTypes.ConfigMap, "blog")) &&
        !(await get(DeploymentType, "blog"));
    });
  } finally {
    ac.abort();
    await running;
    client.close();
    await server.stop();
  }
});
