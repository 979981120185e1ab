import assert from "node:assert/strict";
import { Authenticator, REQUESTHEADER_DEFAULTS, requestHeaderFromConfigMap } from "./authn.ts";

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
    user: { username: "alice", groups: ["a", "b"], extra: { "acme/scope": ["x"] } },
  });
  assert.equal((await authn.authenticate(headers, { verified: true, commonName: "mallory" })).kind, "anonymous");
  assert.equal(
    (await authn.authenticate(headers, { verified: false, commonName: "front-proxy-client" })).kind,
    "anonymous",
  );
  const noUser = await authn.authenticate(new Headers(), { verified: true, commonName: "front-proxy-client" });
  assert.equal(noUser.kind, "front-proxy");
});
