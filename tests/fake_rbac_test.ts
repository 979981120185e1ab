// RBAC in the fake API server: ServiceAccount tokens, the authorizer's 403s, bindings, aggregation, impersonation,
// the review kinds, client-certificate users and the `rbac: false` opt-out.
import assert from "node:assert/strict";
import { startFakeApiServer } from "../testing/mod.ts";
import { call } from "../testing/test_http.ts";
import { createCA } from "../runtime/http/pki.ts";

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

async function serviceAccountToken(url: string, ns: string, name: string): Promise<string> {
  assert.equal(
    (await call(url, "POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name } })).status,
    201,
  );
  const tr = await call(url, "POST", `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  });
  assert.equal(tr.status, 201, JSON.stringify(tr.body));
  assert.match(tr.body.status.expirationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(tr.body.spec.audiences, ["https://kubernetes.default.svc.cluster.local"]);
  return tr.body.status.token;
}

Deno.test("a ServiceAccount token is forbidden until a RoleBinding grants; kube's 403 wording", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const token = await serviceAccountToken(s.url, "default", "robot");
    const as = { authorization: `Bearer ${token}` };
    const denied = await call(s.url, "GET", "/api/v1/namespaces/default/configmaps/x", undefined, as);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.reason, "Forbidden");
    assert.equal(
      denied.body.message,
      'configmaps "x" is forbidden: User "system:serviceaccount:default:robot" cannot get resource "configmaps" in API group "" in the namespace "default"',
    );
    assert.deepEqual(denied.body.details, { name: "x", kind: "configmaps" });
    const cluster = await call(s.url, "GET", `${RBAC}/clusterroles`, undefined, as);
    assert.equal(
      cluster.body.message,
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:default:robot" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    // Discovery and version are open to every authenticated user (system:discovery, system:public-info-viewer).
    assert.equal((await call(s.url, "GET", "/version", undefined, as)).status, 200);
    assert.equal((await call(s.url, "GET", "/api/v1", undefined, as)).status, 200);

    await call(s.url, "POST", `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: "robot-view" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "ServiceAccount", name: "robot", namespace: "default" }],
    });
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/default/configmaps", undefined, as)).status, 200);
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/kube-system/configmaps", undefined, as)).status, 403);
    const write = await call(s.url, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "c" } }, as);
    assert.equal(write.status, 403, "view does not create");
    assert.equal((await call(s.url, "GET", "/api/v1/namespaces/default/secrets", undefined, as)).status, 403);

    // A binding to a missing role: the denial names the error.
    await call(s.url, "POST", `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: "dangling" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "nope" },
      subjects: [{ kind: "ServiceAccount", name: "robot" }],
    });
    const dangling = await call(s.url, "GET", "/api/v1/namespaces/default/secrets", undefined, as);
    assert.match(dangling.body.message, /: RBAC: role\.rbac\.authorization\.k8s\.io "nope" not found$/);

    // Deleting the ServiceAccount invalidates its tokens.
    await call(s.url, "DELETE", "/api/v1/namespaces/default/serviceaccounts/robot");
    assert.equal((await call(s.url, "GET", "/version", undefined, as)).status, 401);
  } finally {
    await s.stop();
  }
});

Deno.test("TokenReview authenticates only issued tokens; SelfSubjectReview; TokenRequest validation", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const token = await serviceAccountToken(s.url, "default", "bot");
    const review = (t: string) =>
      call(s.url, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenReview",
        spec: { token: t },
      });
    const good = await review(token);
    assert.equal(good.status, 201);
    assert.equal(good.body.status.authenticated, true);
    assert.equal(good.body.status.user.username, "system:serviceaccount:default:bot");
    assert.deepEqual(good.body.status.user.groups, [
      "system:serviceaccounts",
      "system:serviceaccounts:default",
      "system:authenticated",
    ]);
    const bogus = await review("bogus");
    assert.equal(bogus.body.status.authenticated, undefined);
    assert.ok(bogus.body.status.error);
    const empty = await review("");
    assert.equal(empty.status, 400);
    assert.equal(empty.body.message, "token is required for TokenReview in authentication");

    const self = await call(s.url, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    }, { authorization: `Bearer ${token}` });
    assert.equal(self.status, 201);
    assert.equal(self.body.status.userInfo.username, "system:serviceaccount:default:bot");

    const short = await call(s.url, "POST", "/api/v1/namespaces/default/serviceaccounts/bot/token", {
      spec: { expirationSeconds: 10 },
    });
    assert.equal(short.status, 422);
    assert.equal(
      short.body.message,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
    );
    const missing = await call(s.url, "POST", "/api/v1/namespaces/default/serviceaccounts/ghost/token", { spec: {} });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'serviceaccounts "ghost" not found');
  } finally {
    await s.stop();
  }
});

Deno.test("aggregated ClusterRoles collect labelled rules; SAR, LocalSAR, SelfSAR and rules review follow", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const view = await call(s.url, "GET", `${RBAC}/clusterroles/view`);
    assert.ok(view.body.rules.some((r: { resources: string[] }) => r.resources?.includes("configmaps")));
    assert.ok(!view.body.rules.some((r: { resources: string[] }) => r.resources?.includes("secrets")));
    await call(s.url, "POST", `${RBAC}/clusterroles`, {
      metadata: { name: "widgets-view", labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } },
      rules: [{ apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list"] }],
    });
    await call(s.url, "POST", `${RBAC}/rolebindings`.replace("/rolebindings", "/namespaces/default/rolebindings"), {
      metadata: { name: "carol-view" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "carol" }],
    });
    const sar = (resource: string, namespace: string) =>
      call(s.url, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        spec: { user: "carol", resourceAttributes: { verb: "list", group: "example.com", resource, namespace } },
      });
    const allowed = await sar("widgets", "default");
    assert.equal(allowed.body.status.allowed, true, "view aggregated widgets-view (also into edit and admin)");
    assert.equal(
      allowed.body.status.reason,
      'RBAC: allowed by RoleBinding "carol-view/default" of ClusterRole "view" to User "carol"',
    );
    assert.equal((await sar("widgets", "other")).body.status.allowed, false);
    const edit = await call(s.url, "GET", `${RBAC}/clusterroles/admin`);
    assert.ok(edit.body.rules.some((r: { resources: string[] }) => r.resources?.includes("widgets")));

    const local = await call(
      s.url,
      "POST",
      "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
      {
        spec: { user: "carol", resourceAttributes: { verb: "get", resource: "pods", namespace: "default" } },
      },
    );
    assert.equal(local.status, 201);
    assert.equal(local.body.status.allowed, true);
    const mismatch = await call(
      s.url,
      "POST",
      "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
      {
        spec: { user: "carol", resourceAttributes: { verb: "get", resource: "pods", namespace: "other" } },
      },
    );
    assert.equal(mismatch.status, 422);

    const asCarol = { "impersonate-user": "carol" };
    const ssar = await call(s.url, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      spec: { resourceAttributes: { verb: "delete", resource: "pods", namespace: "default" } },
    }, asCarol);
    assert.equal(ssar.status, 201);
    assert.equal(ssar.body.status.allowed, false);
    const rules = await call(s.url, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
      spec: { namespace: "default" },
    }, asCarol);
    assert.ok(rules.body.status.resourceRules.some((r: { resources: string[] }) => r.resources.includes("widgets")));
    assert.ok(
      rules.body.status.nonResourceRules.some((r: { nonResourceURLs: string[] }) =>
        r.nonResourceURLs.includes("/version")
      ),
    );
  } finally {
    await s.stop();
  }
});

Deno.test("impersonation needs the impersonate verb; the impersonated user is authorized", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true });
  try {
    const token = await serviceAccountToken(s.url, "default", "imp");
    const as = { authorization: `Bearer ${token}`, "impersonate-user": "dave" };
    const refused = await call(s.url, "GET", "/api/v1/namespaces", undefined, as);
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'namespaces is forbidden: User "system:serviceaccount:default:imp" cannot impersonate-on:user-info:list resource "namespaces" in API group "" at the cluster scope',
    );
    const asDave = await call(s.url, "GET", "/api/v1/namespaces", undefined, { "impersonate-user": "dave" });
    assert.equal(asDave.status, 403);
    assert.match(asDave.body.message, /User "dave" cannot list resource "namespaces"/);
    const groups = await call(s.url, "GET", "/api/v1/namespaces", undefined, {
      "impersonate-user": "dave",
      "impersonate-group": "system:masters",
    });
    assert.equal(groups.status, 200);
  } finally {
    await s.stop();
  }
});

Deno.test("a client certificate other than the admin's is a user with its organizations as groups", async () => {
  const ca = await createCA({ commonName: "team-ca" });
  const erin = await ca.issue({ commonName: "erin", organizations: ["devs"], usage: "client" });
  const s = await startFakeApiServer({ tls: { clientCA: ca.certPEM } });
  const client = Deno.createHttpClient({ caCerts: [s.caPEM!], cert: erin.certPEM, key: erin.keyPEM });
  const get = async () => {
    const res = await fetch(`${s.url}/api/v1/namespaces/default/pods`, { client });
    return { status: res.status, body: await res.json() };
  };
  try {
    const denied = await get();
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /User "erin" cannot list resource "pods"/);
    s.store.create({ group: "rbac.authorization.k8s.io", version: "v1", plural: "clusterrolebindings" }, {
      metadata: { name: "devs-view" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "devs" }],
    });
    assert.equal((await get()).status, 200);
  } finally {
    client.close();
    await s.stop();
  }
});

Deno.test("rbac: false allows every authenticated request (opt-out)", async () => {
  const s = await startFakeApiServer({ anonymousAdmin: true, rbac: false });
  try {
    const token = await serviceAccountToken(s.url, "default", "free");
    const res = await call(s.url, "GET", "/api/v1/namespaces/kube-system/secrets", undefined, {
      authorization: `Bearer ${token}`,
    });
    assert.equal(res.status, 200);
  } finally {
    await s.stop();
  }
});
