/**
 * deploy/ as a user installs it: `kubectl kustomize deploy/` renders every CRD (exactly `kubeop crds`, with At's
 * webhook-converted v1beta1 and conversion stanza patched in; `kubectl kustomize crds/` is `kubeop crds` alone), the
 * namespace, RBAC, the controller Deployment with topology spread, its metrics Service, PodDisruptionBudget,
 * NetworkPolicy and webhooks (Service, configurations exactly `kubeop webhooks`); an overlay's `images:` retargets
 * the image; deploy/apiservice/ renders on its own. Skipped without the cached kubectl (scripts/clients.sh fetches
 * it).
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import YAML from "yaml";
import { crdManifests, WEBHOOK_VERSIONS } from "../controllers/crds.ts";
import { webhookManifests } from "../cli/webhooks.ts";
import type { Unstructured as KubeObject } from "../testing/apiserver/unstructured.ts";

const KUBECTL = new URL("../.cache/clients/kubectl", import.meta.url).pathname;
const DEPLOY = new URL("../deploy/", import.meta.url).pathname;
const haveKubectl = await Deno.stat(KUBECTL).then((s) => s.isFile, () => false);

async function kustomize(dir: string): Promise<KubeObject[]> {
  const out = await new Deno.Command(KUBECTL, { args: ["kustomize", dir], stdout: "piped", stderr: "piped" }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `kubectl kustomize ${dir} failed: ${stderr}`);
  return YAML.parseAllDocuments(new TextDecoder().decode(out.stdout)).map((d) => d.toJS() as KubeObject);
}

const find = (objs: KubeObject[], kind: string, name?: string) =>
  objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

Deno.test({
  name: "kubectl kustomize deploy/ renders every CRD, the namespace, RBAC and the controller with its companions",
  ignore: !haveKubectl,
  async fn() {
    const objs = await kustomize(DEPLOY);
    const crds = find(objs, "CustomResourceDefinition");
    assert.deepEqual(crds.map((c) => c.metadata.name).sort(), crdManifests().map((c) => c.metadata.name).sort());
    // Next to the Deployment, which serves the conversion webhook, At's CRD also serves v1beta1.
    for (const crd of crdManifests({ converting: Object.keys(WEBHOOK_VERSIONS) })) {
      assert.deepEqual(find(objs, "CustomResourceDefinition", crd.metadata.name)[0], crd, crd.metadata.name);
    }
    assert.equal(find(objs, "Namespace", "kubeop-system").length, 1);
    for (const kind of ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]) {
      assert.ok(find(objs, kind).length >= 1, kind);
    }
    const [deployment] = find(objs, "Deployment", "kubeop-controller");
    const pod = deployment.spec.template.spec;
    const labels = deployment.spec.selector.matchLabels;
    assert.deepEqual(
      pod.topologySpreadConstraints.map((t: { topologyKey: string }) => t.topologyKey),
      ["kubernetes.io/hostname", "topology.kubernetes.io/zone"],
    );
    for (const t of pod.topologySpreadConstraints) assert.deepEqual(t.labelSelector.matchLabels, labels);
    const [service] = find(objs, "Service", "kubeop-controller-metrics");
    assert.deepEqual(service.spec.selector, labels);
    const metricsPort = pod.containers[0].ports.find((p: { name: string }) => p.name === "metrics");
    assert.equal(service.spec.ports[0].targetPort, "metrics");
    assert.ok(metricsPort, "the container names its metrics port");
    const [pdb] = find(objs, "PodDisruptionBudget", "kubeop-controller");
    assert.deepEqual(pdb.spec.selector.matchLabels, labels);
    assert.ok(deployment.spec.replicas > (pdb.spec.maxUnavailable ?? 0), "a drain never takes every replica");
    const [policy] = find(objs, "NetworkPolicy", "kubeop-controller");
    assert.deepEqual(policy.spec.podSelector.matchLabels, labels);
    assert.deepEqual(policy.spec.ingress[0].ports.map((p: { port: string }) => p.port), [
      "metrics",
      "probes",
      "webhook-server",
    ]);
    // The webhooks: the Service kube-apiserver calls targets the container's webhook port; the configurations are
    // exactly `kubeop webhooks`.
    const [webhookService] = find(objs, "Service", "kubeop-webhook");
    assert.deepEqual(webhookService.spec.selector, labels);
    assert.equal(webhookService.spec.ports[0].targetPort, "webhook-server");
    const webhookPort = pod.containers[0].ports.find((p: { name: string }) => p.name === "webhook-server");
    assert.equal(webhookPort?.containerPort, 9443);
    for (const config of webhookManifests()) {
      assert.deepEqual(find(objs, config.kind!, config.metadata.name)[0], config, config.metadata.name);
    }
    for (const o of objs.filter((o) => o.metadata.namespace !== undefined)) {
      assert.equal(o.metadata.namespace, "kubeop-system", `${o.kind} ${o.metadata.name}`);
    }
  },
});

Deno.test({
  name: "kubectl kustomize crds/ renders exactly kubeop crds: no version that needs a webhook",
  ignore: !haveKubectl,
  async fn() {
    const objs = await kustomize(new URL("../crds/", import.meta.url).pathname);
    assert.deepEqual(objs.map((o) => o.metadata.name).sort(), crdManifests().map((c) => c.metadata.name).sort());
    for (const crd of crdManifests()) {
      assert.deepEqual(find(objs, "CustomResourceDefinition", crd.metadata.name)[0], crd, crd.metadata.name);
    }
    assert.ok(objs.every((o) => o.spec.conversion === undefined));
  },
});

Deno.test({
  name: "an overlay's images: retargets the operator image; deploy/apiservice/ renders the farm API server",
  ignore: !haveKubectl,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-kustomize-" });
    try {
      await Deno.writeTextFile(
        `${dir}/kustomization.yaml`,
        YAML.stringify({
          apiVersion: "kustomize.config.k8s.io/v1beta1",
          kind: "Kustomization",
          resources: [relative(dir, DEPLOY)], // kustomize refuses absolute paths
          images: [{ name: "kubeop", newName: "registry.example.com/team/kubeop", newTag: "v1.2.3" }],
        }),
      );
      const objs = await kustomize(dir);
      const [deployment] = find(objs, "Deployment", "kubeop-controller");
      assert.equal(deployment.spec.template.spec.containers[0].image, "registry.example.com/team/kubeop:v1.2.3");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    const farm = await kustomize(`${DEPLOY}apiservice/`);
    assert.equal(find(farm, "APIService", "v1alpha.farm.example.com").length, 1);
    assert.equal(find(farm, "Deployment", "kubeop-farm").length, 1);
    assert.equal(find(farm, "CustomResourceDefinition").length, 0, "the overlay does not re-apply the operator");
  },
});
