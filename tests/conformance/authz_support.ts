/**
 * Helpers of the authn/authz conformance cases (./authz.ts): RBAC resource types, a ServiceAccount client from a
 * TokenRequest token, raw calls with extra headers (impersonation), bindings.
 * @module
 */
import { eventually } from "../../testing/eventually.ts";
import { KubeClient } from "../../runtime/client/client.ts";
import type { ClusterConfig } from "../../runtime/client/kubeconfig.ts";
import type { KubeObject, ResourceType } from "../../runtime/types.ts";
import { POLL } from "./support.ts";

export const RBAC_GROUP = "rbac.authorization.k8s.io";
const rbac = (plural: string, kind: string, namespaced: boolean): ResourceType => ({
  group: RBAC_GROUP,
  version: "v1",
  plural,
  kind,
  namespaced,
});
export const Role = rbac("roles", "Role", true);
export const RoleBinding = rbac("rolebindings", "RoleBinding", true);
export const ClusterRole = rbac("clusterroles", "ClusterRole", false);
export const ClusterRoleBinding = rbac("clusterrolebindings", "ClusterRoleBinding", false);
export const ServiceAccount: ResourceType = {
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  kind: "ServiceAccount",
  namespaced: true,
};

export const SelfSubjectAccessReview: ResourceType = {
  group: "authorization.k8s.io",
  version: "v1",
  plural: "selfsubjectaccessreviews",
  kind: "SelfSubjectAccessReview",
  namespaced: false,
};

export interface JsonAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** A POST/GET as `config`'s identity plus extra headers (impersonation), decoded. */
export async function rawCall(
  config: ClusterConfig,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonAnswer> {
  const http = Deno.createHttpClient({
    ...(config.caPEM ? { caCerts: [config.caPEM] } : {}),
    ...(config.certPEM && config.keyPEM ? { cert: config.certPEM, key: config.keyPEM } : {}),
  });
  try {
    const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
    if (config.token) headers.authorization = `Bearer ${config.token}`;
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(new URL(path, config.server), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      client: http,
    } as RequestInit);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON */ }
    return { status: res.status, body };
  } finally {
    http.close();
  }
}

/** Creates a ServiceAccount and returns a client authenticated by a TokenRequest token for it. */
export async function serviceAccountClient(
  admin: KubeClient,
  ns: string,
  name: string,
): Promise<{ client: KubeClient; config: ClusterConfig; token: string; user: string }> {
  await admin.create(ServiceAccount, { metadata: { name, namespace: ns } }, { namespace: ns });
  const token = await eventually(`token for ${ns}/${name}`, async () => {
    const res = await admin.request("POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } },
      throwOnError: true,
    });
    return JSON.parse(new TextDecoder().decode(res.body)).status?.token as string | undefined;
  }, POLL);
  const base = admin.config;
  const config: ClusterConfig = { server: base.server, caPEM: base.caPEM, tlsServerName: base.tlsServerName, token };
  return { client: new KubeClient({ config }), config, token, user: `system:serviceaccount:${ns}:${name}` };
}

export function bindingTo(
  name: string,
  ns: string | undefined,
  roleKind: string,
  role: string,
  subject: Record<string, string>,
): KubeObject {
  return {
    metadata: { name, ...(ns ? { namespace: ns } : {}) },
    roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name: role },
    subjects: [subject],
  };
}
