import assert from "node:assert/strict";
import { createCommand } from "./create.ts";
import { UsageError } from "./flags.ts";
import { initCommand } from "./init.ts";

const KIND = ["--group", "demo.example.com", "--version", "v1alpha1", "--kind", "Widget"];

Deno.test("kubeop init: bad input is a usage error naming what is wrong, and writes nothing", async () => {
  const parent = await Deno.makeTempDir({ prefix: "kubeop-init-bad-" });
  try {
    const cases: [string[], RegExp][] = [
      [[...KIND], /project directory is missing/],
      [[`${parent}/p`, "--kind", "Widget"], /flag --group, --version is required/],
      [[`${parent}/p`, ...KIND.slice(0, 4), "--kind", "widget"], /--kind must be UpperCamelCase/],
      [[`${parent}/p`, "--group", "nodot", ...KIND.slice(2)], /--group must be a DNS subdomain/],
      [[`${parent}/p`, "--version", "1", ...KIND.slice(0, 2), ...KIND.slice(4)], /--version must look like v1/],
      [[`${parent}/Bad_Name`, ...KIND], /lower-case DNS label/],
      [[`${parent}/p`, ...KIND, "--kubeop", parent], /is not a kubeop checkout/],
      [[`${parent}/p`, ...KIND, "--bogus"], /unknown flag --bogus/],
    ];
    for (const [args, message] of cases) {
      await assert.rejects(initCommand(args), (err: Error) => err instanceof UsageError && message.test(err.message));
    }
    assert.deepEqual([...Deno.readDirSync(parent)].map((e) => e.name), [], "nothing written");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("kubeop create: outside a project, an unknown kind, --convert of a one-version kind: usage errors", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kubeop-create-bad-" });
  try {
    await assert.rejects(createCommand(["api", ...KIND], dir), /no \.kubeop-scaffold\.json/);
    await assert.rejects(createCommand(["nonsense"], dir), /expected "api" or "webhook"/);
    await Deno.writeTextFile(
      `${dir}/.kubeop-scaffold.json`,
      JSON.stringify({ name: "p", kubeop: ".", kinds: [{ ...kindOf(), clusterScoped: false }], files: {} }),
    );
    await assert.rejects(createCommand(["webhook", "--kind", "Gizmo", "--validate"], dir), /no kind "Gizmo"/);
    await assert.rejects(createCommand(["webhook", "--kind", "Widget"], dir), /--validate, --default, --convert/);
    await assert.rejects(
      createCommand(["webhook", "--kind", "Widget", "--convert"], dir),
      (err: Error) =>
        err instanceof UsageError && /--convert: Widget is served at one version \(v1alpha1\)/.test(err.message),
    );
    await assert.rejects(
      createCommand(["api", ...KIND.slice(0, 2), "--version", "v1", "--kind", "Widget", "--cluster-scoped"], dir),
      /--cluster-scoped: Widget is not cluster-scoped/,
    );
    await assert.rejects(
      createCommand(["api", "--group", "other.example.com", "--version", "v1", "--kind", "Widget"], dir),
      /already has Widget \(demo\.example\.com\/v1alpha1\)/,
    );
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [".kubeop-scaffold.json"], "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function kindOf() {
  return { group: "demo.example.com", version: "v1alpha1", kind: "Widget" };
}
