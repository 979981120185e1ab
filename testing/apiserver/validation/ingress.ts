/**
 * Ingress validation as kube-apiserver v1.37 applies it (pkg/apis/networking/validation ValidateIngressSpec): rules
 * or a default backend; each rule's host a DNS name (`*.` wildcards allowed, no IP address) and its HTTP paths typed
 * (Exact and Prefix paths absolute, without `//`, `/./`, `/../`, `%2f` or a `/.`/`/..` end); each backend a resource
 * or a Service with a DNS-1123 label name and a port name or number; TLS hosts DNS names and secret names DNS
 * subdomains; the class name a DNS subdomain.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  PORT_NUMBER_RANGE,
  portNameErrors,
  regexError,
} from "../../../runtime/apimachinery/names.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "./field_errors.ts";
import { isIP } from "node:net";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const WILDCARD_FMT = "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const WILDCARD = new RegExp(`^${WILDCARD_FMT}$`);
const WILDCARD_MESSAGE = regexError(
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower " +
    "case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
  WILDCARD_FMT,
  "*.example.com",
);
const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];
const INVALID_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES = ["/..", "/."];

/** validation.IsWildcardDNS1123Subdomain. */
function wildcardErrors(host: string): string[] {
  const errs: string[] = [];
  if (host.length > 253) errs.push("must be no more than 253 characters");
  if (!WILDCARD.test(host)) errs.push(WILDCARD_MESSAGE);
  return errs;
}

/** A host (a rule's or a TLS entry's): a wildcard or a plain DNS subdomain. */
function hostErrors(host: string): string[] {
  return host.includes("*") ? wildcardErrors(host) : dns1123SubdomainErrors(host);
}

function backendCauses(backend: Json, at: string): StatusCause[] {
  const hasResource = backend?.resource != null;
  const service = backend?.service;
  if (hasResource && service != null) return [fieldInvalid(at, "", "cannot set both resource and service backends")];
  if (hasResource) return [];
  if (service == null) return [fieldInvalid(at, "", "resource or service backend is required")];
  const causes: StatusCause[] = [];
  const name = typeof service.name === "string" ? service.name : "";
  if (!name) causes.push(fieldRequired(`${at}.service.name`));
  for (const msg of name ? dns1123LabelErrors(name) : []) causes.push(fieldInvalid(`${at}.service.name`, name, msg));
  const portName = typeof service.port?.name === "string" ? service.port.name : "";
  const portNumber = typeof service.port?.number === "number" ? service.port.number : 0;
  if (portName && portNumber) causes.push(fieldInvalid(at, "", "cannot set both port name & port number"));
  else if (portName) {
    for (const msg of portNameErrors(portName)) causes.push(fieldInvalid(`${at}.service.port.name`, portName, msg));
  } else if (portNumber) {
    if (!(Number.isInteger(portNumber) && portNumber >= 1 && portNumber <= 65535)) {
      causes.push(fieldInvalid(`${at}.service.port.number`, portNumber, PORT_NUMBER_RANGE));
    }
  } else causes.push(fieldRequired(at, "port name or number is required"));
  return causes;
}

function pathCauses(path: Json, at: string): StatusCause[] {
  if (path?.pathType == null) return [fieldRequired(`${at}.pathType`, "pathType must be specified")];
  const causes: StatusCause[] = [];
  const text = typeof path.path === "string" ? path.path : "";
  if (path.pathType === "Exact" || path.pathType === "Prefix") {
    if (!text.startsWith("/")) causes.push(fieldInvalid(`${at}.path`, text, "must be an absolute path"));
    for (const seq of text ? INVALID_SEQUENCES : []) {
      if (text.includes(seq)) causes.push(fieldInvalid(`${at}.path`, text, `must not contain '${seq}'`));
    }
    for (const suffix of text ? INVALID_SUFFIXES : []) {
      if (text.endsWith(suffix)) causes.push(fieldInvalid(`${at}.path`, text, `cannot end with '${suffix}'`));
    }
  } else if (path.pathType === "ImplementationSpecific") {
    if (text && !text.startsWith("/")) causes.push(fieldInvalid(`${at}.path`, text, "must be an absolute path"));
  } else {
    causes.push(fieldNotSupported(`${at}.pathType`, path.pathType, PATH_TYPES));
  }
  return [...causes, ...backendCauses(path.backend, `${at}.backend`)];
}

/**
 * Causes for an Ingress's spec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateIngress } from "./ingress.ts";
 * const ingress = { metadata: {}, spec: { rules: [{ host: "10.0.0.1" }] } };
 * assert.equal(validateIngress(ingress)[0].message, 'Invalid value: "10.0.0.1": must be a DNS name, not an IP address');
 * ```
 */
export function validateIngress(ingress: KubeObject): StatusCause[] {
  const spec: Json = ingress.spec && typeof ingress.spec === "object" ? ingress.spec : {};
  const causes: StatusCause[] = [];
  const rules: Json[] = Array.isArray(spec.rules) ? spec.rules : [];
  if (rules.length === 0 && spec.defaultBackend == null) {
    causes.push(fieldInvalid("spec", spec.rules ?? null, "either `defaultBackend` or `rules` must be specified"));
  }
  if (spec.defaultBackend != null) causes.push(...backendCauses(spec.defaultBackend, "spec.defaultBackend"));
  rules.forEach((rule, i) => {
    const at = `spec.rules[${i}]`;
    const host = typeof rule?.host === "string" ? rule.host : "";
    if (host) {
      if (isIP(host)) causes.push(fieldInvalid(`${at}.host`, host, "must be a DNS name, not an IP address"));
      for (const msg of hostErrors(host)) causes.push(fieldInvalid(`${at}.host`, host, msg));
    }
    if (rule?.http != null) {
      const paths: Json[] = Array.isArray(rule.http.paths) ? rule.http.paths : [];
      if (paths.length === 0) causes.push(fieldRequired(`${at}.http.paths`));
      paths.forEach((p, j) => causes.push(...pathCauses(p, `${at}.http.paths[${j}]`)));
    }
  });
  (Array.isArray(spec.tls) ? spec.tls : []).forEach((tls: Json, i: number) => {
    (Array.isArray(tls?.hosts) ? tls.hosts : []).forEach((host: unknown, j: number) => {
      for (const msg of hostErrors(String(host))) {
        causes.push(fieldInvalid(`spec.tls[${i}].hosts[${j}]`, String(host), msg));
      }
    });
    const secret = typeof tls?.secretName === "string" ? tls.secretName : "";
    for (const msg of secret ? dns1123SubdomainErrors(secret) : []) {
      causes.push(fieldInvalid(`spec.tls[${i}].secretName`, secret, msg));
    }
  });
  if (typeof spec.ingressClassName === "string") {
    for (const msg of dns1123SubdomainErrors(spec.ingressClassName)) {
      causes.push(fieldInvalid("spec.ingressClassName", spec.ingressClassName, msg));
    }
  }
  return causes;
}
