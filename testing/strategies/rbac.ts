/**
 * rbac.authorization.k8s.io: Role, RoleBinding, ClusterRole and ClusterRoleBinding names are path segments
 * (`system:controller:foo` is valid), not DNS subdomains.
 * @module
 */
import { validatePathSegmentName } from "../object_rules.ts";
import type { ResourceStrategy } from "../strategy.ts";

/** The strategy of the four RBAC resources. */
export const RBAC: ResourceStrategy = { validateName: validatePathSegmentName };
