/**
 * core/v1 Nodes as kube-apiserver v1.37 stores them with no kubelet or node controller running: spec.podCIDRs
 * mirrors spec.podCIDR (the v1 conversion), a new Node gets the `node.kubernetes.io/not-ready:NoSchedule` taint (the
 * TaintNodesByCondition admission plugin), and status always carries the non-omitempty structs Go serialises —
 * `daemonEndpoints.kubeletEndpoint.Port` 0 and every `nodeInfo` string "".
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";

const NODE_INFO_FIELDS = [
  "architecture",
  "bootID",
  "containerRuntimeVersion",
  "kernelVersion",
  "kubeProxyVersion",
  "kubeletVersion",
  "machineID",
  "operatingSystem",
  "osImage",
  "systemUUID",
];

const NOT_READY_TAINT = { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" };

/** core/v1 nodes. */
export const NODES: ResourceStrategy = {
  prepareForCreate(node: KubeObject): void {
    if (!node.spec || typeof node.spec !== "object") node.spec = {};
    const taints: KubeObject[] = Array.isArray(node.spec.taints) ? node.spec.taints : [];
    if (!taints.some((t) => t.key === NOT_READY_TAINT.key && t.effect === NOT_READY_TAINT.effect)) {
      node.spec.taints = [...taints, { ...NOT_READY_TAINT }];
    }
  },
  default(node: KubeObject): void {
    const spec = node.spec;
    if (spec && typeof spec === "object" && spec.podCIDR && !(Array.isArray(spec.podCIDRs) && spec.podCIDRs.length)) {
      spec.podCIDRs = [spec.podCIDR];
    }
  },
  encode(node: KubeObject): void {
    if (!node.status || typeof node.status !== "object") node.status = {};
    const status = node.status;
    status.daemonEndpoints ??= {};
    status.daemonEndpoints.kubeletEndpoint ??= {};
    status.daemonEndpoints.kubeletEndpoint.Port ??= 0;
    status.nodeInfo ??= {};
    for (const field of NODE_INFO_FIELDS) status.nodeInfo[field] ??= "";
  },
};
