// Parity of kubeop's Machine operator and its controller-runtime peer (bench/peers/machine-go) on a REAL
// kube-apiserver: 10 Machines (3 Switches each, two with their own switch up) end with the same objects, the same
// Events and the same number of writes on both sides (counted from the audit log per User-Agent; see the test for the
// one timing-dependent status PATCH controller-runtime may add). The peer is built
// by bench/real/build_peer.sh (`npx deno task bench:real` builds it); without it this test is skipped.
import assert from "node:assert/strict";
import { countRequests, type RequestCounts } from "../../bench/real/audit.ts";
import {
  type BenchCluster,
  createMachines,
  createNamespace,
  machineConverged,
  MachineRT,
  type MachineView,
  startBenchCluster,
  SwitchRT,
  waitForMachines,
} from "../../bench/real/cluster.ts";
import { type OperatorKind, startOperator, USER_AGENT_PREFIX, waitReady } from "../../bench/real/operators.ts";
import type { KubeObject, ResourceType } from "../../runtime/types.ts";
import { realClusterBinDir } from "../support/real_cluster.ts";

const binDir = await realClusterBinDir();
const ROOT = new URL("../../", import.meta.url).pathname;

async function builtPeer(): Promise<string | undefined> {
  const out = await new Deno.Command("bash", {
    args: [`${ROOT}bench/real/build_peer.sh`, "--check"],
    stdout: "piped",
    stderr: "null",
  }).output();
  return out.code === 0 ? new TextDecoder().decode(out.stdout).trim() : undefined;
}
const peerDir = await builtPeer();
if (!peerDir) {
  console.warn(
    "machine parity: the controller-runtime peer is not built — run `bash bench/real/build_peer.sh` " +
      "(or `npx deno task bench:real`); skipping",
  );
}

const EventRT: ResourceType = {
  group: "events.k8s.io",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
};

interface Outcome {
  machines: Record<string, unknown>;
  events: Record<string, string[]>;
  counts: RequestCounts;
}

/** What must be equal: everything but names, uids, resourceVersions and times. */
async function outcome(bc: BenchCluster, ns: string, kind: OperatorKind): Promise<Outcome> {
  const counts = await settledCounts(bc.auditPath, kind, ns); // first: the objects are read once writes stopped
  const machines = (await bc.client.list<MachineView>(MachineRT, { namespace: ns })).items;
  const switches = (await bc.client.list<KubeObject & { spec?: { position?: string } }>(SwitchRT, { namespace: ns }))
    .items;
  const byUid = new Map(machines.map((m) => [m.metadata.uid!, m.metadata.name!]));
  const view: Record<string, unknown> = {};
  for (const m of machines) {
    const own = switches.filter((s) => s.metadata.ownerReferences?.some((r) => r.uid === m.metadata.uid));
    view[m.metadata.name!] = {
      spec: m.spec,
      status: {
        positions: m.status?.positions,
        observedGeneration: m.status?.observedGeneration,
        seenAt: m.status?.seenAt,
        hasLastFlipAt: m.status?.lastFlipAt !== undefined,
        conditions: (m.status?.conditions ?? []).map(({ type, status, reason, message }) => ({
          type,
          status,
          reason,
          message,
        })).sort((a, b) => a.type.localeCompare(b.type)),
      },
      switches: own.map((s) => ({
        generated: /^switch-/.test(s.metadata.name!),
        labels: s.metadata.labels,
        position: s.spec?.position,
        owners: s.metadata.ownerReferences!.map((r) => ({
          kind: r.kind,
          owner: byUid.get(r.uid),
          controller: r.controller,
          blockOwnerDeletion: r.blockOwnerDeletion,
        })),
      })),
    };
  }
  const events: Record<string, string[]> = {};
  for (
    const e of (await bc.client.list<KubeObject & { regarding?: { name?: string }; reason?: string }>(EventRT, {
      namespace: ns,
    })).items
  ) {
    (events[e.regarding?.name ?? "?"] ??= []).push(e.reason ?? "");
  }
  for (const list of Object.values(events)) list.sort();
  return { machines: view, events, counts };
}

/** The operator's request counts once its writes stopped changing for 3 s (bounded by 60 s). */
async function settledCounts(auditPath: string, kind: OperatorKind, ns: string): Promise<RequestCounts> {
  const deadline = Date.now() + 60_000;
  let last = await countRequests(auditPath, USER_AGENT_PREFIX[kind], ns);
  let stableSince = Date.now();
  while (Date.now() - stableSince < 3_000) {
    if (Date.now() > deadline) throw new Error(`${kind}: writes still changing after 60 s`);
    await new Promise((r) => setTimeout(r, 250)); // quiescence of another process's writes: bounded by the deadline
    const now = await countRequests(auditPath, USER_AGENT_PREFIX[kind], ns);
    if (now.writes !== last.writes || now.events !== last.events) stableSince = Date.now();
    last = now;
  }
  return last;
}

async function run(bc: BenchCluster, kind: OperatorKind): Promise<Outcome> {
  const ns = `parity-${kind}`;
  await createNamespace(bc.client, ns);
  const dir = await Deno.makeTempDir({ prefix: "kubeop-parity-" });
  const op = startOperator(kind, { bundle: `${ROOT}main.ts`, peerDir }, {
    kubeconfig: bc.real.kubeconfigPath,
    namespace: ns,
    maxConcurrentReconciles: 2,
    logPath: `${dir}/${kind}.log`,
  });
  try {
    await waitReady(op);
    await createMachines(bc.client, ns, 8, { switches: 3 });
    await createMachines(bc.client, ns, 2, { switches: 3, switchPosition: "up" }, { first: 8 });
    await waitForMachines(
      bc.client,
      ns,
      10,
      (m) => machineConverged(m) && m.spec?.switchPosition !== "up",
      60_000,
    );
    return await outcome(bc, ns, kind);
  } catch (err) {
    const log = await Deno.readTextFile(`${dir}/${kind}.log`).catch(() => "");
    throw new Error(`${kind}: ${(err as Error).message}\n${log.slice(-3000)}`);
  } finally {
    await op.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "machine parity: kubeop and controller-runtime end with the same objects, Events and write count",
  ignore: !binDir || !peerDir,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const bc = await startBenchCluster(binDir);
    try {
      const kubeop = await run(bc, "kubeop");
      const peer = await run(bc, "controller-runtime");
      const dump = Deno.env.get("KUBEOP_PARITY_DUMP");
      if (dump) await Deno.writeTextFile(dump, JSON.stringify({ kubeop, peer }, null, 1));
      assert.deepEqual(kubeop.machines, peer.machines, "same Machines and Switches");
      assert.deepEqual(kubeop.events, peer.events, "same Events per Machine");
      // The 8 plain Machines: exactly the same writes. The 2 with their own switch up go through a spec PATCH and three
      // status PATCHes; controller-runtime, which has no read-your-writes wait, sometimes reconciles once more from a
      // cache that has not seen its own status write yet and sends one PATCH more — never fewer than kubeop.
      const plain = (c: RequestCounts) => Object.entries(c.machineWrites).filter(([n]) => !/0000[89]$/.test(n)).sort();
      assert.deepEqual(plain(kubeop.counts), plain(peer.counts), "same writes to each plain Machine");
      const detail =
        `kubeop ${JSON.stringify(kubeop.counts.byVerb)} ${JSON.stringify(kubeop.counts.machineWrites)} vs ` +
        `controller-runtime ${JSON.stringify(peer.counts.byVerb)} ${JSON.stringify(peer.counts.machineWrites)}`;
      assert.ok(kubeop.counts.writes <= peer.counts.writes, `kubeop writes no more: ${detail}`);
      assert.ok(
        peer.counts.writes - kubeop.counts.writes <= 2,
        `at most one stale-cache PATCH per stage-1 Machine: ${detail}`,
      );
      assert.equal(kubeop.counts.byVerb["create switches"], peer.counts.byVerb["create switches"], detail);
      assert.equal(kubeop.counts.events, peer.counts.events, "same Event writes");
    } finally {
      await bc.stop();
    }
  },
});
