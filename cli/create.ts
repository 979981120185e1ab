/**
 * `kubeop create api --group G --version V --kind K [--cluster-scoped]` adds a kind to the project in the current
 * directory, or another version of a kind it has (served next to the first, which stays the storage version);
 * `kubeop create webhook --kind K [--validate] [--default] [--convert]` adds that kind's admission webhooks and its
 * conversion webhook (only for a kind served at several versions). Both rewrite controllers/mod.ts (unless the user
 * changed it), regenerate the manifests, and never overwrite a file the user changed (they say which they skipped).
 * @module
 */

import { parseFlags, stringFlag, UsageError } from "./flags.ts";
import { generateManifests } from "./scaffold/generate.ts";
import { kindNames, type KindSpec } from "./scaffold/names.ts";
import { kindFiles, manifestFiles, registryFiles, versionFiles, webhookFiles } from "./scaffold/render.ts";
import { describeReport, readState, STATE_FILE, writeScaffold } from "./scaffold/writer.ts";

const USAGE = `Usage: kubeop create api --group G --version V --kind K [--cluster-scoped]
       kubeop create webhook --kind K [--validate] [--default] [--convert]

Run inside a project made by kubeop init: adds a kind (schema, controller, tests, sample), another version of a kind
(schema_<version>.ts; the first version stays the storage version), its admission webhooks (webhook.ts,
webhook_test.ts) or its conversion webhook (conversion.ts, conversion_test.ts; --convert needs a second version),
and regenerates crds/ and deploy/.`;

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
  convert: { type: "boolean" },
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
  const notes: string[] = [];
  let files: Record<string, string>;
  if (what === "api") {
    const missing = ["group", "version", "kind"].filter((f) => !stringFlag(values, f));
    if (missing.length) {
      throw new UsageError(`kubeop create api: flag ${missing.map((f) => `--${f}`).join(", ")} is required`);
    }
    const kind: KindSpec = {
      group: stringFlag(values, "group")!,
      version: stringFlag(values, "version")!,
      kind: stringFlag(values, "kind")!,
      clusterScoped: values["cluster-scoped"] === true,
    };
    const names = kindNames("create api", kind);
    const same = state.kinds.find((k) => k.kind.toLowerCase() === names.lower);
    if (!same) {
      state.kinds.push(kind);
      files = { ...kindFiles(kind), ...registryFiles(state) };
    } else {
      files = { ...addVersion(same, kind, notes), ...registryFiles(state) };
    }
  } else {
    const kindName = stringFlag(values, "kind");
    if (!kindName) throw new UsageError(`kubeop create webhook: flag --kind is required`);
    if (!values.validate && !values.default && !values.convert) {
      throw new UsageError(`kubeop create webhook: give --validate, --default, --convert or several`);
    }
    const kind = state.kinds.find((k) => k.kind === kindName);
    if (!kind) {
      const known = state.kinds.map((k) => k.kind).join(", ");
      throw new UsageError(
        `kubeop create webhook: flag --kind: no kind "${kindName}" in this project (it has ${known})`,
      );
    }
    if (values.convert && !kind.servedVersions?.length) {
      throw new UsageError(
        `kubeop create webhook: flag --convert: ${kind.kind} is served at one version (${kind.version}), so there ` +
          `is nothing to convert; add a version first: kubeop create api --group ${kind.group} --version <v> ` +
          `--kind ${kind.kind}`,
      );
    }
    kind.webhooks = {
      validate: values.validate === true || kind.webhooks?.validate === true,
      default: values.default === true || kind.webhooks?.default === true,
      convert: values.convert === true || kind.webhooks?.convert === true,
    };
    files = { ...webhookFiles(kind), ...registryFiles(state), ...(kind.webhooks.convert ? manifestFiles() : {}) };
    if (values.convert) {
      notes.push(
        `${kind.kind}: ${kind.version} (the storage version) is the conversion hub; ` +
          `${kind.servedVersions!.join(", ")} convert${
            kind.servedVersions!.length === 1 ? "s" : ""
          } to and from it (controllers/${kind.kind.toLowerCase()}/conversion.ts)`,
      );
    }
  }
  const report = await writeScaffold(root, files, state);
  console.log(`kubeop create ${what}:`);
  for (const line of describeReport(report)) console.log(line);
  if (report.skipped.includes("controllers/mod.ts")) {
    console.log("  controllers/mod.ts was changed by you: add the new kind, version or webhook to it by hand");
  }
  for (const note of notes) console.log(`  ${note}`);
  console.log(`  ${await generateManifests(root)}`);
  return 0;
}

/**
 * `kubeop create api` naming a kind the project has: the same version again re-renders its files; another version is
 * served next to the existing ones (the first stays the storage version). Returns the files to write.
 */
function addVersion(same: KindSpec, asked: KindSpec, notes: string[]): Record<string, string> {
  if (same.group !== asked.group || same.kind !== asked.kind) {
    throw new UsageError(`kubeop create api: the project already has ${same.kind} (${same.group}/${same.version})`);
  }
  if (same.clusterScoped !== asked.clusterScoped) {
    throw new UsageError(
      `kubeop create api: flag --cluster-scoped: ${same.kind} is ${same.clusterScoped ? "" : "not "}cluster-scoped ` +
        `(every version of a kind has the same scope)`,
    );
  }
  if (asked.version === same.version) return kindFiles(same);
  const served = same.servedVersions ?? [];
  if (!served.includes(asked.version)) same.servedVersions = [...served, asked.version];
  const versions = [same.version, ...same.servedVersions!];
  notes.push(
    `${same.kind} is served at ${versions.join(", ")}; ${same.version} stays the storage version` +
      (same.webhooks?.convert
        ? ` (conversion.ts converts ${asked.version} unless you changed it)`
        : `. Convert between them: kubeop create webhook --kind ${same.kind} --convert`),
  );
  return { ...versionFiles(same), ...webhookFiles(same) };
}
