/**
 * `kubeop webhooks`: prints the Validating/MutatingWebhookConfigurations of the seed controllers' webhooks as
 * multi-document YAML (`kubeop webhooks | kubectl apply -f -`), pointing at the webhook Service. With
 * `--out-dir DIR` writes one file per configuration, `<name>.yaml` (how deploy/webhook/ is produced). The caBundle is
 * left empty: `kubeop run` injects its self-managed CA, or cert-manager's cainjector does.
 * @module
 */

import YAML from "yaml";
import { CONTROLLER_NAMES, type ControllerName, WEBHOOKS } from "../controllers/mod.ts";
import { webhookConfigurations } from "../runtime/webhook/manifests.ts";
import type { RegisteredWebhook } from "../runtime/webhook/webhook.ts";
import type { KubeObject } from "../runtime/types.ts";
import { listFlag, parseFlags, stringFlag, UsageError } from "./flags.ts";

/** The seed controllers' webhooks, for manifests only (their handlers are never called here). */
export function seedWebhooks(controllers: readonly ControllerName[] = CONTROLLER_NAMES): RegisteredWebhook[] {
  const unused = () => Promise.reject(new Error("kubeop webhooks: no cluster access while generating manifests"));
  return controllers.flatMap((name) => WEBHOOKS[name]({ client: { get: unused, list: unused } }));
}

/** The configurations for `controllers`, with the Service in `namespace`. */
export function webhookManifests(
  opts: { controllers?: readonly ControllerName[]; serviceName?: string; namespace?: string } = {},
): KubeObject[] {
  return webhookConfigurations(seedWebhooks(opts.controllers), { name: opts.serviceName, namespace: opts.namespace });
}

/** `kubeop webhooks [--out-dir DIR] [--controllers LIST] [--service-name NAME] [--service-namespace NS]`. */
export async function webhooksCommand(args: string[]): Promise<number> {
  const flags = parseFlags("webhooks", args, {
    "out-dir": { type: "string" },
    controllers: { type: "string" },
    "service-name": { type: "string" },
    "service-namespace": { type: "string" },
  });
  const controllers = flags.controllers === undefined ? [...CONTROLLER_NAMES] : listFlag(flags, "controllers");
  for (const name of controllers) {
    if (!(CONTROLLER_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`kubeop webhooks: flag --controllers: unknown controller "${name}"`);
    }
  }
  const manifests = webhookManifests({
    controllers: controllers as ControllerName[],
    serviceName: stringFlag(flags, "service-name"),
    namespace: stringFlag(flags, "service-namespace"),
  });
  const outDir = stringFlag(flags, "out-dir");
  if (!outDir) {
    const text = manifests.map((m) => `---\n${YAML.stringify(m, { lineWidth: 0 })}`).join("");
    await Deno.stdout.write(new TextEncoder().encode(text));
    return 0;
  }
  await Deno.mkdir(outDir, { recursive: true });
  for (const m of manifests) {
    await Deno.writeTextFile(`${outDir}/${m.metadata.name}.yaml`, YAML.stringify(m, { lineWidth: 0 }));
  }
  return 0;
}
