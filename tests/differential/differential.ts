/**
 * The differential measure, end to end: starts the fake API server and a real control plane (kube-apiserver v1.37.2,
 * etcd, kube-controller-manager), prepares the same namespaces on both, runs the battery and returns the result.
 * `deno run -A tests/differential/main.ts` prints it and writes it as JSON; tests/real/differential_real_test.ts
 * keeps the identical share from falling.
 * @module
 */
import { KubeClient } from "../../runtime/client/client.ts";
import { loadKubeconfigFile } from "../../runtime/client/kubeconfig.ts";
import { startRealControlPlane } from "../../testing/envtest/real_control_plane.ts";
import { eventually } from "../../testing/eventually.ts";
import { startFakeApiServer } from "../../testing/mod.ts";
import type { DiscoveredResource } from "./battery_resources.ts";
import { buildBattery, type DiffResult, runBattery } from "./run.ts";

const DISCOVERY = new URL("../../testing/apiserver/testdata/real/discovery.json", import.meta.url);

/** The battery's namespaces: most objects live in the first; LimitRanges and ResourceQuotas in the second. */
export const NAMESPACES = ["diff", "diff-isolated"] as const;

async function prepare(client: KubeClient): Promise<void> {
  for (const name of NAMESPACES) {
    const res = await client.request("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
    });
    if (res.status !== 201) throw new Error(`creating namespace ${name}: ${res.status}`);
  }
  // Pods need the namespace's ServiceAccount `default` (kube-controller-manager's, or the fake's).
  await eventually("ServiceAccount default", async () => {
    const res = await client.request("GET", `/api/v1/namespaces/${NAMESPACES[0]}/serviceaccounts/default`);
    return res.status === 200 || undefined;
  }, { timeoutMs: 30_000, intervalMs: 100 });
}

/** Runs the battery against a fresh fake and a real control plane from `binDir`. */
export async function runDifferential(binDir: string): Promise<DiffResult> {
  const discovery = JSON.parse(await Deno.readTextFile(DISCOVERY)) as {
    serverVersion: string;
    legacy: Record<string, { resources: DiscoveredResource[] }>;
  };
  const [fake, real] = await Promise.all([
    startFakeApiServer({ gracefulPodDeletion: true, defaultNamespaceObjects: true }),
    startRealControlPlane({ binDir }),
  ]);
  const dir = await Deno.makeTempDir({ prefix: "kubeop-diff-" });
  const clients: KubeClient[] = [];
  try {
    await fake.writeKubeconfig(`${dir}/fake.kubeconfig`);
    for (const path of [`${dir}/fake.kubeconfig`, real.kubeconfigPath]) {
      clients.push(new KubeClient({ config: await loadKubeconfigFile(path), maxRetries: 0 }));
    }
    await Promise.all(clients.map(prepare));
    const battery = buildBattery(discovery.legacy, NAMESPACES[0], NAMESPACES[1]);
    return await runBattery(battery, clients[0], clients[1], {
      against: `kube-apiserver ${discovery.serverVersion}`,
    });
  } finally {
    for (const c of clients) c.close();
    await Promise.all([fake.stop(), real.stop()]);
    await Deno.remove(dir, { recursive: true });
  }
}
