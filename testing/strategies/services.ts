/**
 * Services and their Endpoints: Service names are DNS-1035 labels; a new Service gets type ClusterIP, session
 * affinity None, a cluster IP (unless ExternalName), TCP ports with targetPort = port and an empty load-balancer status;
 * an update that omits spec.clusterIP keeps the allocated one. Endpoints, like kube, may be created by PUT.
 * @module
 */
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { validateDns1035Name } from "../object_rules.ts";
import type { ResourceStrategy, StrategyContext } from "../strategy.ts";

/** The strategy of core v1 services. */
export const SERVICES: ResourceStrategy = {
  validateName: validateDns1035Name,
  prepareForCreate(obj: KubeObject, ctx: StrategyContext): void {
    obj.spec = { type: "ClusterIP", sessionAffinity: "None", ...obj.spec };
    if (obj.spec.type !== "ExternalName" && !obj.spec.clusterIP) {
      obj.spec.clusterIP = ctx.allocateClusterIp();
      obj.spec.clusterIPs = [obj.spec.clusterIP];
    }
    for (const p of obj.spec.ports ?? []) {
      p.protocol ??= "TCP";
      p.targetPort ??= p.port;
    }
    obj.status ??= { loadBalancer: {} };
  },
  prepareForUpdate(next: KubeObject, old: KubeObject): void {
    if (old.spec?.clusterIP && next.spec && next.spec.clusterIP === undefined) {
      next.spec.clusterIP = old.spec.clusterIP;
      next.spec.clusterIPs = old.spec.clusterIPs;
    }
  },
};

/** The strategy of core v1 endpoints. */
export const ENDPOINTS: ResourceStrategy = { allowCreateOnUpdate: true };
