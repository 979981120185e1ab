/**
 * The `Webhook` builder (controller-runtime's `ctrl.NewWebhookManagedBy(mgr).For(&T{})`): the admission and
 * conversion handlers of one kind, registered next to that kind's controller. `.validate(fn)` serves
 * `/validate-<group-with-dashes>-<version>-<kind>`, `.default(fn)` serves `/mutate-…`, and `.convert(hub, spokes)`
 * joins the one `/convert` path every kind shares; paths are those controller-runtime generates, so manifests
 * written for a Go operator fit. {@link webhookRoutes} turns registered webhooks into the server's routes, and
 * ./manifests.ts into WebhookConfigurations.
 * @module
 */
import { apiVersionOf, type ResourceType } from "../types.ts";
import { answerMutation, answerValidation, type MutatingHandler, type ValidatingHandler } from "./admission.ts";
import { answerConversion, type ConvertibleObject, type HubAndSpokes, type Spoke } from "./conversion.ts";
import type { AdmissionOperation } from "./review_types.ts";
import type { WebhookRoute } from "./server.ts";

/** The path every conversion webhook is served at (controller-runtime's). */
export const CONVERSION_PATH = "/convert";

/** How a webhook is registered with kube-apiserver (written into the generated WebhookConfiguration). */
export interface AdmissionRegistration {
  /** Operations the webhook is called for (default CREATE and UPDATE, kubebuilder's default verbs). */
  operations?: AdmissionOperation[];
  /** What kube-apiserver does when the webhook cannot be reached or answers badly (default Fail). */
  failurePolicy?: "Fail" | "Ignore";
  /** None (default) or NoneOnDryRun; a handler with side effects must skip them when `input.dryRun`. */
  sideEffects?: "None" | "NoneOnDryRun";
  /** kube-apiserver's deadline for one call, 1–30 s (default 10). */
  timeoutSeconds?: number;
}

/** One registered admission handler, as the manifest generator sees it. */
export interface AdmissionWebhookInfo extends Required<AdmissionRegistration> {
  /** validating or mutating. */
  type: "validating" | "mutating";
  /** The served path. */
  path: string;
  /** The resource it guards. */
  resource: ResourceType;
  /** The webhook's name in the configuration, e.g. `vnetperf.kubeop.dev` (fully qualified, as kube requires). */
  name: string;
}

function pathFor(prefix: "validate" | "mutate", rt: ResourceType): string {
  return `/${prefix}-${rt.group.replaceAll(".", "-")}-${rt.version}-${rt.kind.toLowerCase()}`;
}

/** controller-runtime's generateValidatePath: `/validate-<group with dashes>-<version>-<kind lower-case>`. */
export function validatePath(rt: ResourceType): string {
  return pathFor("validate", rt);
}

/** controller-runtime's generateMutatePath: `/mutate-<group with dashes>-<version>-<kind lower-case>`. */
export function mutatePath(rt: ResourceType): string {
  return pathFor("mutate", rt);
}

/** What the server and the manifest generator need of a {@link Webhook}, whatever its object type. */
export interface RegisteredWebhook {
  /** The kind's resource. */
  readonly resource: ResourceType;
  /** Its conversion, if any. */
  readonly conversion: HubAndSpokes | undefined;
  /** Its admission handlers. */
  admission(): AdmissionWebhookInfo[];
  /** Its admission routes. */
  admissionRoutes(): WebhookRoute[];
}

/**
 * The webhooks of one kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { denied } from "./admission.ts";
 * import { Webhook } from "./webhook.ts";
 * type Widget = { spec: { size?: number } };
 * const rt = { group: "example.com", version: "v1", plural: "widgets", kind: "Widget", namespaced: true };
 * const widgets = new Webhook<Widget>(rt)
 *   .validate(({ object }) => (object?.spec.size ?? 0) > 10 ? denied("spec.size: at most 10") : undefined)
 *   .default(({ object }) => {
 *     if (object && object.spec.size === undefined) object.spec.size = 1;
 *   });
 * assert.deepEqual(widgets.admission().map((w) => w.path), [
 *   "/validate-example-com-v1-widget",
 *   "/mutate-example-com-v1-widget",
 * ]);
 * ```
 */
export class Webhook<T = ConvertibleObject> implements RegisteredWebhook {
  /** The kind's resource (its version is the one the handlers see). */
  readonly resource: ResourceType;
  #validate: { fn: ValidatingHandler<T>; reg: AdmissionRegistration } | undefined;
  #default: { fn: MutatingHandler<T>; reg: AdmissionRegistration } | undefined;
  #conversion: HubAndSpokes | undefined;

  /** Webhooks for `resource`; add handlers with the methods below. */
  constructor(resource: ResourceType) {
    this.resource = resource;
  }

  /** Validates creates and updates (by default) of the kind; see {@link ValidatingHandler}. */
  validate(fn: ValidatingHandler<T>, registration: AdmissionRegistration = {}): this {
    this.#validate = { fn, reg: registration };
    return this;
  }

  /** Defaults (mutates) creates and updates (by default) of the kind; see {@link MutatingHandler}. */
  default(fn: MutatingHandler<T>, registration: AdmissionRegistration = {}): this {
    this.#default = { fn, reg: registration };
    return this;
  }

  /**
   * Converts between the kind's served versions through `hub` (an apiVersion, e.g. `example.com/v1`): each spoke
   * converts to and from the hub.
   */
  // deno-lint-ignore no-explicit-any
  convert<Hub extends ConvertibleObject>(hub: string, spokes: readonly Spoke<Hub, any>[]): this {
    const group = this.resource.group;
    for (const v of [hub, ...spokes.map((s) => s.apiVersion)]) {
      if (!v.startsWith(`${group}/`)) throw new Error(`webhook ${this.resource.kind}: ${v} is not in group ${group}`);
    }
    this.#conversion = { hub, spokes: spokes as unknown as Spoke[] };
    return this;
  }

  /** The hub and spokes given to {@link Webhook.convert}, if any. */
  get conversion(): HubAndSpokes | undefined {
    return this.#conversion;
  }

  /** The admission handlers registered, validating first. */
  admission(): AdmissionWebhookInfo[] {
    const rt = this.resource;
    const info = (type: "validating" | "mutating", reg: AdmissionRegistration): AdmissionWebhookInfo => ({
      type,
      path: type === "validating" ? validatePath(rt) : mutatePath(rt),
      resource: rt,
      name: `${type === "validating" ? "v" : "m"}${rt.kind.toLowerCase()}.${rt.group || "core.kubeop.io"}`,
      operations: reg.operations ?? ["CREATE", "UPDATE"],
      failurePolicy: reg.failurePolicy ?? "Fail",
      sideEffects: reg.sideEffects ?? "None",
      timeoutSeconds: reg.timeoutSeconds ?? 10,
    });
    const out: AdmissionWebhookInfo[] = [];
    if (this.#validate) out.push(info("validating", this.#validate.reg));
    if (this.#default) out.push(info("mutating", this.#default.reg));
    return out;
  }

  /** The server routes of this kind's admission handlers (conversion is served by {@link webhookRoutes}). */
  admissionRoutes(): WebhookRoute[] {
    const routes: WebhookRoute[] = [];
    const validate = this.#validate;
    const mutate = this.#default;
    if (validate) {
      routes.push({ path: validatePath(this.resource), serve: (b, s) => answerValidation(b, validate.fn, s) });
    }
    if (mutate) routes.push({ path: mutatePath(this.resource), serve: (b, s) => answerMutation(b, mutate.fn, s) });
    return routes;
  }
}

/**
 * Every route of `webhooks`: their admission paths and, when any converts, one `/convert` that picks the converter
 * by the objects' group and kind. Throws when two webhooks claim the same kind.
 */
export function webhookRoutes(webhooks: readonly RegisteredWebhook[]): WebhookRoute[] {
  const kinds = new Set<string>();
  const converters = new Map<string, HubAndSpokes>();
  const routes: WebhookRoute[] = [];
  for (const webhook of webhooks) {
    const { group, kind } = webhook.resource;
    const key = `${group}/${kind}`;
    if (kinds.has(key)) {
      throw new Error(`webhooks: ${kind}.${group} is registered twice (${apiVersionOf(webhook.resource)})`);
    }
    kinds.add(key);
    routes.push(...webhook.admissionRoutes());
    if (webhook.conversion) converters.set(key, webhook.conversion);
  }
  if (converters.size) {
    routes.push({
      path: CONVERSION_PATH,
      serve: (body) => Promise.resolve(answerConversion(body, (group, kind) => converters.get(`${group}/${kind}`))),
    });
  }
  return routes;
}
