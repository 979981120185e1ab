/** The matrix's convergence check names what is wrong with each object; a failed row's evidence is written out. */
import assert from "node:assert/strict";
import { desiredChild } from "../../controllers/multisecret/controller.ts";
import { type MultiSecret, MultiSecretType } from "../../controllers/multisecret/schema.ts";
import { CoreTypes, type KubeObject, type ResourceType } from "../../runtime/types.ts";
import { type ClusterStore, Desired, FAKE_SCOPE } from "./desired.ts";
import { RowEvidence } from "./evidence.ts";

/** A ClusterStore over a map (only what check() reads). */
function mapStore(objects: Map<string, KubeObject>): ClusterStore {
  const key = (rt: ResourceType, ns?: string) => `${rt.plural}/${ns ?? ""}/`;
  return {
    create: () => Promise.resolve(),
    get: () => Promise.resolve(undefined),
    update: () => Promise.resolve(),
    delete: () => Promise.resolve(),
    list: (rt, ns) => Promise.resolve([...objects].filter(([k]) => k.startsWith(key(rt, ns))).map(([, o]) => o)),
    crdReady: () => Promise.resolve(),
  };
}

Deno.test("Desired.check: each object not converged comes with the first difference found", async () => {
  const objects = new Map<string, KubeObject>();
  const ms = (name: string, generation: number, observed: number): MultiSecret => ({
    metadata: { name, namespace: FAKE_SCOPE.namespace, uid: `uid-${name}`, generation },
    spec: { stringData: { v: "1" } },
    status: { observedGeneration: observed },
  } as MultiSecret);
  const put = (o: KubeObject, rt: ResourceType) =>
    objects.set(`${rt.plural}/${o.metadata.namespace}/${o.metadata.name}`, o);
  const converged = ms("ok", 2, 2);
  const staleStatus = ms("behind", 3, 2);
  const foreignChild = ms("taken", 1, 1);
  for (const o of [converged, staleStatus, foreignChild]) put(o, MultiSecretType);
  for (const ns of FAKE_SCOPE.targets) {
    put(desiredChild(converged, ns), CoreTypes.Secret);
    put(
      desiredChild({ ...foreignChild, metadata: { ...foreignChild.metadata, uid: "uid-old" } }, ns),
      CoreTypes.Secret,
    );
  }
  const desired = new Desired(mapStore(objects), FAKE_SCOPE);
  for (const name of ["ok", "behind", "taken", "absent"]) desired.values.set(name, "1");
  const { lost, orphans, notConverged } = await desired.check();
  assert.equal(lost, 3);
  assert.equal(orphans, 2);
  assert.deepEqual(Object.fromEntries(notConverged), {
    behind: "status.observedGeneration 2 != generation 3",
    taken: "child in faults-t1 owned by uid uid-old, not uid-taken",
    absent: "MultiSecret absent",
  });
});

Deno.test("Desired: a spec write whose answer was lost (server killed mid-answer) is adopted once the server shows it", async () => {
  const objects = new Map<string, KubeObject>();
  const key = (ns: string | undefined, name: string) => `multisecrets/${ns}/${name}`;
  const ms = {
    metadata: { name: "m", namespace: FAKE_SCOPE.namespace, uid: "uid-m", generation: 1 },
    spec: { stringData: { v: "1" } },
    status: { observedGeneration: 1 },
  } as MultiSecret;
  objects.set(key(ms.metadata.namespace, "m"), ms);
  let serverUp = true;
  const store: ClusterStore = {
    ...mapStore(objects),
    get: (_rt, name, ns) =>
      serverUp ? Promise.resolve(objects.get(key(ns, name))) : Promise.reject(new Error("ECONNREFUSED")),
    update: (_rt, obj, ns) => {
      // etcd committed the write, then kube-apiserver was killed before the answer left it
      objects.set(key(ns, obj.metadata.name!), { ...obj, metadata: { ...obj.metadata, generation: 2 } });
      serverUp = false;
      return Promise.reject(new Error("connection reset"));
    },
  };
  const desired = new Desired(store, FAKE_SCOPE);
  desired.values.set("m", "1");
  assert.equal(await desired.change("m", "2"), false, "the harness could not confirm its write");
  // The operator followed the server: status and children show v=2.
  const now = objects.get(key(ms.metadata.namespace, "m")) as MultiSecret;
  objects.set(key(ms.metadata.namespace, "m"), { ...now, status: { observedGeneration: 2 } } as MultiSecret);
  for (const ns of FAKE_SCOPE.targets) {
    objects.set(`secrets/${ns}/m`, desiredChild({ ...now, spec: { stringData: { v: "2" } } } as MultiSecret, ns));
  }
  const { lost, notConverged } = await desired.check();
  assert.deepEqual(Object.fromEntries(notConverged), {});
  assert.equal(lost, 0);
  assert.equal(desired.values.get("m"), "2");
});

Deno.test("Desired.check: a stale child's finding names its value, the MultiSecret's and the harness's", async () => {
  const objects = new Map<string, KubeObject>();
  const ms = {
    metadata: { name: "m", namespace: FAKE_SCOPE.namespace, uid: "uid-m", generation: 1 },
    spec: { stringData: { v: "2" } },
    status: { observedGeneration: 1 },
  } as MultiSecret;
  objects.set(`multisecrets/${FAKE_SCOPE.namespace}/m`, ms);
  for (const ns of FAKE_SCOPE.targets) {
    objects.set(`secrets/${ns}/m`, desiredChild({ ...ms, spec: { stringData: { v: "1" } } } as MultiSecret, ns));
  }
  const desired = new Desired(mapStore(objects), FAKE_SCOPE);
  desired.values.set("m", "2");
  const { notConverged } = await desired.check();
  assert.equal(
    notConverged.get("m"),
    `child in ${FAKE_SCOPE.targets[0]} has stale data: v="1", the MultiSecret asks "2", the harness last wrote "2"`,
  );
});

Deno.test("RowEvidence.keep writes the operator log, the requests and the findings under one directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const evidence = new RowEvidence(dir);
    evidence.log.push("line 1");
    const row = { target: "fake", fault: "restart", time: "2026-01-02T03:04:05.678Z" };
    const kept = await evidence.keep(row, { requests: ["GET x"], notConverged: ["ms-1: no child"], row });
    assert.equal(kept, `${dir}/fake-restart-2026-01-02T03-04-05-678Z`);
    assert.equal(await Deno.readTextFile(`${kept}/operator.log`), "line 1\n");
    assert.equal(await Deno.readTextFile(`${kept}/requests.log`), "GET x\n");
    assert.equal(await Deno.readTextFile(`${kept}/not-converged.txt`), "ms-1: no child\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
