/**
 * The fake server's authorizer, evaluated like kube-apiserver's: the system:masters group is always allowed (the
 * privileged-group authorizer), then RBAC (plugin/pkg/auth/authorizer/rbac/rbac.go): every ClusterRoleBinding, then
 * the RoleBindings of the request's namespace, whose subjects match the user; the first rule of their role that
 * covers the request allows it. A binding whose role is missing adds an error to the reason; otherwise a denial has
 * no reason. {@link forbiddenStatus} words the 403 as responsewriters.ForbiddenStatusError does.
 * @module
 */
import { failureStatus, type Status } from "../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import type { FakeStore } from "./commit_path.ts";
import type { PolicyRule } from "./rbac_bootstrap.ts";
import type { UserInfo } from "./user_info.ts";

export type { UserInfo } from "./user_info.ts";

/** What a request does, as kube's RequestInfo and authorizer.Attributes describe it. */
export interface RequestAttributes {
  user: UserInfo;
  verb: string;
  /** A resource request (`/api/...`, `/apis/<g>/<v>/...`) or a non-resource path. */
  resourceRequest: boolean;
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The URL path of a non-resource request. */
  path?: string;
}

/** An authorizer's decision. */
export interface Decision {
  allowed: boolean;
  /** Why (allowed: which binding; denied: the errors met while resolving roles, or ""). */
  reason: string;
}

/** The group whose members every request is allowed to (kube's privileged-group authorizer). */
export const SYSTEM_MASTERS = "system:masters";

const RBAC_GROUP = "rbac.authorization.k8s.io";

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface Binding extends KubeObject {
  roleRef?: { kind?: string; name?: string };
  subjects?: Subject[];
}

/** Evaluates requests against the RBAC objects in a fake store. */
export class RbacAuthorizer {
  #store: () => FakeStore;

  /** @param store the current store (it changes on restart). */
  constructor(store: () => FakeStore) {
    this.#store = store;
  }

  /**
   * Decides one request.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { startFakeApiServer } from "./server.ts";
   * import { RbacAuthorizer } from "./rbac_authorizer.ts";
   * const server = await startFakeApiServer();
   * const rbac = new RbacAuthorizer(() => server.store);
   * const user = { username: "alice", groups: ["system:authenticated"] };
   * assert.equal(rbac.authorize({ user, verb: "get", resourceRequest: false, path: "/version" }).allowed, true);
   * assert.equal(rbac.authorize({ user, verb: "list", resourceRequest: true, resource: "secrets" }).allowed, false);
   * await server.stop();
   * ```
   */
  authorize(attrs: RequestAttributes): Decision {
    if (attrs.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: "" };
    const errors: string[] = [];
    let reason = "";
    this.#visit(attrs.user, attrs.namespace ?? "", (source, rule, err) => {
      if (rule && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source}`;
        return false;
      }
      if (err && !errors.includes(err)) errors.push(err);
      return true;
    });
    if (reason) return { allowed: true, reason };
    if (errors.length === 0) return { allowed: false, reason: "" };
    // kube-apiserver's union authorizer prefixes a denying authorizer's reason with its name.
    return { allowed: false, reason: `rbac: RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}` };
  }

  /** Every rule that applies to `user` in `namespace` (cluster-wide ones included), and the resolution errors. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.#visit(user, namespace, (_source, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }

  #visit(
    user: UserInfo,
    namespace: string,
    visitor: (source: string, rule: PolicyRule | undefined, err: string | undefined) => boolean,
  ): void {
    const objects = this.#store().objects;
    for (const b of objects.list(`${RBAC_GROUP}/clusterrolebindings`) as Binding[]) {
      const subject = appliesTo(user, b.subjects ?? [], "");
      if (!subject) continue;
      const { rules, error } = this.#roleRules(b, "");
      if (error) {
        if (!visitor("", undefined, error)) return;
        continue;
      }
      const source = `ClusterRoleBinding "${b.metadata.name}" of ${b.roleRef?.kind} "${b.roleRef?.name}" to ${
        describeSubject(subject, "")
      }`;
      for (const r of rules) if (!visitor(source, r, undefined)) return;
    }
    if (!namespace) return;
    for (const b of objects.list(`${RBAC_GROUP}/rolebindings`, namespace) as Binding[]) {
      const subject = appliesTo(user, b.subjects ?? [], namespace);
      if (!subject) continue;
      const { rules, error } = this.#roleRules(b, namespace);
      if (error) {
        if (!visitor("", undefined, error)) return;
        continue;
      }
      const source = `RoleBinding "${b.metadata.name}/${namespace}" of ${b.roleRef?.kind} "${b.roleRef?.name}" to ${
        describeSubject(subject, namespace)
      }`;
      for (const r of rules) if (!visitor(source, r, undefined)) return;
    }
  }

  #roleRules(binding: Binding, namespace: string): { rules: PolicyRule[]; error?: string } {
    const ref = binding.roleRef ?? {};
    const objects = this.#store().objects;
    if (ref.kind === "Role") {
      const role = objects.get(`${RBAC_GROUP}/roles`, namespace, ref.name ?? "");
      if (!role) return { rules: [], error: `role.${RBAC_GROUP} "${ref.name}" not found` };
      return { rules: (role.rules ?? []) as PolicyRule[] };
    }
    if (ref.kind === "ClusterRole") {
      const role = objects.get(`${RBAC_GROUP}/clusterroles`, "", ref.name ?? "");
      if (!role) return { rules: [], error: `clusterrole.${RBAC_GROUP} "${ref.name}" not found` };
      return { rules: (role.rules ?? []) as PolicyRule[] };
    }
    return { rules: [], error: `unsupported role reference kind: "${ref.kind}"` };
  }
}

function appliesTo(user: UserInfo, subjects: Subject[], namespace: string): Subject | undefined {
  return subjects.find((s) => {
    if (s.kind === "User") return s.name === user.username;
    if (s.kind === "Group") return user.groups.includes(s.name ?? "");
    if (s.kind === "ServiceAccount") {
      const ns = s.namespace || namespace;
      return ns !== "" && user.username === `system:serviceaccount:${ns}:${s.name}`;
    }
    return false;
  });
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount") return `ServiceAccount "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

/** Whether one rule covers the request (RuleAllows in rbac.go). */
export function ruleAllows(attrs: Omit<RequestAttributes, "user">, rule: PolicyRule): boolean {
  const verbs = rule.verbs ?? [];
  const verbOk = verbs.includes("*") || verbs.includes(attrs.verb);
  if (!attrs.resourceRequest) {
    return verbOk &&
      (rule.nonResourceURLs ?? []).some((u) =>
        u === "*" || u === attrs.path || (u.endsWith("*") && (attrs.path ?? "").startsWith(u.replace(/\*+$/, "")))
      );
  }
  const sub = attrs.subresource ?? "";
  const combined = sub ? `${attrs.resource}/${sub}` : attrs.resource ?? "";
  const groups = rule.apiGroups ?? [];
  const names = rule.resourceNames ?? [];
  return verbOk &&
    (groups.includes("*") || groups.includes(attrs.apiGroup ?? "")) &&
    (rule.resources ?? []).some((r) =>
      r === "*" || r === combined || (sub !== "" && r.length === sub.length + 2 && r === `*/${sub}`)
    ) &&
    (names.length === 0 || names.includes(attrs.name ?? ""));
}

/** The 403 Status kube-apiserver answers a denied request with (responsewriters.ForbiddenStatusError). */
export function forbiddenStatus(attrs: RequestAttributes, reason: string): Status {
  const user = attrs.user.username;
  let msg: string;
  if (!attrs.resourceRequest) msg = `User "${user}" cannot ${attrs.verb} path "${attrs.path}"`;
  else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : "at the cluster scope";
    msg = `User "${user}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup ?? ""}" ${scope}`;
  }
  if (reason) msg = `${msg}: ${reason}`;
  const group = attrs.resourceRequest ? attrs.apiGroup ?? "" : "";
  const resource = attrs.resourceRequest ? attrs.resource ?? "" : "";
  const qualified = group ? `${resource}.${group}` : resource;
  const name = attrs.name ?? "";
  const message = !qualified
    ? `forbidden: ${msg}`
    : name
    ? `${qualified} "${name}" is forbidden: ${msg}`
    : `${qualified} is forbidden: ${msg}`;
  const details: Status["details"] = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return failureStatus(403, "Forbidden", message, details);
}
