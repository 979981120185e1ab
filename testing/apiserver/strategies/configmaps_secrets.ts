/**
 * ConfigMaps and Secrets, validated as kube-apiserver v1.37 does (pkg/apis/core/validation ValidateConfigMap,
 * ValidateSecret): keys are config keys (`[-._a-zA-Z0-9]+`, not `.`/`..`), a ConfigMap's key may not be in both data
 * and binaryData, the values total at most 1 MiB, typed Secrets carry their required keys (tls, dockercfg,
 * dockerconfigjson, basic-auth, ssh-auth) or annotation (service-account-token); `immutable: true` freezes data,
 * binaryData and the flag. A Secret's type defaults to Opaque and may not change, its write-only `stringData` folds
 * into base64 `data`; `data`/`binaryData` that are not base64 are a decode error (400).
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { regexError } from "../../../runtime/apimachinery/names.ts";
import { jsonEqual } from "../object_rules.ts";
import type { ResourceStrategy } from "../strategy.ts";
import { goJsonObjectError } from "../validation/go_json.ts";
import { byteLength } from "../validation/object_meta.ts";
import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong } from "../validation/field_errors.ts";

/** core.MaxSecretSize, also the ConfigMap limit. */
export const MAX_DATA_BYTES = 1024 * 1024;

const CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_KEY = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** validation.IsConfigMapKey: the problems with a ConfigMap or Secret key. */
export function configKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push("must be no more than 253 characters");
  if (!CONFIG_KEY.test(key)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_KEY_FMT,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  }
  if (key === ".") errs.push("must not be '.'");
  else if (key === "..") errs.push("must not be '..'");
  else if (key.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const BASE64_CHAR = /[A-Za-z0-9+/]/;

/** Go's base64.StdEncoding error for `text` (`illegal base64 data at input byte N`), or undefined when it decodes. */
export function base64Error(text: string): string | undefined {
  const clean = text.replace(/[\r\n]/g, "");
  const pad = clean.search(/=+$/);
  const body = pad < 0 ? clean : clean.slice(0, pad);
  for (let i = 0; i < body.length; i++) {
    if (!BASE64_CHAR.test(body[i])) return `illegal base64 data at input byte ${i}`;
  }
  if (clean.length % 4 !== 0 || clean.length - body.length > 2) {
    return `illegal base64 data at input byte ${Math.floor(body.length / 4) * 4}`;
  }
  return undefined;
}

/** Decoded size of a base64 value. */
function decodedBytes(text: string): number {
  const clean = String(text).replace(/[\r\n=]/g, "");
  return Math.floor((clean.length * 3) / 4);
}

function bytesFieldsError(body: KubeObject, field: "data" | "binaryData"): string | undefined {
  const bag = body[field];
  if (!bag || typeof bag !== "object") return undefined;
  for (const v of Object.values(bag)) {
    if (typeof v === "string") {
      const err = base64Error(v);
      if (err) return err;
    }
  }
  return undefined;
}

function validateKeys(bag: Record<string, unknown> | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of Object.keys(bag ?? {})) {
    for (const msg of configKeyErrors(key)) causes.push(fieldInvalid(`${field}[${key}]`, key, msg));
  }
  return causes;
}

function validateConfigMap(obj: KubeObject): StatusCause[] {
  const data: Record<string, string> = obj.data ?? {};
  const binary: Record<string, string> = obj.binaryData ?? {};
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    causes.push(...validateKeys({ [key]: value }, "data"));
    if (key in binary) causes.push(fieldInvalid(`data[${key}]`, key, "duplicate of key present in binaryData"));
    total += byteLength(String(value));
  }
  for (const [key, value] of Object.entries(binary)) {
    causes.push(...validateKeys({ [key]: value }, "binaryData"));
    total += decodedBytes(String(value));
  }
  if (total > MAX_DATA_BYTES) causes.push(fieldTooLong("[]", MAX_DATA_BYTES));
  return causes;
}

/** Causes for changing an object whose `immutable` is true (immutable, data, binaryData — kube's order). */
function immutableCauses(next: KubeObject, old: KubeObject, binaryData: boolean): StatusCause[] {
  if (old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  const frozen = "field is immutable when `immutable` is set";
  if (next.immutable !== true) causes.push(fieldForbidden("immutable", frozen));
  if (!jsonEqual(old.data, next.data)) causes.push(fieldForbidden("data", frozen));
  if (binaryData && !jsonEqual(old.binaryData, next.binaryData)) causes.push(fieldForbidden("binaryData", frozen));
  return causes;
}

/** A docker config key must hold a JSON object; kube reports Go's error and redacts the value. */
function jsonCauses(data: Record<string, string>, key: string): StatusCause[] {
  const err = goJsonObjectError(decodeBase64Text(String(data[key])));
  return err ? [fieldInvalid(`data[${key}]`, "<secret contents redacted>", err)] : [];
}

/** The bytes of a base64 value as a (Latin-1 preserving) string. */
function decodeBase64Text(value: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(value.replace(/[\r\n]/g, "")), (c) => c.charCodeAt(0)));
  } catch {
    return "";
  }
}

/** The keys a typed Secret must carry. */
function typedSecretCauses(secret: KubeObject): StatusCause[] {
  const data: Record<string, string> = secret.data ?? {};
  const has = (k: string) => k in data;
  const required = (k: string) => fieldRequired(`data[${k}]`);
  switch (secret.type) {
    case "kubernetes.io/service-account-token":
      return secret.metadata.annotations?.["kubernetes.io/service-account.name"]
        ? []
        : [fieldRequired("metadata.annotations[kubernetes.io/service-account.name]")];
    case "kubernetes.io/dockercfg":
      return has(".dockercfg") ? jsonCauses(data, ".dockercfg") : [required(".dockercfg")];
    case "kubernetes.io/dockerconfigjson":
      return has(".dockerconfigjson") ? jsonCauses(data, ".dockerconfigjson") : [required(".dockerconfigjson")];
    case "kubernetes.io/basic-auth":
      return has("username") || has("password") ? [] : [required("username"), required("password")];
    case "kubernetes.io/ssh-auth":
      return data["ssh-privatekey"] ? [] : [required("ssh-privatekey")];
    case "kubernetes.io/tls":
      return [...(has("tls.crt") ? [] : [required("tls.crt")]), ...(has("tls.key") ? [] : [required("tls.key")])];
    default:
      return [];
  }
}

function validateSecret(secret: KubeObject): StatusCause[] {
  const data: Record<string, string> = secret.data ?? {};
  const causes = validateKeys(data, "data");
  const total = Object.values(data).reduce((n, v) => n + decodedBytes(String(v)), 0);
  if (total > MAX_DATA_BYTES) causes.push(fieldTooLong("data", MAX_DATA_BYTES));
  return [...causes, ...typedSecretCauses(secret)];
}

/** The strategy of core v1 configmaps. */
export const CONFIGMAPS: ResourceStrategy = {
  decodeError: (body) => bytesFieldsError(body, "binaryData"),
  validate: validateConfigMap,
  validateUpdate: (next, old) => [...immutableCauses(next, old, true), ...validateConfigMap(next)],
};

/** The strategy of core v1 secrets. */
export const SECRETS: ResourceStrategy = {
  decodeError: (body) => bytesFieldsError(body, "data"),
  default(obj: KubeObject): void {
    obj.type ??= "Opaque";
    if (obj.stringData && typeof obj.stringData === "object") {
      obj.data = { ...obj.data };
      for (const [k, v] of Object.entries(obj.stringData)) obj.data[k] = base64(String(v));
      delete obj.stringData;
    }
  },
  validate: validateSecret,
  validateUpdate(next: KubeObject, old: KubeObject): StatusCause[] {
    const causes: StatusCause[] = [];
    if ((next.type ?? "Opaque") !== (old.type ?? "Opaque")) {
      causes.push(fieldInvalid("type", next.type, "field is immutable"));
    }
    return [...causes, ...immutableCauses(next, old, false), ...validateSecret(next)];
  },
};
