/**
 * Which files each scaffold command renders: {@link projectFiles} (`kubeop init`: everything), {@link kindFiles} (one
 * kind: `kubeop create api`), {@link versionFiles} (another version of a kind: `kubeop create api` again),
 * {@link webhookFiles} (`kubeop create webhook`); each with controllers/mod.ts, which lists every kind. Also how deno.json imports kubeop ({@link kubeopImports}).
 * @module
 */

import KUBEOP_DENO_JSON from "../../deno.json" with { type: "json" };
import { controllerTs, samplePath, sampleYaml, schemaTs } from "./kind_templates.ts";
import { manifestsTestTs, manifestsTs } from "./manifest_templates.ts";
import { type KindNames, kindNames, type KindSpec } from "./names.ts";
import { controllersModTs, denoJson, type ImportsSpec, mainTs, operatorTs } from "./project_templates.ts";
import { ciRun, containerfile, deployFiles, gitignore, readme } from "./deploy_templates.ts";
import { controllerTestTs, webhookTestTs } from "./test_templates.ts";
import {
  conversionPath,
  conversionTestTs,
  conversionTs,
  versionSchemaPath,
  versionSchemaTs,
} from "./version_templates.ts";
import { webhookTs } from "./webhook_templates.ts";
import type { ScaffoldState } from "./writer.ts";

/** kubeop's npm dependencies the runtime and generated code import (kubeop's deno.json pins; test-only ones left out). */
export function npmImports(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, target] of Object.entries(KUBEOP_DENO_JSON.imports)) {
    if (name !== "fast-check") out[name] = target;
  }
  return out;
}

/**
 * How deno.json maps `@kubeop/kubeop` and `@kubeop/kubeop/testing`: `kubeop` is a package specifier (`jsr:…`,
 * `npm:…`, `https:…`) or a path to a kubeop checkout relative to the project.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { kubeopImports } from "./render.ts";
 * assert.equal(kubeopImports("../kubeop").runtime, "../kubeop/runtime/mod.ts");
 * assert.equal(kubeopImports("jsr:@kubeop/kubeop@^0.1.0").testing, "jsr:@kubeop/kubeop@^0.1.0/testing");
 * ```
 */
export function kubeopImports(kubeop: string): ImportsSpec {
  if (/^[a-z]+:/.test(kubeop)) return { runtime: kubeop, testing: `${kubeop}/testing`, npm: npmImports() };
  const base = kubeop.replace(/\/+$/, "");
  return { runtime: `${base}/runtime/mod.ts`, testing: `${base}/testing/mod.ts`, npm: npmImports() };
}

function namesOf(state: ScaffoldState): KindNames[] {
  return state.kinds.map((k) => kindNames("create", k));
}

/** One kind's files. */
export function kindFiles(spec: KindSpec): Record<string, string> {
  const k = kindNames("create", spec);
  const dir = `controllers/${k.lower}`;
  return {
    [`${dir}/schema.ts`]: schemaTs(k),
    [`${dir}/controller.ts`]: controllerTs(k),
    [`${dir}/controller_test.ts`]: controllerTestTs(k),
    [samplePath(k)]: sampleYaml(k),
  };
}

/** One kind's served-only versions' schemas (`kubeop create api` on an existing kind). */
export function versionFiles(spec: KindSpec): Record<string, string> {
  const k = kindNames("create", spec);
  return Object.fromEntries(k.spokes.map((s) => [versionSchemaPath(k, s), versionSchemaTs(k, s)]));
}

/** One kind's webhook files: admission (webhook.ts) and conversion (conversion.ts), as `spec.webhooks` asks. */
export function webhookFiles(spec: KindSpec): Record<string, string> {
  const k = kindNames("create", spec);
  const admission = k.webhooks?.validate || k.webhooks?.default
    ? {
      [`controllers/${k.lower}/webhook.ts`]: webhookTs(k),
      [`controllers/${k.lower}/webhook_test.ts`]: webhookTestTs(k),
    }
    : {};
  const conversion = k.webhooks?.convert && k.spokes.length
    ? { [conversionPath(k)]: conversionTs(k), [`controllers/${k.lower}/conversion_test.ts`]: conversionTestTs(k) }
    : {};
  return { ...admission, ...conversion };
}

/** manifests.ts (a conversion webhook needs a version that sets the CRDs' spec.conversion). */
export function manifestFiles(): Record<string, string> {
  return { "manifests.ts": manifestsTs() };
}

/** controllers/mod.ts for the state's kinds. */
export function registryFiles(state: ScaffoldState): Record<string, string> {
  return { "controllers/mod.ts": controllersModTs(namesOf(state)) };
}

/** Everything `kubeop init` writes. */
export function projectFiles(state: ScaffoldState): Record<string, string> {
  const first = namesOf(state)[0];
  return {
    "README.md": readme(state.name, first.kind),
    "deno.json": denoJson(kubeopImports(state.kubeop)),
    "main.ts": mainTs(state.name),
    "operator.ts": operatorTs(state.name),
    ...manifestFiles(),
    "manifests_test.ts": manifestsTestTs(),
    "Containerfile": containerfile(state.name, Deno.version.deno),
    ".ci/run": ciRun(),
    ".gitignore": gitignore(),
    ...deployFiles(state.name),
    ...state.kinds.reduce((all, k) => ({ ...all, ...kindFiles(k), ...versionFiles(k), ...webhookFiles(k) }), {}),
    ...registryFiles(state),
  };
}
