// Real-cluster tier: section 7 of docs/getting-started.md. A project scaffolded by `kubeop init` (plus a cluster-scoped
// kind from `kubeop create api`, Widget's webhooks from `kubeop create webhook`, and Widget's second version with its
// conversion webhook: a CRD serving v1alpha1 and v1 with spec.conversion strategy Webhook) has manifests kube-apiserver
// accepts: the guide's `kubectl apply --dry-run=server -k deploy/`, then for real, then its samples once the CRDs are
// established.
import assert from "node:assert/strict";
import { realClusterBinDir, startRealCluster } from "../support/real_cluster.ts";
import { guideCommands, GuideShell } from "../support/getting_started.ts";

const binDir = await realClusterBinDir();

Deno.test({
  name: "real cluster: a kubeop init project's deploy/ applies (server dry run, then for real) and its samples too",
  ignore: !binDir,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const guide = await guideCommands();
    const dryRun = guide.slice(guide.indexOf("kubectl create namespace demo-operator-system"));
    assert.deepEqual(dryRun, [
      "kubectl create namespace demo-operator-system",
      "kubectl apply --dry-run=server -k deploy/",
    ]);
    const parent = await Deno.makeTempDir({ prefix: "kubeop-getting-started-real-" });
    const sh = new GuideShell(parent, binDir!);
    const cluster = await startRealCluster({ binDir });
    try {
      await sh.run(guide.find((c) => c.startsWith("kubeop init "))!);
      await sh.run("cd ../demo-operator");
      await sh.run("kubeop create api --group demo.example.com --version v1 --kind Gadget --cluster-scoped");
      await sh.run("kubeop create webhook --kind Widget --validate --default");
      await sh.run("kubeop create api --group demo.example.com --version v1 --kind Widget");
      await sh.run("kubeop create webhook --kind Widget --convert");
      // The drift test: a verb added to an RBAC list fails it until `deno task manifests` regenerates deploy/rbac/.
      // (Here rather than in tests/scaffold_test.ts: each type check of a project costs ~20 s of the default tier.)
      const controller = `${parent}/demo-operator/controllers/gadget/controller.ts`;
      const code = await Deno.readTextFile(controller);
      await Deno.writeTextFile(
        controller,
        code.replace(`[...READ, "create", "update"]`, `[...READ, "create", "update", "delete"]`),
      );
      await assert.rejects(sh.run("deno test --allow-all manifests_test.ts"), /controller_gadget_role\.yaml is stale/);
      await sh.run("deno task manifests");
      await sh.run("deno test --allow-all manifests_test.ts");
      sh.kubeconfig = cluster.kubeconfigPath;
      await sh.run(dryRun[0]);
      const dry = await sh.run(dryRun[1]);
      for (
        const line of [
          "customresourcedefinition.apiextensions.k8s.io/widgets.demo.example.com created",
          "customresourcedefinition.apiextensions.k8s.io/gadgets.demo.example.com created",
          "clusterrole.rbac.authorization.k8s.io/demo-operator-controller-widget created",
          "clusterrole.rbac.authorization.k8s.io/demo-operator-controller-gadget created",
          "deployment.apps/demo-operator-controller created",
          "service/demo-operator-controller-metrics created",
          "service/demo-operator-webhook created",
          "poddisruptionbudget.policy/demo-operator-controller created",
          "networkpolicy.networking.k8s.io/demo-operator-controller created",
          "validatingwebhookconfiguration.admissionregistration.k8s.io/demo-operator-validating-webhook-configuration created",
        ]
      ) assert.ok(dry.includes(`${line} (server dry run)`), `${line}:\n${dry}`);
      await sh.run("kubectl apply -k deploy/");
      const crd = JSON.parse(await sh.run("kubectl get crd widgets.demo.example.com -o json"));
      assert.deepEqual(
        crd.spec.versions.map((
          v: { name: string; served: boolean; storage: boolean },
        ) => [v.name, v.served, v.storage]),
        [["v1alpha1", true, true], ["v1", true, false]],
      );
      assert.equal(crd.spec.conversion.strategy, "Webhook");
      assert.equal(crd.spec.conversion.webhook.clientConfig.service.path, "/convert");
      await sh.run(
        "kubectl wait --for=condition=Established crd/widgets.demo.example.com crd/gadgets.demo.example.com",
      );
      // Without the operator running, its webhooks (failurePolicy Fail) would refuse the samples: apply them before.
      await sh.run("kubectl delete validatingwebhookconfiguration,mutatingwebhookconfiguration --all");
      const samples = await sh.run("kubectl apply --dry-run=server -f deploy/samples/");
      assert.match(samples, /widget\.demo\.example\.com\/widget-sample created \(server dry run\)/);
      assert.match(samples, /gadget\.demo\.example\.com\/gadget-sample created \(server dry run\)/);
    } finally {
      await cluster.stop();
      await Deno.remove(parent, { recursive: true });
    }
  },
});
