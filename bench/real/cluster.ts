/**
 * A real control plane for the real-apiserver benchmarks and the parity test: the real-cluster tier's
 * {@link startRealCluster} with an audit log of the Machine/Switch, Event and Lease requests (who made each request
 * is told by its User-Agent), the Machine and Switch CRDs from crds/ installed and warmed (the first write to a fresh
 * CRD waits ~2 s in kube-apiserver), and an admin {@link KubeClient} for the harness.
 * @module
 */

import { parse as parseYaml } from "yaml";
import { KubeClient } from "../../runtime/client/client.ts";
import { loadClusterConfig } from "../../runtime/client/kubeconfig.ts";
import type { KubeObject, ResourceType } from "../../runtime/types.ts";
import { type RealCluster, startRealCluster } from "../../tests/support/real_cluster.ts";

/** Machine and Switch, addressed for the harness's writes. */
export const MachineRT: ResourceType = {
  group: "useless.container.training",
  version: "v1alpha1",
  plural: "machines",
  kind: "Machine",
  namespaced: true,
};
/** Switches. */
export const SwitchRT: ResourceType = { ...MachineRT, plural: "switches", kind: "Switch" };
const CrdRT: ResourceType = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};
const NamespaceRT: ResourceType = {
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
};

/** The User-Agent of every request the harness itself makes (excluded from the operators' counts). */
export const HARNESS_USER_AGENT = "bench-harness";

/** Only the requests the benchmarks count: Machines, Switches, Events, Leases. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  resources:
  - group: useless.container.training
  - group: events.k8s.io
  - group: ""
    resources: ["events"]
  - group: coordination.k8s.io
    resources: ["leases"]
- level: None
`;

/** A running control plane with the Machine CRDs. */
export interface BenchCluster {
  /** The processes and their kubeconfig. */
  real: RealCluster;
  /** Admin client with User-Agent {@link HARNESS_USER_AGENT}. */
  client: KubeClient;
  /** The kube-apiserver audit log (JSON lines). */
  auditPath: string;
  /** Stops everything. */
  stop(): Promise<void>;
}

/** Starts etcd + kube-apiserver (+ kube-controller-manager for garbage collection) and installs the CRDs. */
export async function startBenchCluster(binDir?: string): Promise<BenchCluster> {
  const real = await startRealCluster({
    binDir,
    files: { "audit-policy.yaml": AUDIT_POLICY },
    apiserverArgs: [
      "--audit-policy-file=audit-policy.yaml",
      "--audit-log-path=audit.log",
      "--audit-log-format=json",
      "--audit-log-maxsize=0",
    ],
  });
  const config = await loadClusterConfig({ kubeconfig: real.kubeconfigPath });
  const client = new KubeClient({ config, userAgent: HARNESS_USER_AGENT });
  const stop = async () => {
    client.close();
    await real.stop();
  };
  try {
    await installMachineCrds(client);
  } catch (err) {
    await stop();
    throw err;
  }
  return { real, client, auditPath: `${real.dir}/audit.log`, stop };
}

/** Creates the Machine and Switch CRDs from crds/, waits until both are Established, and warms their first write. */
export async function installMachineCrds(client: KubeClient): Promise<void> {
  for (const file of ["machines.useless.container.training.yaml", "switches.useless.container.training.yaml"]) {
    const text = await Deno.readTextFile(new URL(`../../crds/${file}`, import.meta.url));
    const crd = parseYaml(text) as KubeObject & {
      spec: { versions: { schema?: { openAPIV3Schema?: { properties?: Record<string, unknown> } } }[] };
    };
    // kube-apiserver accepts nothing but `type: object` on the metadata schema (a description is Forbidden).
    for (const v of crd.spec.versions) {
      const props = v.schema?.openAPIV3Schema?.properties;
      if (props?.metadata) props.metadata = { type: "object" };
    }
    await client.create(CrdRT, crd);
  }
  const deadline = Date.now() + 60_000;
  for (const name of ["machines.useless.container.training", "switches.useless.container.training"]) {
    for (;;) {
      const crd = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(
        CrdRT,
        name,
      );
      if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established within 60 s`);
      await new Promise((r) => setTimeout(r, 100)); // polling the server's condition, bounded by the deadline
    }
  }
  await createNamespace(client, "bench-warmup");
  for (const rt of [MachineRT, SwitchRT]) {
    for (const deadlineAt = Date.now() + 30_000;;) {
      try {
        await client.create(rt, { metadata: { name: "warm", namespace: "bench-warmup" }, spec: {} }, {
          namespace: "bench-warmup",
        });
        break;
      } catch (err) {
        if (Date.now() > deadlineAt) throw new Error(`warming ${rt.plural}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200)); // the CRD's storage is not served yet: retry until the deadline
      }
    }
    await client.delete(rt, "warm", { namespace: "bench-warmup" });
  }
}

/** Creates namespace `name`. */
export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(NamespaceRT, { metadata: { name } });
}

/** Creates Machines `m-00000`… in `namespace` with `spec`, `concurrency` requests in flight. */
export async function createMachines(
  client: KubeClient,
  namespace: string,
  count: number,
  spec: Record<string, unknown>,
  opts: { concurrency?: number; first?: number } = {},
): Promise<void> {
  const first = opts.first ?? 0;
  let next = first;
  const worker = async () => {
    while (next < first + count) {
      const i = next++;
      await client.create(MachineRT, {
        metadata: { name: `m-${String(i).padStart(5, "0")}`, namespace },
        spec,
      }, { namespace });
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 16, count) }, worker));
}

/** A Machine as the harness reads it. */
export interface MachineView extends KubeObject {
  /** spec */
  spec?: { switches?: number; switchPosition?: string; selector?: Record<string, string> };
  /** status */
  status?: {
    positions?: string;
    observedGeneration?: number;
    seenAt?: string;
    lastFlipAt?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** Converged: `switches` positions all down and Ready=True. */
export function machineConverged(m: MachineView): boolean {
  const want = m.spec?.switches ?? 0;
  return m.status?.positions === "d".repeat(want) &&
    m.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

/**
 * Resolves with the time (performance.now()) at which `count` Machines of `namespace` satisfied `done`, watching
 * them (one list, then one watch); rejects after `deadlineMs`.
 */
export async function waitForMachines(
  client: KubeClient,
  namespace: string,
  count: number,
  done: (m: MachineView) => boolean,
  deadlineMs: number,
): Promise<number> {
  const state = new Map<string, boolean>();
  const finished = () => [...state.values()].filter(Boolean).length >= count;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error("deadline")), deadlineMs);
  try {
    for (;;) {
      const list = await client.list<MachineView>(MachineRT, { namespace });
      state.clear();
      for (const m of list.items) state.set(m.metadata.name!, done(m));
      if (finished()) return performance.now();
      let at: number | undefined;
      try {
        await client.watchStream<MachineView>(MachineRT, {
          namespace,
          resourceVersion: list.metadata.resourceVersion,
          signal: abort.signal,
          timeoutSeconds: Math.ceil(deadlineMs / 1000),
        }, (ev) => {
          if (ev.type === "ADDED" || ev.type === "MODIFIED") state.set(ev.object.metadata.name!, done(ev.object));
          else if (ev.type === "DELETED") state.delete(ev.object.metadata.name!);
          if (at === undefined && finished()) {
            at = performance.now();
            abort.abort();
          }
        });
      } catch (err) {
        if (at !== undefined) return at;
        if (abort.signal.aborted) {
          const n = [...state.values()].filter(Boolean).length;
          throw new Error(`${namespace}: ${n}/${count} Machines done within ${deadlineMs} ms`);
        }
        if (!/410|Gone|expired/i.test(String(err))) throw err;
        continue; // relist after 410
      }
      if (at !== undefined) return at;
      if (abort.signal.aborted) throw new Error(`${namespace}: Machines not done within ${deadlineMs} ms`);
    }
  } finally {
    clearTimeout(timer);
  }
}
