/**
 * `kubeop crds`: prints every CRD as multi-document YAML (`kubeop crds | kubectl apply -f -`). With `--out-dir DIR`
 * writes one file per CRD, named `<plural>.<group>.yaml` (how deploy/crds/ is produced: `deno task crds`).
 * @module
 */

import YAML from "yaml";
import { crdManifests } from "../controllers/crds.ts";
import type { KubeObject } from "../runtime/types.ts";
import { parseFlags, stringFlag } from "./flags.ts";

/** One CRD as a YAML document (no `---`). */
export function crdYaml(crd: KubeObject): string {
  return YAML.stringify(crd, { lineWidth: 0 });
}

/** All CRDs as one multi-document YAML stream. */
export function allCrdsYaml(): string {
  return crdManifests().map((crd) => `---\n${crdYaml(crd)}`).join("");
}

/** `kubeop crds [--out-dir DIR]`. */
export async function crdsCommand(args: string[]): Promise<number> {
  const flags = parseFlags("crds", args, { "out-dir": { type: "string" } });
  const outDir = stringFlag(flags, "out-dir");
  if (!outDir) {
    await Deno.stdout.write(new TextEncoder().encode(allCrdsYaml()));
    return 0;
  }
  await Deno.mkdir(outDir, { recursive: true });
  for (const crd of crdManifests()) {
    await Deno.writeTextFile(`${outDir}/${crd.metadata.name}.yaml`, crdYaml(crd));
  }
  return 0;
}
