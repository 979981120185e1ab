/**
 * Conformance cases for requests without credentials (issue 27): kube-apiserver v1.37 with its defaults
 * (`--anonymous-auth` on, RBAC) authenticates them as `system:anonymous` (group system:unauthenticated), whose only
 * bootstrap binding is `system:public-info-viewer` (/version, /healthz, /livez, /readyz); discovery
 * (`system:discovery`) is bound to system:authenticated only. A bearer token that does not hold is 401.
 * @module
 */
import assert from "node:assert/strict";
import type { ClusterConfig } from "../../runtime/client/kubeconfig.ts";
import { CoreTypes } from "../../runtime/types.ts";
import { rawCall } from "./authz_support.ts";
import type { ConformanceCase, ConformanceContext } from "./support.ts";

/** The target's address and CA, no credentials. */
function anonymous(ctx: ConformanceContext): ClusterConfig {
  const { server, caPEM, tlsServerName } = ctx.client.config;
  return { server, caPEM, tlsServerName };
}

const ANONYMOUS = `User "system:anonymous"`;

/** The anonymous-access cases, run on both targets. */
export const authzAnonymousCases: ConformanceCase[] = [
  {
    name: "anonymous: /version and /healthz answer; discovery is forbidden by path",
    async run(ctx) {
      const version = await rawCall(anonymous(ctx), "GET", "/version");
      assert.equal(version.status, 200);
      assert.equal(typeof version.body.gitVersion, "string");
      assert.equal((await rawCall(anonymous(ctx), "GET", "/healthz")).status, 200);
      const apis = await rawCall(anonymous(ctx), "GET", "/apis");
      assert.equal(apis.status, 403);
      assert.equal(apis.body.message, `forbidden: ${ANONYMOUS} cannot get path "/apis"`);
    },
  },
  {
    name: "anonymous: listing namespaces is 403 at the cluster scope",
    async run(ctx) {
      const res = await rawCall(anonymous(ctx), "GET", "/api/v1/namespaces");
      assert.equal(res.status, 403);
      assert.equal(res.body.reason, "Forbidden");
      assert.equal(
        res.body.message,
        `namespaces is forbidden: ${ANONYMOUS} cannot list resource "namespaces" in API group "" at the cluster scope`,
      );
    },
  },
  {
    name: "anonymous: deleting a namespace is 403 and the namespace stays",
    async run(ctx) {
      const res = await rawCall(anonymous(ctx), "DELETE", `/api/v1/namespaces/${ctx.ns}`);
      assert.equal(res.status, 403);
      assert.equal(
        res.body.message,
        `namespaces "${ctx.ns}" is forbidden: ${ANONYMOUS} cannot delete resource "namespaces" in API group "" in the namespace "${ctx.ns}"`,
      );
      const ns = await ctx.client.get(CoreTypes.Namespace, ctx.ns);
      assert.equal(ns.metadata.deletionTimestamp, undefined);
    },
  },
  {
    name: "a bearer token that does not hold is 401 Unauthorized, not anonymous",
    async run(ctx) {
      const res = await rawCall(anonymous(ctx), "GET", "/version", {
        headers: { authorization: "Bearer not-a-token-anyone-issued" },
      });
      assert.deepEqual(res, {
        status: 401,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Unauthorized",
          reason: "Unauthorized",
          code: 401,
        },
      });
    },
  },
];
