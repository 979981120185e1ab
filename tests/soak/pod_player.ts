/**
 * The kubelet kube-apiserver lacks in the soak (the envtest control plane runs none): what the fake's kubelet does
 * with the seed operators' pods, done by the harness through the pods' status subresource — a netserver pod Running
 * with an IP, a netperf client Succeeded with netperf's table as its termination message, any other pod (an At's)
 * Succeeded.
 * @module
 */
import type { KubeClient } from "../../runtime/client/client.ts";
import type { Pod } from "../../runtime/builtin_types.ts";
import { CoreTypes } from "../../runtime/types.ts";
import { netperfTable } from "../../controllers/netperf/simulation.ts";

/** The status a kubelet would report for `pod` now, or undefined when it has nothing to change. */
export function playedStatus(pod: Pod): Pod["status"] | undefined {
  const phase = pod.status?.phase;
  if (pod.metadata.deletionTimestamp || (phase && phase !== "Pending")) return undefined;
  const container = pod.spec?.containers?.[0];
  const command = [...(container?.command ?? []), ...(container?.args ?? [])].join(" ");
  if (/\bnetserver\b/.test(command)) {
    return { phase: "Running", podIP: "10.244.0.7", podIPs: [{ ip: "10.244.0.7" }] };
  }
  const terminated = (message?: string) => ({
    name: container?.name ?? "main",
    image: container?.image ?? "",
    imageID: "",
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode: 0, reason: "Completed", ...(message ? { message } : {}) } },
  });
  const netperf = /netperf -H (\S+) -l (\d+)/.exec(command);
  if (netperf) {
    return { phase: "Succeeded", containerStatuses: [terminated(netperfTable(netperf[1], Number(netperf[2]), 941.5))] };
  }
  return { phase: "Succeeded", containerStatuses: [terminated()] };
}

/** One pass over the pods of `namespace`: moves each one the kubelet would move. Returns how many it moved. */
export async function playKubelet(admin: KubeClient, namespace: string): Promise<number> {
  let moved = 0;
  const pods = (await admin.listAll<Pod>(CoreTypes.Pod, { namespace })).items;
  for (const pod of pods) {
    const status = playedStatus(pod);
    if (!status) continue;
    try {
      await admin.patch(CoreTypes.Pod, pod.metadata.name!, { status }, {
        namespace,
        type: "merge",
        subresource: "status",
      });
      moved++;
    } catch {
      // deleted meanwhile, or the server restarting: the next pass sees it again
    }
  }
  return moved;
}
