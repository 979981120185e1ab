// RBAC in `kubeop dev` as a user meets it with kubectl: `auth can-i --as`, `create token`, a ServiceAccount
// kubeconfig refused what its bindings do not grant (kube's 403 wording), `auth whoami` and `auth can-i --list`.
import assert from "node:assert/strict";
import { startDev } from "../cli/dev.ts";
import { kubectlBinaries } from "./kubectl/suite.ts";
import { kubectlRunner } from "./support/kubectl_runner.ts";

const binaries = await kubectlBinaries();
const KUBECTL = binaries["1.35"] ?? binaries["1.33"] ?? binaries["1.32"];

Deno.test({
  name: "kubeop dev: kubectl auth can-i --as, create token and a ServiceAccount kubeconfig follow RBAC",
  ignore: !KUBECTL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kubeop-dev-rbac-" });
    const dev = await startDev({ kubeconfigOut: `${dir}/dev.kubeconfig` });
    const run = async (kubeconfig: string, ...args: string[]) => {
      const out = await kubectlRunner(KUBECTL!, kubeconfig, `${dir}/cache`)(...args);
      return { code: out.code, stdout: out.stdout.trim(), stderr: out.stderr.trim() };
    };
    const admin = (...args: string[]) => run(dev.kubeconfigPath, ...args);
    const ok = async (p: Promise<{ code: number; stdout: string; stderr: string }>, what: string) => {
      const r = await p;
      assert.equal(r.code, 0, `${what}: ${r.stderr}`);
      return r.stdout;
    };
    try {
      await ok(admin("create", "serviceaccount", "ci", "-n", "default"), "create sa");
      const as = ["--as", "system:serviceaccount:default:ci", "-n", "default"];
      const before = await admin("auth", "can-i", "list", "pods", ...as);
      assert.equal(before.stdout, "no");
      assert.equal(before.code, 1);
      await ok(
        admin(
          "create",
          "rolebinding",
          "ci-view",
          "--clusterrole",
          "view",
          "--serviceaccount",
          "default:ci",
          "-n",
          "default",
        ),
        "create rolebinding",
      );
      assert.equal(await ok(admin("auth", "can-i", "list", "pods", ...as), "can-i after binding"), "yes");
      assert.equal((await admin("auth", "can-i", "get", "secrets", ...as)).stdout, "no");

      const token = await ok(admin("create", "token", "ci", "-n", "default", "--duration", "1h"), "create token");
      assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, "a JWT-shaped token");
      // docs/testing.md's recipe: the admin kubeconfig, minified, with a user holding the token as its current user.
      const saKubeconfig = `${dir}/ci.kubeconfig`;
      await Deno.writeTextFile(saKubeconfig, await ok(admin("config", "view", "--raw", "--minify"), "config view"));
      await ok(run(saKubeconfig, "config", "set-credentials", "ci", "--token", token), "set-credentials");
      await ok(run(saKubeconfig, "config", "set-context", "--current", "--user", "ci"), "set-context");
      const sa = (...args: string[]) => run(saKubeconfig, ...args);

      await ok(sa("get", "pods", "-n", "default"), "ServiceAccount lists pods");
      const refused = await sa("get", "secrets", "-n", "default");
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /Error from server \(Forbidden\): secrets is forbidden: User "system:serviceaccount:default:ci" cannot list resource "secrets" in API group "" in the namespace "default"/,
      );
      const whoami = await ok(sa("auth", "whoami", "-o", "json"), "whoami");
      assert.equal(JSON.parse(whoami).status.userInfo.username, "system:serviceaccount:default:ci");
      const list = await ok(sa("auth", "can-i", "--list", "-n", "default"), "can-i --list");
      assert.match(list, /^pods\s+\[\]\s+\[\]\s+\[get list watch\]/m);
    } finally {
      await dev.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
