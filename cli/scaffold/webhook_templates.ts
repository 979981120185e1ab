/**
 * controllers/<kind>/webhook.ts, as `kubeop create webhook --kind K [--validate] [--default]` writes it: the
 * admission rules as plain functions (unit-tested without a server) and the {@link Webhook} that serves them.
 * @module
 */

import type { KindNames } from "./names.ts";

/** controllers/<kind>/webhook.ts. */
export function webhookTs(k: KindNames): string {
  const v = k.webhooks?.validate, d = k.webhooks?.default;
  const runtimeImports = ["Webhook", ...(v ? ["denied", "type ValidationVerdict"] : [])]
    .sort((a, b) => a.replace("type ", "").localeCompare(b.replace("type ", "")));
  const validate = v
    ? `
/** Refuses what the CRD schema cannot say: here, a message of only spaces. */
export function validate${k.kind}(${k.camel}: ${k.kind}): ValidationVerdict | undefined {
  if (${k.camel}.spec.message.trim() === "") return denied("spec.message: must not be blank", { code: 422, reason: "Invalid" });
  return undefined;
}
`
    : "";
  const mutate = d
    ? `
/** Fills in and normalizes fields before the object is stored: here, trims the message. */
export function default${k.kind}(${k.camel}: ${k.kind}): ${k.kind} {
  ${k.camel}.spec.message = ${k.camel}.spec.message.trim() || ${k.camel}.spec.message;
  return ${k.camel};
}
`
    : "";
  const chain = [
    v ? `.validate(({ object }) => object ? validate${k.kind}(object) : undefined)` : "",
    d ? `.default(({ object }) => object ? default${k.kind}(object) : undefined)` : "",
  ].filter(Boolean).join("\n    ");
  return `/**
 * ${k.kind}'s admission webhooks, served next to its controller (\`deno task manifests\` writes their
 * WebhookConfigurations into deploy/webhook/; \`deno task dev\` registers them with the dev server).
 * @module
 */
import { ${runtimeImports.join(", ")} } from "@kubeop/kubeop";
import { type ${k.kind}, ${k.kind}Type } from "./schema.ts";
${validate}${mutate}
/** The admission webhooks of ${k.kind} (controllers/mod.ts adds the conversion, if any). */
export function ${k.camel}Webhook(): Webhook<${k.kind}> {
  return new Webhook<${k.kind}>(${k.kind}Type)
    ${chain};
}
`;
}
