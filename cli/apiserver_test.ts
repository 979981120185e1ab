import assert from "node:assert/strict";
import { type ApiserverOptions, parseApiserverFlags } from "./apiserver.ts";
import { UsageError } from "./flags.ts";

Deno.test("kubeop apiserver defaults: port 8443, delegated auth, memory storage, kube's request-header names", () => {
  const opts = parseApiserverFlags([]) as ApiserverOptions;
  assert.equal(opts.securePort, 8443);
  assert.equal(opts.bindAddress, "0.0.0.0");
  assert.equal(opts.auth, "delegated");
  assert.equal(opts.storage, "memory");
  assert.equal(opts.serviceName, "kubeop-farm");
  assert.equal(opts.certDir, ".kubeop/farm-certs");
  assert.equal(opts.authorizationCacheTtlMs, 10_000);
  assert.equal(opts.anonymousAuth, true, "k8s.io/apiserver's default");
  assert.equal(opts.certSecret, undefined);
  assert.deepEqual(opts.requestHeader.usernameHeaders, ["X-Remote-User"]);
  assert.deepEqual(opts.requestHeader.groupHeaders, ["X-Remote-Group"]);
  assert.deepEqual(opts.requestHeader.extraHeaderPrefixes, ["X-Remote-Extra-"]);
  assert.equal(parseApiserverFlags(["--help"]), "help");
});

Deno.test("kubeop apiserver parses the serving, auth and storage flags", () => {
  const opts = parseApiserverFlags([
    "--secure-port=9443",
    "--tls-san",
    "a.example,b.example",
    "--cert-secret",
    "farm/serving-cert",
    "--auth",
    "none",
    "--storage",
    "configmap",
    "--authorization-cache-ttl-seconds",
    "0",
    "--kubeconfig",
    "kc",
    "--authentication-kubeconfig",
    "kc",
    "--anonymous-auth=false",
  ]) as ApiserverOptions;
  assert.equal(opts.securePort, 9443);
  assert.deepEqual(opts.tlsSans, ["a.example", "b.example"]);
  assert.deepEqual(opts.certSecret, { namespace: "farm", name: "serving-cert" });
  assert.equal(opts.auth, "none");
  assert.equal(opts.storage, "configmap");
  assert.equal(opts.authorizationCacheTtlMs, 0);
  assert.equal(opts.kubeconfig, "kc");
  assert.equal(opts.anonymousAuth, false);
});

Deno.test("kubeop apiserver usage errors name the flag", () => {
  const cases: [string[], RegExp][] = [
    [["--secure-port", "70000"], /flag --secure-port must be ≤ 65535/],
    [["--tls-cert-file", "c.pem"], /--tls-cert-file and --tls-private-key-file go together/],
    [["--cert-secret", "only-name"], /flag --cert-secret must be NAMESPACE\/NAME, got "only-name"/],
    [["--cert-secret", "ns/"], /flag --cert-secret must be NAMESPACE\/NAME/],
    [["--kubeconfig", "a", "--authorization-kubeconfig", "b"], /--authorization-kubeconfig must equal --kubeconfig/],
    [["--auth", "basic"], /flag --auth must be one of delegated\|none/],
    [["--storage", "etcd"], /flag --storage must be one of memory\|configmap/],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => parseApiserverFlags(args),
      (err) => err instanceof UsageError && err.message.startsWith("kubeop apiserver: ") && message.test(err.message),
      args.join(" "),
    );
  }
});
