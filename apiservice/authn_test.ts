import assert from "node:assert/strict";
import { Authenticator, REQUESTHEADER_DEFAULTS, requestHeaderFromConfigMap } from "./authn.ts";
import { MemoryFarmCluster } from "./memory_cluster.ts";

Deno.test("requestheader options are read from extension-apiserver-authentication", () => {
  const cfg = requestHeaderFromConfigMap({
    metadata: { name: "extension-apiserver-authentication", namespace: "kube-system" },
    data: {
      "requestheader-client-ca-file": "PEM",
      "requestheader-allowed-names": '["front-proxy-client"]',
      "requestheader-username-headers": '["X-Remote-User"]',
      "requestheader-group-headers": '["X-Remote-Group"]',
      "requestheader-extra-headers-prefix": '["X-Remote-Extra-"]',
    },
  });
  assert.deepEqual(cfg, {
    clientCAPEM: "PEM",
    allowedNames: ["front-proxy-client"],
    usernameHeaders: ["X-Remote-User"],
    uidHeaders: [],
    groupHeaders: ["X-Remote-Group"],
    extraHeaderPrefixes: ["X-Remote-Extra-"],
  });
  assert.equal(requestHeaderFromConfigMap({ metadata: {}, data: {} }), undefined);
});

Deno.test("headers count only from a verified peer with an allowed CN", async () => {
  const authn = new Authenticator({
    requestHeader: { clientCAPEM: "PEM", ...REQUESTHEADER_DEFAULTS, allowedNames: ["front-proxy-client"] },
  });
  const headers = new Headers([["X-Remote-User", "alice"], ["X-Remote-Group", "a"], ["X-Remote-Group", "b"], [
    "X-Remote-Extra-Acme%2Fscope",
    "x",
  ]]);
  const ok = await authn.authenticate(headers, { verified: true, commonName: "front-proxy-client" });
  assert.deepEqual(ok, {
    kind: "user",
    via: "requestheader",
    user: { username: "alice", groups: ["a", "b", "system:authenticated"], extra: { "acme/scope": ["x"] } },
  });
  // A certificate that verifies but names no allowed front proxy, or does not verify: 401, never anonymous.
  assert.equal((await authn.authenticate(headers, { verified: true, commonName: "mallory" })).kind, "unauthorized");
  assert.equal(
    (await authn.authenticate(headers, { verified: false, commonName: "front-proxy-client" })).kind,
    "unauthorized",
  );
  // No certificate at all: the headers are ignored and the caller is system:anonymous.
  const forged = await authn.authenticate(headers, { verified: false, presented: false });
  assert.deepEqual(forged, {
    kind: "anonymous",
    user: { username: "system:anonymous", groups: ["system:unauthenticated"] },
  });
  const noUser = await authn.authenticate(new Headers(), { verified: true, commonName: "front-proxy-client" });
  assert.equal(noUser.kind, "front-proxy");
});

Deno.test("front-proxy users get system:authenticated once, like k8s.io/apiserver's AuthenticatedGroupAdder", async () => {
  const authn = new Authenticator({
    requestHeader: { clientCAPEM: "PEM", ...REQUESTHEADER_DEFAULTS, allowedNames: [] },
  });
  const peer = { verified: true, commonName: "front-proxy-client" };
  const groupsOf = async (entries: [string, string][]) => {
    const r = await authn.authenticate(new Headers(entries), peer);
    assert.equal(r.kind, "user");
    return r.kind === "user" ? r.user.groups : [];
  };
  // The aggregator's OpenAPI downloads: user system:aggregator, no group header.
  assert.deepEqual(await groupsOf([["X-Remote-User", "system:aggregator"]]), ["system:authenticated"]);
  const already = [["X-Remote-User", "bob"], ["X-Remote-Group", "system:authenticated"]] as [string, string][];
  assert.deepEqual(await groupsOf(already), ["system:authenticated"]);
  assert.deepEqual(await groupsOf([["X-Remote-User", "system:anonymous"]]), []);
});

Deno.test("no credentials: system:anonymous, or 401 (failure) with anonymous auth off; a bad token is 401 (error)", async () => {
  const cluster = new MemoryFarmCluster({ tokens: { good: { username: "carol", groups: [] } } });
  const on = new Authenticator({ cluster });
  const off = new Authenticator({ cluster, anonymous: false });
  const none = { verified: false, presented: false };
  assert.equal((await on.authenticate(new Headers(), none)).kind, "anonymous");
  assert.deepEqual(await off.authenticate(new Headers(), none), {
    kind: "unauthorized",
    result: "failure",
    reason: "anonymous requests are refused",
  });
  const bad = await on.authenticate(new Headers({ authorization: "Bearer nope" }), none);
  assert.ok(bad.kind === "unauthorized" && bad.result === "error", JSON.stringify(bad));
  const good = await off.authenticate(new Headers({ authorization: "Bearer good" }), none);
  assert.ok(good.kind === "user" && good.via === "token");
  assert.deepEqual(good.user.groups, ["system:authenticated"]);
});
