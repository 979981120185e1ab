/**
 * Which strategy each built-in resource uses (keys: `group/plural`; `group/version/plural` for what one served
 * version adds), and the one CRD-defined resources use. A resource not listed behaves as {@link DEFAULT_STRATEGY}.
 * @module
 */
import type { ResourceStrategy } from "../strategy.ts";
import {
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from "./admission_configurations.ts";
import { APISERVICES } from "./apiservices.ts";
import { CERTIFICATE_SIGNING_REQUESTS } from "./certificates.ts";
import { CONFIGMAPS, SECRETS } from "./configmaps_secrets.ts";
import { CRDS } from "./crds.ts";
import { CUSTOM_RESOURCES } from "./custom_resources.ts";
import { CORE_EVENTS, EVENTS_V1 } from "./events.ts";
import { HORIZONTAL_POD_AUTOSCALERS, HORIZONTAL_POD_AUTOSCALERS_V1 } from "./hpa.ts";
import { LEASES } from "./leases.ts";
import { NODES } from "./nodes.ts";
import {
  DEVICE_TAINT_RULES,
  RESOURCE_CLAIM_TEMPLATES,
  RESOURCE_CLAIMS,
  RESOURCE_SLICES_AND_CLASSES,
} from "./dynamic_resources.ts";
import {
  CSI_DRIVERS,
  CSI_NODES,
  ENDPOINT_SLICES,
  INGRESSES,
  IP_ADDRESSES,
  NETWORK_POLICIES,
  POD_DISRUPTION_BUDGETS,
  PRIORITY_LEVEL_CONFIGURATIONS,
  STORAGE_CLASSES,
  VOLUME_ATTACHMENTS,
} from "./stored_kinds.ts";
import { NAMESPACES } from "./namespaces.ts";
import { PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES } from "./persistent_volumes.ts";
import { PODS } from "./pods.ts";
import { LIMIT_RANGES, RESOURCE_QUOTAS } from "./limit_ranges.ts";
import { PRIORITY_CLASSES } from "./priority_classes.ts";
import { CRONJOBS, JOBS } from "./batch.ts";
import { CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, ROLE_BINDINGS, ROLES } from "./rbac.ts";
import { ENDPOINTS, SERVICES } from "./services.ts";
import {
  CONTROLLER_REVISIONS,
  DAEMONSETS,
  DEPLOYMENTS,
  PODTEMPLATES,
  REPLICASETS,
  REPLICATION_CONTROLLERS,
  STATEFULSETS,
} from "./workloads.ts";

const RBAC_GROUP = "rbac.authorization.k8s.io";
const ADMISSION_GROUP = "admissionregistration.k8s.io";

/** Resources whose DELETE answers with the object, otherwise generic (kube: ReturnDeletedObject). */
const RETURNS_DELETED: ResourceStrategy = { returnDeletedObject: true };

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
  ["scheduling.k8s.io/priorityclasses", PRIORITY_CLASSES],
  ["/serviceaccounts", RETURNS_DELETED],
  ["/persistentvolumeclaims", PERSISTENT_VOLUME_CLAIMS],
  ["/persistentvolumes", PERSISTENT_VOLUMES],
  ["/resourcequotas", RESOURCE_QUOTAS],
  ["/limitranges", LIMIT_RANGES],
  [`${RBAC_GROUP}/roles`, ROLES],
  [`${RBAC_GROUP}/rolebindings`, ROLE_BINDINGS],
  [`${RBAC_GROUP}/clusterroles`, CLUSTER_ROLES],
  [`${RBAC_GROUP}/clusterrolebindings`, CLUSTER_ROLE_BINDINGS],
  ["/podtemplates", PODTEMPLATES],
  ["/replicationcontrollers", REPLICATION_CONTROLLERS],
  ["apps/deployments", DEPLOYMENTS],
  ["apps/statefulsets", STATEFULSETS],
  ["apps/daemonsets", DAEMONSETS],
  ["apps/replicasets", REPLICASETS],
  ["apps/controllerrevisions", CONTROLLER_REVISIONS],
  ["batch/jobs", JOBS],
  ["batch/cronjobs", CRONJOBS],
  ["apiextensions.k8s.io/customresourcedefinitions", CRDS],
  ["apiregistration.k8s.io/apiservices", APISERVICES],
  ["certificates.k8s.io/certificatesigningrequests", CERTIFICATE_SIGNING_REQUESTS],
  [`${ADMISSION_GROUP}/mutatingwebhookconfigurations`, MUTATING_WEBHOOK_CONFIGURATIONS],
  [`${ADMISSION_GROUP}/validatingwebhookconfigurations`, VALIDATING_WEBHOOK_CONFIGURATIONS],
  [`${ADMISSION_GROUP}/validatingadmissionpolicies`, VALIDATING_ADMISSION_POLICIES],
  [`${ADMISSION_GROUP}/validatingadmissionpolicybindings`, VALIDATING_ADMISSION_POLICY_BINDINGS],
  [`${ADMISSION_GROUP}/mutatingadmissionpolicies`, VALIDATING_ADMISSION_POLICIES],
  ["/nodes", NODES],
  ["policy/poddisruptionbudgets", POD_DISRUPTION_BUDGETS],
  ["autoscaling/horizontalpodautoscalers", HORIZONTAL_POD_AUTOSCALERS],
  // Served as autoscaling/v1 too: merged over the group-resource's strategy (see StrategyRegistry).
  ["autoscaling/v1/horizontalpodautoscalers", HORIZONTAL_POD_AUTOSCALERS_V1],
  ["networking.k8s.io/ingresses", INGRESSES],
  ["networking.k8s.io/networkpolicies", NETWORK_POLICIES],
  ["networking.k8s.io/ipaddresses", IP_ADDRESSES],
  ["storage.k8s.io/csidrivers", CSI_DRIVERS],
  ["storage.k8s.io/storageclasses", STORAGE_CLASSES],
  ["discovery.k8s.io/endpointslices", ENDPOINT_SLICES],
  ["storage.k8s.io/csinodes", CSI_NODES],
  ["storage.k8s.io/volumeattachments", VOLUME_ATTACHMENTS],
  ["flowcontrol.apiserver.k8s.io/prioritylevelconfigurations", PRIORITY_LEVEL_CONFIGURATIONS],
  ["resource.k8s.io/resourceclaims", RESOURCE_CLAIMS],
  ["resource.k8s.io/resourceclaimtemplates", RESOURCE_CLAIM_TEMPLATES],
  ["resource.k8s.io/devicetaintrules", DEVICE_TAINT_RULES],
  ["node.k8s.io/runtimeclasses", { allowCreateOnUpdate: true }],
  ["resource.k8s.io/resourceslices", RESOURCE_SLICES_AND_CLASSES],
  ["resource.k8s.io/deviceclasses", RESOURCE_SLICES_AND_CLASSES],
];

/** The strategy of CRD-defined resources. */
export { CUSTOM_RESOURCES };
