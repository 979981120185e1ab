/**
 * Conformance cases for authentication and authorization (issue 10 "Authn/authz"): ServiceAccount tokens
 * (TokenRequest, TokenReview), the RBAC authorizer's decisions and kube-apiserver's 403 wording, aggregated
 * ClusterRoles, impersonation and the review kinds. Each case runs as a ServiceAccount of its own namespace, with a
 * token the admin requests through serviceaccounts/token, on the fake and on a real kube-apiserver.
 * @module
 */
import assert from "node:assert/strict";
import { eventually } from "../../testing/eventually.ts";
import type { KubeClient } from "../../runtime/client/client.ts";
import { isForbidden, isInvalid, isNotFound } from "../../runtime/client/errors.ts";
import { CoreTypes, type ResourceType } from "../../runtime/types.ts";
// The cases read review and workload fields directly: the fake's loose object type (testing/apiserver/unstructured.ts).
import type { Unstructured as KubeObject } from "../../testing/apiserver/unstructured.ts";
import {
  bindingTo,
  ClusterRole,
  ClusterRoleBinding,
  rawCall,
  RBAC_GROUP,
  Role,
  RoleBinding,
  SelfSubjectAccessReview,
  ServiceAccount,
  serviceAccountClient,
} from "./authz_support.ts";
import { expectError, POLL } from "./support.ts";

/** Runs the authn/authz cases against `admin`'s cluster in namespace `ns`. */
export async function authzCases(t: Deno.TestContext, admin: KubeClient, ns: string): Promise<void> {
  const other = `${ns}-authz`;
  await admin.create<KubeObject>(CoreTypes.Namespace, { metadata: { name: other } });
  const sa = await serviceAccountClient(admin, ns, "authz-robot");
  const saSubject = { kind: "ServiceAccount", name: "authz-robot", namespace: ns };
  try {
    await t.step("authz: a ServiceAccount without bindings gets 403 with kube's namespaced message", async () => {
      const err = await expectError(
        sa.client.get(CoreTypes.ConfigMap, "x", { namespace: ns }),
        isForbidden,
        "get configmap",
      );
      assert.equal(err.status.code, 403);
      assert.equal(err.status.reason, "Forbidden");
      assert.equal(
        err.status.message,
        `configmaps "x" is forbidden: User "${sa.user}" cannot get resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      assert.equal(err.status.details?.name, "x");
      assert.equal(err.status.details?.kind, "configmaps");
    });

    await t.step("authz: a cluster-scoped list is refused 'at the cluster scope', named by group", async () => {
      const err = await expectError(sa.client.list(ClusterRole), isForbidden, "list clusterroles");
      assert.equal(
        err.status.message,
        `clusterroles.rbac.authorization.k8s.io is forbidden: User "${sa.user}" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`,
      );
      assert.equal(err.status.details?.group, RBAC_GROUP);
    });

    await t.step("authz: a subresource is authorized as resource/subresource", async () => {
      const err = await expectError(
        sa.client.request("POST", `/api/v1/namespaces/${ns}/serviceaccounts/authz-robot/token`, {
          body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
          throwOnError: true,
        }),
        isForbidden,
        "create serviceaccounts/token",
      );
      assert.equal(
        err.status.message,
        `serviceaccounts "authz-robot" is forbidden: User "${sa.user}" cannot create resource "serviceaccounts/token" in API group "" in the namespace "${ns}"`,
      );
    });

    await t.step("authz: a non-resource path is refused with the path message", async () => {
      const res = await rawCall(sa.config, "GET", "/metrics");
      assert.equal(res.status, 403);
      assert.equal(res.body.reason, "Forbidden");
      assert.equal(res.body.message, `forbidden: User "${sa.user}" cannot get path "/metrics"`);
      // Discovery and /version are open to every authenticated user (system:discovery, system:public-info-viewer).
      assert.equal((await rawCall(sa.config, "GET", "/version")).status, 200);
      assert.equal((await rawCall(sa.config, "GET", "/apis")).status, 200);
    });

    await t.step("authz: a RoleBinding to a Role grants in its namespace only", async () => {
      await admin.create(Role, {
        metadata: { name: "cm-reader", namespace: ns },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
      }, { namespace: ns });
      await admin.create(RoleBinding, bindingTo("cm-reader", ns, "Role", "cm-reader", saSubject), { namespace: ns });
      await eventually("list allowed", () => sa.client.list(CoreTypes.ConfigMap, { namespace: ns }), POLL);
      const err = await expectError(
        sa.client.list(CoreTypes.ConfigMap, { namespace: other }),
        isForbidden,
        "list in another namespace",
      );
      assert.equal(
        err.status.message,
        `configmaps is forbidden: User "${sa.user}" cannot list resource "configmaps" in API group "" in the namespace "${other}"`,
      );
      await expectError(
        sa.client.create(CoreTypes.ConfigMap, { metadata: { name: "nope", namespace: ns } }, { namespace: ns }),
        isForbidden,
        "create is not granted",
      );
    });

    await t.step("authz: resourceNames restrict get to the named object; list stays forbidden", async () => {
      await admin.create(CoreTypes.Secret, { metadata: { name: "named", namespace: ns } }, { namespace: ns });
      await admin.create(Role, {
        metadata: { name: "one-secret", namespace: ns },
        rules: [{ apiGroups: [""], resources: ["secrets"], resourceNames: ["named"], verbs: ["get", "list"] }],
      }, { namespace: ns });
      await admin.create(RoleBinding, bindingTo("one-secret", ns, "Role", "one-secret", saSubject), {
        namespace: ns,
      });
      await eventually("get named allowed", () => sa.client.get(CoreTypes.Secret, "named", { namespace: ns }), POLL);
      const err = await expectError(
        sa.client.list(CoreTypes.Secret, { namespace: ns }),
        isForbidden,
        "list secrets",
      );
      assert.equal(err.status.details?.kind, "secrets");
      await expectError(
        sa.client.get(CoreTypes.Secret, "unnamed", { namespace: ns }),
        isForbidden,
        "get another secret",
      );
    });

    await t.step("authz: a binding to a missing Role adds the RBAC error to the 403 message", async () => {
      await admin.create(RoleBinding, bindingTo("dangling", ns, "Role", "no-such-role", saSubject), {
        namespace: ns,
      });
      const err = await eventually("the error shows", async () => {
        const e = await expectError(sa.client.list(CoreTypes.Pod, { namespace: ns }), isForbidden, "list pods");
        return e.status.message?.includes("RBAC:") ? e : undefined;
      }, POLL);
      assert.equal(
        err.status.message,
        `pods is forbidden: User "${sa.user}" cannot list resource "pods" in API group "" in the namespace "${ns}": rbac: RBAC: role.rbac.authorization.k8s.io "no-such-role" not found`,
      );
      await admin.delete(RoleBinding, "dangling", { namespace: ns });
      await eventually("the error is gone with the binding", async () => {
        const e = await expectError(sa.client.list(CoreTypes.Pod, { namespace: ns }), isForbidden, "list pods");
        return e.status.message?.includes("RBAC:") ? undefined : true;
      }, POLL);
    });

    await t.step("authz: SubjectAccessReview answers for a ServiceAccount with the allowing binding", async () => {
      const review = (resource: string) =>
        admin.create<KubeObject>(CoreTypes.SubjectAccessReview, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          metadata: {},
          spec: {
            user: sa.user,
            groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"],
            resourceAttributes: { namespace: ns, verb: "get", resource },
          },
        });
      const allowed = await review("configmaps");
      assert.equal(allowed.status.allowed, true);
      assert.equal(
        allowed.status.reason,
        `RBAC: allowed by RoleBinding "cm-reader/${ns}" of Role "cm-reader" to ServiceAccount "authz-robot/${ns}"`,
      );
      const denied = await review("pods");
      assert.equal(denied.status.allowed, false);
      assert.equal(denied.status.denied, undefined);
      const noUser = await expectError(
        admin.create<KubeObject>(CoreTypes.SubjectAccessReview, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          metadata: {},
          spec: { resourceAttributes: { verb: "get", resource: "pods" } },
        }),
        isInvalid,
        "SAR without user",
      );
      const neither = await expectError(
        admin.create<KubeObject>(CoreTypes.SubjectAccessReview, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          metadata: {},
          spec: { user: "someone" },
        }),
        isInvalid,
        "SAR without attributes",
      );
      assert.equal(
        neither.status.message,
        '.authorization.k8s.io "" is invalid: spec: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      );
      // kube-apiserver names the kind from the decoded object, whose kind is already cleared.
      assert.equal(
        noUser.status.message,
        '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
      );
    });

    await t.step("authz: LocalSubjectAccessReview must name its own namespace", async () => {
      const path = `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`;
      const ok = await admin.request("POST", path, {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "LocalSubjectAccessReview",
          metadata: { namespace: ns },
          spec: { user: sa.user, resourceAttributes: { namespace: ns, verb: "list", resource: "configmaps" } },
        },
        throwOnError: true,
      });
      assert.equal(ok.status, 201);
      assert.equal(JSON.parse(new TextDecoder().decode(ok.body)).status.allowed, true);
      const err = await expectError(
        admin.request("POST", path, {
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "LocalSubjectAccessReview",
            metadata: { namespace: ns },
            spec: { user: sa.user, resourceAttributes: { namespace: other, verb: "list", resource: "configmaps" } },
          },
          throwOnError: true,
        }),
        isInvalid,
        "LocalSubjectAccessReview for another namespace",
      );
      assert.equal(
        err.status.message,
        `.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "${other}": must match metadata.namespace`,
      );
    });

    await t.step("authz: SelfSubjectAccessReview and SelfSubjectRulesReview answer for the caller", async () => {
      const self = await sa.client.create<KubeObject>(SelfSubjectAccessReview, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        metadata: {},
        spec: { resourceAttributes: { namespace: ns, verb: "list", resource: "configmaps" } },
      });
      assert.equal(self.status.allowed, true);
      const no = await sa.client.create<KubeObject>(SelfSubjectAccessReview, {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        metadata: {},
        spec: { resourceAttributes: { namespace: ns, verb: "delete", resource: "configmaps" } },
      });
      assert.equal(no.status.allowed, false);
      const rulesPath = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
      const rules = await rawCall(sa.config, "POST", rulesPath, {
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", spec: { namespace: ns } },
      });
      assert.equal(rules.status, 201);
      assert.equal(rules.body.status.incomplete, false);
      assert.ok(
        rules.body.status.resourceRules.some((r: { resources?: string[]; verbs: string[] }) =>
          r.resources?.includes("configmaps") && r.verbs.includes("list")
        ),
        JSON.stringify(rules.body.status.resourceRules),
      );
      assert.ok(
        rules.body.status.resourceRules.some((r: { resources?: string[] }) =>
          r.resources?.includes("selfsubjectaccessreviews")
        ),
        "system:basic-user's rules",
      );
      const noNs = await rawCall(sa.config, "POST", rulesPath, {
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", spec: {} },
      });
      assert.equal(noNs.status, 400);
      assert.equal(noNs.body.reason, "BadRequest");
      assert.equal(noNs.body.message, "no namespace on request");
    });

    await t.step("authn: SelfSubjectReview and TokenReview describe the ServiceAccount's user", async () => {
      const self = await rawCall(sa.config, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
      });
      assert.equal(self.status, 201);
      assert.equal(self.body.status.userInfo.username, sa.user);
      const groups = ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"];
      assert.deepEqual(self.body.status.userInfo.groups, groups);
      const account = await admin.get(ServiceAccount, "authz-robot", { namespace: ns });
      assert.equal(self.body.status.userInfo.uid, account.metadata.uid);
      const review = (token: string) =>
        admin.create<KubeObject>(CoreTypes.TokenReview, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          metadata: {},
          spec: { token },
        });
      const good = await review(sa.token);
      assert.equal(good.status.authenticated, true);
      assert.equal(good.status.user.username, sa.user);
      assert.deepEqual(good.status.user.groups, groups);
      const bogus = await review("not-a-token");
      assert.notEqual(bogus.status.authenticated, true);
      assert.ok(bogus.status.error, "a bogus token's review carries an error");
    });

    await t.step("authn: TokenRequest validates expirationSeconds and needs the ServiceAccount", async () => {
      const tokenPath = (name: string) => `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`;
      const short = await expectError(
        admin.request("POST", tokenPath("authz-robot"), {
          body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 10 } },
          throwOnError: true,
        }),
        isInvalid,
        "10 s token",
      );
      assert.equal(
        short.status.message,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
      );
      const missing = await expectError(
        admin.request("POST", tokenPath("ghost"), {
          body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} },
          throwOnError: true,
        }),
        isNotFound,
        "token for a missing ServiceAccount",
      );
      assert.equal(missing.status.message, 'serviceaccounts "ghost" not found');
      const ok = await admin.request("POST", tokenPath("authz-robot"), {
        body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["my-aud"] } },
        throwOnError: true,
      });
      const tr = JSON.parse(new TextDecoder().decode(ok.body));
      assert.deepEqual(tr.spec.audiences, ["my-aud"]);
      assert.equal(tr.spec.expirationSeconds, 3600);
      const lifetime = Date.parse(tr.status.expirationTimestamp) - Date.now();
      assert.ok(lifetime > 3500_000 && lifetime <= 3601_000, `expires in about an hour (${lifetime} ms)`);
    });

    await t.step("authz: impersonation is refused with the constrained-impersonation check first", async () => {
      // v1.37 (ConstrainedImpersonation on): the first refusal is `impersonate-on:user-info:<verb>` on the request.
      const refused = await rawCall(sa.config, "GET", `/api/v1/namespaces/${ns}/configmaps`, {
        headers: { "Impersonate-User": "dave" },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.reason, "Forbidden");
      assert.equal(
        refused.body.message,
        `configmaps is forbidden: User "${sa.user}" cannot impersonate-on:user-info:list resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      // Granted only the impersonate-on verb, the identity check is the refusal.
      await admin.create(Role, {
        metadata: { name: "impersonate-on", namespace: ns },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["impersonate-on:user-info:list"] }],
      }, { namespace: ns });
      await admin.create(RoleBinding, bindingTo("impersonate-on", ns, "Role", "impersonate-on", saSubject), {
        namespace: ns,
      });
      const second = await eventually("the identity check refuses", async () => {
        const r = await rawCall(sa.config, "GET", `/api/v1/namespaces/${ns}/configmaps`, {
          headers: { "Impersonate-User": "dave" },
        });
        return r.body?.message?.includes("impersonate:user-info") ? r : undefined;
      }, POLL);
      assert.equal(second.status, 403);
      assert.equal(
        second.body.message,
        `users.authentication.k8s.io "dave" is forbidden: User "${sa.user}" cannot impersonate:user-info resource "users" in API group "authentication.k8s.io" at the cluster scope`,
      );
    });

    await t.step("authz: an admin impersonating acts as the impersonated user", async () => {
      const asDave = await rawCall(admin.config, "GET", `/api/v1/namespaces/${ns}/configmaps`, {
        headers: { "Impersonate-User": "dave" },
      });
      assert.equal(asDave.status, 403);
      assert.equal(
        asDave.body.message,
        `configmaps is forbidden: User "dave" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      const asSa = await rawCall(admin.config, "GET", `/api/v1/namespaces/${ns}/configmaps`, {
        headers: { "Impersonate-User": sa.user },
      });
      assert.equal(asSa.status, 200, "a ServiceAccount impersonated gets its groups and bindings");
    });

    await t.step("authz: a ClusterRole with an aggregationRule collects labelled ClusterRoles' rules", async () => {
      const label = `conformance.kubeop.dev/aggregate-${ns}`;
      await admin.create(ClusterRole, {
        metadata: { name: `${ns}-aggregate` },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: "true" } }] },
      });
      await admin.create(ClusterRole, {
        metadata: { name: `${ns}-part`, labels: { [label]: "true" } },
        rules: [{ apiGroups: [""], resources: ["services"], verbs: ["get", "list"] }],
      });
      await admin.create(
        ClusterRoleBinding,
        bindingTo(`${ns}-aggregate`, undefined, "ClusterRole", `${ns}-aggregate`, saSubject),
      );
      const role = await eventually("rules aggregated", async () => {
        const r = await admin.get<KubeObject>(ClusterRole, `${ns}-aggregate`);
        return r.rules?.length ? r : undefined;
      }, POLL);
      assert.deepEqual(role.rules, [{ apiGroups: [""], resources: ["services"], verbs: ["get", "list"] }]);
      await eventually("services listable cluster-wide", () => sa.client.list(CoreTypes.Service), POLL);
      await admin.delete(ClusterRoleBinding, `${ns}-aggregate`);
      await admin.delete(ClusterRole, `${ns}-aggregate`);
      await admin.delete(ClusterRole, `${ns}-part`);
    });

    await t.step("subresources: pods/eviction deletes the pod and answers 201 Success", async () => {
      const pod = await eventually(
        "pod created (default ServiceAccount present)",
        () =>
          admin.create<KubeObject>(CoreTypes.Pod, {
            metadata: { name: "evictee", namespace: ns },
            spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
          }, { namespace: ns }),
        POLL,
      );
      const res = await admin.request("POST", `/api/v1/namespaces/${ns}/pods/evictee/eviction`, {
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "evictee", namespace: ns } },
        throwOnError: true,
      });
      assert.equal(res.status, 201);
      const status = JSON.parse(new TextDecoder().decode(res.body));
      assert.equal(status.kind, "Status");
      assert.equal(status.status, "Success");
      assert.equal(status.code, 201);
      await eventually("pod gone", async () => {
        try {
          const p = await admin.get(CoreTypes.Pod, "evictee", { namespace: ns });
          return p.metadata.uid !== pod.metadata.uid ? true : undefined;
        } catch (err) {
          return isNotFound(err) ? true : undefined;
        }
      }, POLL);
      const missing = await expectError(
        admin.request("POST", `/api/v1/namespaces/${ns}/pods/ghost/eviction`, {
          body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "ghost", namespace: ns } },
          throwOnError: true,
        }),
        isNotFound,
        "evict a missing pod",
      );
      assert.equal(missing.status.message, 'pods "ghost" not found');
    });

    await t.step(
      "subresources: deployments/scale reads and writes spec.replicas as an autoscaling/v1 Scale",
      async () => {
        const Deployment: ResourceType = {
          group: "apps",
          version: "v1",
          plural: "deployments",
          kind: "Deployment",
          namespaced: true,
        };
        await admin.create(Deployment, {
          metadata: { name: "scaled", namespace: ns },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: "scaled", tier: "web" } },
            template: {
              metadata: { labels: { app: "scaled", tier: "web" } },
              spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
            },
          },
        }, { namespace: ns });
        const path = `/apis/apps/v1/namespaces/${ns}/deployments/scaled/scale`;
        const got = JSON.parse(
          new TextDecoder().decode((await admin.request("GET", path, { throwOnError: true })).body),
        );
        assert.equal(got.kind, "Scale");
        assert.equal(got.apiVersion, "autoscaling/v1");
        assert.equal(got.spec.replicas, 2);
        assert.equal(got.status.selector, "app=scaled,tier=web");
        const patched = await admin.request("PATCH", path, {
          body: { spec: { replicas: 5 } },
          contentType: "application/merge-patch+json",
          throwOnError: true,
        });
        assert.equal(JSON.parse(new TextDecoder().decode(patched.body)).spec.replicas, 5);
        const dep = await admin.get<KubeObject>(Deployment, "scaled", { namespace: ns });
        assert.equal(dep.spec.replicas, 5);
      },
    );

    await t.step("authn: deleting the ServiceAccount invalidates its tokens (401)", async () => {
      await admin.delete(ServiceAccount, "authz-robot", { namespace: ns });
      const res = await eventually("token refused", async () => {
        const r = await rawCall(sa.config, "GET", "/version");
        return r.status === 401 ? r : undefined;
      }, POLL);
      assert.equal(res.body.reason, "Unauthorized");
      assert.equal(res.body.message, "Unauthorized");
    });
  } finally {
    sa.client.close();
  }
}
