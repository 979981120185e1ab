/**
 * At's second version, `cnat.ishankhare.dev/v1beta1`, and its conversion to and from v1alpha1 (hub and spoke, served
 * by the runtime's `/convert` webhook). The wart it fixes is the tutorial's `spec.command`: one string split on
 * whitespace, so no argument can contain a space. v1beta1 says what runs as argv, `spec.command: string[]`.
 *
 * - **Hub: v1beta1.** v1alpha1 is the spoke: `toHub` splits its string on whitespace (exactly what the controller
 *   runs today); `fromHub` joins the argv with single spaces.
 * - **Lossless both ways.** An argv that a joined string cannot say (an argument that is empty or holds whitespace)
 *   is kept, as JSON, in the annotation {@link ARGV_ANNOTATION} of the v1alpha1 form, and `toHub` takes it back
 *   while the string still equals its join (a v1alpha1 client that changed the command wins: the annotation is
 *   then stale and dropped). Only annotations change — metadata otherwise stays byte for byte, as kube-apiserver
 *   requires of a conversion webhook.
 * - **v1alpha1 manifests keep applying unchanged**, and clients of v1alpha1 read what they wrote.
 * - **Storage and migration:** where the webhook runs (deploy/'s patch, `kubeop dev`), the CRD serves both versions
 *   (./schema.ts `atCrds` plus `atWebhookVersions`); elsewhere v1alpha1 alone. v1alpha1 stays the storage
 *   version, so existing objects are untouched, the operator can be rolled back, and v1beta1 can be taken away
 *   where no webhook runs (no object is stored in it). Next, once every replica serves `/convert`, make v1beta1 the
 *   storage version, rewrite every At once (a no-op update through v1beta1, or the StorageVersionMigration API),
 *   and then drop v1alpha1 from the CRD's `status.storedVersions`; from then on v1beta1 must always be served, so
 *   the webhook becomes required wherever the CRDs are installed. The controller reads v1alpha1 until that switch,
 *   then v1beta1 (the conversion makes both views equal).
 * @module
 */

import type { ConvertibleObject, Spoke } from "../../runtime/webhook/conversion.ts";
import { Webhook } from "../../runtime/webhook/webhook.ts";
import { type At, AtType } from "./schema.ts";

/** The v1beta1 apiVersion (the hub). */
export const AT_V1BETA1 = "cnat.ishankhare.dev/v1beta1";
/** The v1alpha1 apiVersion (the spoke). */
export const AT_V1ALPHA1 = "cnat.ishankhare.dev/v1alpha1";
/** Where the v1alpha1 form keeps an argv its joined string cannot say. */
export const ARGV_ANNOTATION = "cnat.ishankhare.dev/v1beta1-command";

/** An At in v1beta1: `spec.command` is the argv. */
export interface AtV1beta1 extends ConvertibleObject {
  metadata: At["metadata"];
  spec: Omit<At["spec"], "command"> & { command: string[] };
  status?: At["status"];
}

type AtV1alpha1 = At & ConvertibleObject;

/** The argv v1alpha1's controller runs for `command` (split on whitespace). */
export function splitCommand(command: string): string[] {
  return command.split(/\s+/).filter(Boolean);
}

function representable(argv: readonly string[]): boolean {
  return argv.every((arg) => arg !== "" && !/\s/.test(arg));
}

function withoutArgvAnnotation(meta: At["metadata"]): At["metadata"] {
  const annotations = meta.annotations;
  if (!annotations || !(ARGV_ANNOTATION in annotations)) return meta;
  const { [ARGV_ANNOTATION]: _dropped, ...rest } = annotations;
  const { annotations: _all, ...others } = meta;
  return Object.keys(rest).length ? { ...others, annotations: rest } : others;
}

function savedArgv(obj: AtV1alpha1): string[] | undefined {
  const raw = obj.metadata.annotations?.[ARGV_ANNOTATION];
  if (raw === undefined) return undefined;
  try {
    const argv = JSON.parse(raw);
    if (Array.isArray(argv) && argv.every((a) => typeof a === "string") && argv.join(" ") === obj.spec.command) {
      return argv;
    }
  } catch { /* a damaged annotation is ignored: the string is what the user sees and edits */ }
  return undefined;
}

/**
 * v1alpha1 ↔ v1beta1, for the runtime's conversion webhook.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { convertObject } from "../../runtime/webhook/conversion.ts";
 * import { AT_CONVERSION, AT_V1ALPHA1, AT_V1BETA1 } from "./conversion.ts";
 * const v1alpha1 = {
 *   apiVersion: AT_V1ALPHA1, kind: "At", metadata: { name: "a" },
 *   spec: { schedule: "2020-11-16T10:12:00Z", command: "echo hello  world" },
 * };
 * const v1beta1 = convertObject(v1alpha1, AT_V1BETA1, { hub: AT_V1BETA1, spokes: [AT_CONVERSION] });
 * assert.deepEqual((v1beta1.spec as { command: string[] }).command, ["echo", "hello", "world"]);
 * ```
 */
export const AT_CONVERSION: Spoke<AtV1beta1, AtV1alpha1> = {
  apiVersion: AT_V1ALPHA1,
  toHub(obj) {
    const argv = savedArgv(obj) ?? splitCommand(obj.spec.command);
    return { ...obj, metadata: withoutArgvAnnotation(obj.metadata), spec: { ...obj.spec, command: argv } };
  },
  fromHub(hub) {
    const argv = hub.spec.command;
    const meta = withoutArgvAnnotation(hub.metadata);
    const metadata = representable(argv)
      ? meta
      : { ...meta, annotations: { ...meta.annotations, [ARGV_ANNOTATION]: JSON.stringify(argv) } };
    return { ...hub, metadata, spec: { ...hub.spec, command: argv.join(" ") } } as AtV1alpha1;
  },
};

/**
 * At's conversion webhook, registered next to its controller (controllers/mod.ts `WEBHOOKS.at`): the At CRD serves
 * v1beta1 with `conversion.strategy: Webhook` pointing at kubeop's `/convert`.
 *
 * @example
 * ```ts
 * import { atConversionWebhook } from "./conversion.ts";
 * console.assert(atConversionWebhook().conversion?.hub === "cnat.ishankhare.dev/v1beta1");
 * ```
 */
export function atConversionWebhook(): Webhook<At> {
  return new Webhook<At>(AtType).convert<AtV1beta1>(AT_V1BETA1, [AT_CONVERSION]);
}
