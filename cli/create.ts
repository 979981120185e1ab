/**
 * `kubeop create api --group G --version V --kind K [--cluster-scoped]` adds a kind to the project in the current
 * directory; `kubeop create webhook --kind K [--validate] [--default]` adds that kind's admission webhooks. Both
 * rewrite controllers/mod.ts (unless the user changed it), regenerate the manifests, and never overwrite a file the
 * user changed (they say which they skipped).
 * @module
 */

import { parseFlags, stringFlag, UsageError } from "./flags.ts";
import { generateManifests } from "./scaffold/generate.ts";
import { kindNames } from "./scaffold/names.ts";
import { kindFiles, registryFiles, webhookFiles } from "./scaffold/render.ts";
import { describeReport, readState, STATE_FILE, writeScaffold } from "./scaffold/writer.ts";

const USAGE = `Usage: kubeop create api --group G --version V --kind K [--cluster-scoped]
       kubeop create webhook --kind K [--validate] [--default]

Run inside a project made by kubeop init: adds a kind (schema, controller, tests, sample), or its admission
webhooks (webhook.ts, webhook_test.ts), and regenerates crds/ and deploy/.`;

const API_SPEC = {
  group: { type: "string" },
  version: { type: "string" },
  kind: { type: "string" },
  "cluster-scoped": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const WEBHOOK_SPEC = {
  kind: { type: "string" },
  validate: { type: "boolean" },
  default: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** `kubeop create api|webhook`, in `root` (default the current directory). */
export async function createCommand(args: string[], root = Deno.cwd()): Promise<number> {
  const [what, ...rest] = args;
  if (what === "--help" || what === "-h" || what === "help") {
    console.log(USAGE);
    return 0;
  }
  if (what !== "api" && what !== "webhook") {
    throw new UsageError(
      `kubeop create: expected "api" or "webhook", got ${what ? `"${what}"` : "nothing"}\n\n${USAGE}`,
    );
  }
  const values = parseFlags(`create ${what}`, rest, what === "api" ? API_SPEC : WEBHOOK_SPEC);
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const state = await readState(root);
  if (!state) {
    throw new UsageError(`kubeop create ${what}: no ${STATE_FILE} in ${root}: run it in a project made by kubeop init`);
  }
  let files: Record<string, string>;
  if (what === "api") {
    const missing = ["group", "version", "kind"].filter((f) => !stringFlag(values, f));
    if (missing.length) {
      throw new UsageError(`kubeop create api: flag ${missing.map((f) => `--${f}`).join(", ")} is required`);
    }
    const kind = {
      group: stringFlag(values, "group")!,
      version: stringFlag(values, "version")!,
      kind: stringFlag(values, "kind")!,
      clusterScoped: values["cluster-scoped"] === true,
    };
    const names = kindNames("create api", kind);
    const same = state.kinds.find((k) => k.kind.toLowerCase() === names.lower);
    if (same && (same.group !== kind.group || same.version !== kind.version || same.kind !== kind.kind)) {
      throw new UsageError(`kubeop create api: the project already has ${same.kind} (${same.group}/${same.version})`);
    }
    if (!same) state.kinds.push(kind);
    files = { ...kindFiles(same ?? kind), ...registryFiles(state) };
  } else {
    const kindName = stringFlag(values, "kind");
    if (!kindName) throw new UsageError(`kubeop create webhook: flag --kind is required`);
    if (!values.validate && !values.default) {
      throw new UsageError(`kubeop create webhook: give --validate, --default or both`);
    }
    const kind = state.kinds.find((k) => k.kind === kindName);
    if (!kind) {
      const known = state.kinds.map((k) => k.kind).join(", ");
      throw new UsageError(
        `kubeop create webhook: flag --kind: no kind "${kindName}" in this project (it has ${known})`,
      );
    }
    kind.webhooks = {
      validate: values.validate === true || kind.webhooks?.validate === true,
      default: values.default === true || kind.webhooks?.default === true,
    };
    files = { ...webhookFiles(kind), ...registryFiles(state) };
  }
  const report = await writeScaffold(root, files, state);
  console.log(`kubeop create ${what}:`);
  for (const line of describeReport(report)) console.log(line);
  if (report.skipped.includes("controllers/mod.ts")) {
    console.log("  controllers/mod.ts was changed by you: add the new kind or webhook to it by hand");
  }
  console.log(`  ${await generateManifests(root)}`);
  return 0;
}
