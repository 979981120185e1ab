// docs/getting-started.md, run: `kubeop init` scaffolds a project (importing this checkout) into a temporary
// directory; its `deno task test` passes; `deno task dev` serves its kind to real kubectl, which applies the sample and
// waits for Ready; `kubeop create api` and `kubeop create webhook` (a second kind, admission webhooks, a second version
// of Widget with its conversion webhook) keep its tests green, among them the generated conversion test reading at v1
// in the dev environment a Widget created at v1alpha1; re-running changes nothing and never overwrites a file the
// user changed. Every command of the guide is run, in its order (section 7 by tests/real/scaffold_real_test.ts
// against kube-apiserver).
import assert from "node:assert/strict";
import { guideCommands, GuideShell, kubectlDir, REPO, SETUP_COMMANDS } from "./support/getting_started.ts";

const kubectl = await kubectlDir();
/** Section 7 (kubectl against a real kube-apiserver) runs in the real tier. */
const REAL_TIER_COMMANDS = [
  "kubectl create namespace demo-operator-system",
  "kubectl apply --dry-run=server -k deploy/",
];

Deno.test({
  name: "getting started: init, test, dev + kubectl until Ready, create api + webhook, test again",
  ignore: !kubectl,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const guide = await guideCommands();
    const parent = await Deno.makeTempDir({ prefix: "kubeop-getting-started-" });
    const sh = new GuideShell(parent, kubectl!);
    const project = `${parent}/demo-operator`;
    // Section 1 (clone, npm install, PATH, alias) is this checkout and GuideShell's environment.
    const steps = guide.slice(SETUP_COMMANDS).filter((c) => !REAL_TIER_COMMANDS.includes(c));
    let next = 0;
    const step = async (expected: RegExp) => {
      const command = steps[next++];
      assert.match(command ?? "(end of the guide)", expected, "the guide's commands changed: update this test");
      return await sh.run(command);
    };
    try {
      await t.step("kubeop init writes the project, generates crds/ and deploy/rbac/", async () => {
        const out = await step(/^kubeop init \.\.\/demo-operator /);
        assert.match(out, /created {3}controllers\/widget\/controller\.ts/);
        await step(/^cd \.\.\/demo-operator$/);
        assert.equal(sh.cwd, project);
        const deno = JSON.parse(await Deno.readTextFile(`${project}/deno.json`));
        assert.equal(deno.imports["@kubeop/kubeop"].endsWith("/runtime/mod.ts"), true);
        for (const task of ["dev", "test", "crds", "manifests", "bundle"]) assert.ok(deno.tasks[task], task);
        await Deno.stat(`${project}/crds/widgets.demo.example.com.yaml`);
        assert.ok(((await Deno.stat(`${project}/.ci/run`)).mode ?? 0) & 0o100, ".ci/run is executable");
        for (
          const file of [
            "Containerfile",
            "deploy/operator/pod_disruption_budget.yaml",
            "deploy/operator/network_policy.yaml",
          ]
        ) {
          await Deno.stat(`${project}/${file}`);
        }
        assert.match(await Deno.readTextFile(`${project}/README.md`), /deno task dev[\s\S]*deno task test/);
        const role = await Deno.readTextFile(`${project}/deploy/rbac/controller_widget_role.yaml`);
        assert.match(role, /name: demo-operator-controller-widget/);
        assert.match(role, /- widgets\/status/);
      });

      await t.step("deno task test passes", async () => {
        await step(/^deno task test$/);
      });

      await t.step("deno task dev serves the kind; kubectl applies the sample and sees it Ready", async () => {
        const command = steps[next++];
        assert.equal(command, "deno task dev");
        const dev = await sh.start(command, /dev ready: KUBECONFIG=/);
        try {
          await step(/^export KUBECONFIG=/);
          assert.match(dev.output(), new RegExp(`KUBECONFIG=${sh.kubeconfig}`));
          assert.match(await step(/^kubectl apply -f deploy\/samples\/$/), /widget-sample created/);
          assert.match(await step(/^kubectl wait --for=condition=Ready/), /condition met/);
          assert.match(await step(/^kubectl get widgets$/), /widget-sample\s+hello from widget-sample\s+True/);
          assert.equal(await step(/^kubectl get configmap widget-sample/), "hello from widget-sample");
        } finally {
          await dev.stop();
        }
      });

      await t.step(
        "create api + webhooks, a second version + conversion, then deno task test passes again",
        async () => {
          assert.match(
            await step(/^kubeop create api .*--kind Gadget$/),
            /created {3}controllers\/gadget\/controller\.ts/,
          );
          assert.match(
            await step(/^kubeop create webhook .*--validate/),
            /created {3}controllers\/widget\/webhook\.ts/,
          );
          await Deno.stat(`${project}/deploy/webhook/demo-operator-validating-webhook-configuration.yaml`);
          await Deno.stat(`${project}/crds/gadgets.demo.example.com.yaml`);
          const version = await step(/^kubeop create api .*--version v1 --kind Widget$/);
          assert.match(version, /created {3}controllers\/widget\/schema_v1\.ts/);
          assert.match(version, /served at v1alpha1, v1; v1alpha1 stays the storage version/);
          assert.match(
            await step(/^kubeop create webhook .*--convert$/),
            /created {3}controllers\/widget\/conversion\.ts/,
          );
          const crd = await Deno.readTextFile(`${project}/crds/widgets.demo.example.com.yaml`);
          assert.match(crd, /- name: v1alpha1\n(.*\n)*? {6}storage: true/);
          assert.match(crd, /- name: v1\n(.*\n)*? {6}storage: false/);
          assert.match(crd, /strategy: Webhook[\s\S]*name: demo-operator-webhook[\s\S]*path: \/convert/);
          const out = await step(/^deno task test$/);
          assert.match(out, /gadget: the controller reconciles on a fake API server/);
          assert.match(out, /widget webhook: a message of only spaces is refused/);
          assert.match(out, /widget conversion: a sample goes to every version and back unchanged \.\.\. ok/);
          assert.match(
            out,
            /widget conversion: in the dev environment, what is written at one version reads at the other \.\.\. ok/,
          );
          assert.equal(next, steps.length, `guide commands not run: ${steps.slice(next).join("; ")}`);
        },
      );

      await t.step("re-running changes nothing; a file the user changed is skipped, not overwritten", async () => {
        for (
          const command of [
            "kubeop create api --group demo.example.com --version v1alpha1 --kind Gadget",
            "kubeop create api --group demo.example.com --version v1 --kind Widget",
            "kubeop create webhook --kind Widget --convert",
          ]
        ) assert.doesNotMatch(await sh.run(command), /created|updated|skipped/, command);
        const controller = `${project}/controllers/gadget/controller.ts`;
        const mine = (await Deno.readTextFile(controller)) + "\n// my change\n";
        await Deno.writeTextFile(controller, mine);
        const webhook = await sh.run("kubeop create webhook --kind Widget --validate");
        assert.doesNotMatch(webhook, /skipped/);
        const init = await sh.run(
          `kubeop init ${project} --group demo.example.com --version v1alpha1 --kind Widget --kubeop ${REPO}`,
        );
        assert.match(init, /skipped {3}controllers\/gadget\/controller\.ts \(changed since kubeop wrote it/);
        assert.equal(await Deno.readTextFile(controller), mine);
      });

      await t.step("main.ts run takes kubeop run's manager flags, with the operator's names as defaults", async () => {
        const help = await sh.run("deno run --allow-all main.ts run --help");
        for (
          const line of [
            /--leader-election-id NAME +Lease name \(default demo-operator-leader\)/,
            /--namespace NS /,
            /--shards auto\|off /,
            /--webhook-service-name NAME .*\(default demo-operator-webhook\)/,
            /--metrics-bind-address ADDR +\/metrics address \(default 0; 0 disables\)/,
          ]
        ) assert.match(help, line);
      });

      await t.step("bad input exits 2 with the flag named", async () => {
        const bad = await new Deno.Command("bash", {
          args: [
            "-c",
            `kubeop() { deno run --allow-all ${REPO}/main.ts "$@"; }; kubeop create api --kind widget; echo "exit $?" >&2; ` +
            `kubeop create webhook --kind Gadget --convert; echo "exit $?" >&2; ` +
            `deno run --allow-all main.ts run --leader-elect-lease-duration=5s`,
          ],
          cwd: project,
          env: sh.env(),
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(bad.code, 2);
        const stderr = new TextDecoder().decode(bad.stderr);
        assert.match(stderr, /--group, --version is required\n[\s\S]*exit 2\n/);
        assert.match(
          stderr,
          /--convert: Gadget is served at one version \(v1alpha1\), so there is nothing to convert;[^\n]*\n[\s\S]*exit 2\n/,
        );
        assert.match(stderr, /demo-operator run: --leader-elect-lease-duration \(5s\) must be greater than/);
      });
    } finally {
      await Deno.remove(parent, { recursive: true });
    }
  },
});
