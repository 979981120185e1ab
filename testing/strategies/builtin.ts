/**
 * Which strategy each built-in resource uses (keys: `group/plural`), and the one CRD-defined resources use. A
 * resource not listed behaves as {@link DEFAULT_STRATEGY}.
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";
import { APISERVICES } from "./apiservices.ts";
import { CONFIGMAPS, SECRETS } from "./configmaps_secrets.ts";
import { CRDS } from "./crds.ts";
import { CUSTOM_RESOURCES } from "./custom_resources.ts";
import { CORE_EVENTS, EVENTS_V1 } from "./events.ts";
import { LEASES } from "./leases.ts";
import { NAMESPACES } from "./namespaces.ts";
import { PODS } from "./pods.ts";
import { RBAC } from "./rbac.ts";
import { ENDPOINTS, SERVICES } from "./services.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";

/** The built-in strategies by group-resource. */
export const BUILTIN_STRATEGIES: ReadonlyArray<[groupResource: string, strategy: ResourceStrategy]> = [
  ["/namespaces", NAMESPACES],
  ["/pods", PODS],
  ["/services", SERVICES],
  ["/endpoints", ENDPOINTS],
  ["/secrets", SECRETS],
  ["/configmaps", CONFIGMAPS],
  ["/events", CORE_EVENTS],
  ["events.k8s.io/events", EVENTS_V1],
  ["coordination.k8s.io/leases", LEASES],
  [`${RBAC_GROUP}/roles`, RBAC],
  [`${RBAC_GROUP}/rolebindings`, RBAC],
  [`${RBAC_GROUP}/clusterroles`, RBAC],
  [`${RBAC_GROUP}/clusterrolebindings`, RBAC],
  ["apiextensions.k8s.io/customresourcedefinitions", CRDS],
  ["apiregistration.k8s.io/apiservices", APISERVICES],
];

/** The strategy of CRD-defined resources. */
export { CUSTOM_RESOURCES };
