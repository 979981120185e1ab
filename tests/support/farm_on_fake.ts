/**
 * The farm server with the fake API server behind it (KubeFarmCluster: SubjectAccessReview, ConfigMap storage and
 * the Pod informer on the fake), for the tests/apiservice_*_test.ts suites that exercise k8s.io/apiserver semantics
 * over HTTP. Several replicas share one fake cluster (and, with configmap storage, one ConfigMap).
 * @module
 */
import { KubeFarmCluster, podCacheFromInformer } from "../../apiservice/kube_cluster.ts";
import { type FarmFixture, startFarmFixture } from "./farm_fixture.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import type { Clock } from "../../runtime/clock.ts";
import { InformerRegistry } from "../../runtime/cache/informers.ts";
import { parseKubeconfig } from "../../runtime/client/kubeconfig.ts";
import { type CertAuthority, createCA } from "../../runtime/http/pki.ts";
import { CoreTypes, type KubeObject } from "../../runtime/types.ts";
import { type FakeApiServer, startFakeApiServer } from "../../testing/mod.ts";

/** The llamas collection of the default namespace. */
export const LLAMAS = "/apis/farm.example.com/v1alpha/namespaces/default/llamas";

/** A fake API server and farm replicas on it. */
export interface FarmOnFake {
  fake: FakeApiServer;
  client: KubeClient;
  /** The replicas, in start order ({@link FarmOnFake.close} closes those listed here then). */
  replicas: FarmFixture<KubeFarmCluster>[];
  /** The cluster the replicas share (KubeFarmCluster on the fake), to start more. */
  cluster: KubeFarmCluster;
  /** The front-proxy CA the replicas trust, to start more. */
  frontProxyCA: CertAuthority;
  close(): Promise<void>;
}

/**
 * As on a real cluster, the farm's SubjectAccessReviews for the fixture's front-proxy users need RBAC: grants
 * "alice" (whom the farm fixture calls as) and "bob" (whom tests of the apply rules also act as) every verb on
 * farm.example.com through a ClusterRole and ClusterRoleBinding in the fake's store.
 */
function grantFarmAccess(fake: FakeApiServer): void {
  const rbac = { group: "rbac.authorization.k8s.io", version: "v1" };
  fake.store.create({ ...rbac, plural: "clusterroles" }, {
    metadata: { name: "farm-user" },
    rules: [{ apiGroups: ["farm.example.com"], resources: ["*"], verbs: ["*"] }],
  });
  fake.store.create({ ...rbac, plural: "clusterrolebindings" }, {
    metadata: { name: "farm-users" },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "farm-user" },
    subjects: ["alice", "bob"].map((name) => ({ apiGroup: "rbac.authorization.k8s.io", kind: "User", name })),
  });
}

/** Starts the fake API server and `replicas` farm servers (default 1) with `storage` (default memory). */
export async function startFarmOnFake(
  opts: {
    replicas?: number;
    storage?: "memory" | "configmap";
    clock?: Clock;
    /** Runs against the fake before the farm's Pod informer starts (objects the farm finds at start). */
    before?: (client: KubeClient) => Promise<void>;
  } = {},
): Promise<FarmOnFake> {
  const fake = await startFakeApiServer({ port: 0 });
  grantFarmAccess(fake);
  const client = new KubeClient({ config: await parseKubeconfig(fake.kubeconfig) });
  await opts.before?.(client);
  const ctrl = new AbortController();
  const informers = new InformerRegistry({ client });
  const pods = podCacheFromInformer(informers.get<KubeObject>(CoreTypes.Pod));
  const running = informers.start(ctrl.signal);
  const cluster = new KubeFarmCluster({ client, pods });
  const frontProxyCA = await createCA({ commonName: "front-proxy-ca" });
  const replicas: FarmFixture<KubeFarmCluster>[] = [];
  for (let i = 0; i < (opts.replicas ?? 1); i++) {
    replicas.push(await startFarmFixture({ cluster, frontProxyCA, storage: opts.storage, clock: opts.clock }));
  }
  return {
    fake,
    client,
    replicas,
    cluster,
    frontProxyCA,
    async close() {
      for (const r of replicas) await r.close();
      ctrl.abort();
      await running;
      client.close();
      await fake.stop();
    },
  };
}

/** A POST of a llama. */
export function postLlama(name: string, labels: Record<string, string> = {}, weight = 10): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name, labels }, spec: { weight, height: 1 } }),
  };
}
