// deploy/apiservice/ manifests: parse, keep the seed's APIService facts without insecureSkipTLSVerify, and pass
// exactly the flags `kubeop apiserver` accepts.
import assert from "node:assert/strict";
import YAML from "yaml";
import { parseApiserverFlags } from "../cli/apiserver.ts";

const DIR = new URL("../deploy/apiservice/", import.meta.url);

async function docs(file: string) {
  const text = await Deno.readTextFile(new URL(file, DIR));
  return YAML.parseAllDocuments(text).map((d) => d.toJS());
}

Deno.test("APIService points at the Service with the seed's priorities and verifies TLS", async () => {
  const [apiservice] = await docs("apiservice.yaml");
  assert.equal(apiservice.metadata.name, "v1alpha.farm.example.com");
  assert.equal(apiservice.spec.groupPriorityMinimum, 1000);
  assert.equal(apiservice.spec.versionPriority, 15);
  assert.equal(apiservice.spec.insecureSkipTLSVerify, undefined);
  const [service] = await docs("service.yaml");
  assert.equal(apiservice.spec.service.name, service.metadata.name);
  assert.equal(apiservice.spec.service.namespace, service.metadata.namespace);
  assert.equal(apiservice.spec.service.port, service.spec.ports[0].port);
});

Deno.test("Deployment runs `kubeop apiserver` with valid flags that match the RBAC", async () => {
  const [deployment] = await docs("deployment.yaml");
  const [container] = deployment.spec.template.spec.containers;
  assert.equal(container.args[0], "apiserver");
  const opts = parseApiserverFlags(container.args.slice(1));
  assert.notEqual(opts, "help");
  if (opts === "help") return;
  assert.equal(opts.apiServiceName, "v1alpha.farm.example.com");
  const rbac = await docs("rbac.yaml");
  const sa = rbac.find((d) => d.kind === "ServiceAccount");
  assert.equal(deployment.spec.template.spec.serviceAccountName, sa.metadata.name);
  const bindingTo = (role: string) => rbac.find((d) => d.roleRef?.name === role);
  assert.equal(bindingTo("system:auth-delegator")?.kind, "ClusterRoleBinding");
  assert.equal(bindingTo("extension-apiserver-authentication-reader")?.metadata.namespace, "kube-system");
  const storage = rbac.find((d) => d.kind === "Role" && d.metadata.name === "kubeop-farm-storage");
  assert.equal(storage.metadata.namespace, opts.storageNamespace);
  assert.ok(storage.rules.some((r: { resourceNames?: string[] }) => r.resourceNames?.includes(opts.storageName!)));
  assert.ok(storage.rules.some((r: { resourceNames?: string[] }) => r.resourceNames?.includes(opts.certSecret!.name)));
  const cluster = rbac.find((d) => d.kind === "ClusterRole" && d.metadata.name === "kubeop-farm");
  assert.ok(
    cluster.rules.some((r: { resources: string[]; verbs: string[] }) =>
      r.resources.includes("pods") && r.verbs.join() === "get,list,watch"
    ),
  );
});
