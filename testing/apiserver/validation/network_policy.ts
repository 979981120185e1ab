/**
 * NetworkPolicy validation as kube-apiserver v1.37 applies it (pkg/apis/networking/validation
 * ValidateNetworkPolicySpec): the pod selector; each ingress and egress rule's ports (protocol TCP, UDP or SCTP, a
 * port number or name, an endPort only after a numeric port and not below it) and peers (at least one of podSelector,
 * namespaceSelector and ipBlock, an ipBlock alone, its CIDR valid — strictly: no leading zeros, no IPv4-mapped IPv6
 * address, no bits beyond the prefix — and its exceptions strict subsets of it); at most two policy types, Ingress or
 * Egress.
 * @module
 */
import type { StatusCause } from "../../../runtime/client/errors.ts";
import { PORT_NUMBER_RANGE, portNameErrors } from "../../../runtime/apimachinery/names.ts";
import type { Unstructured as KubeObject } from "../unstructured.ts";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from "./field_errors.ts";
import { validateLabelSelector } from "./label_selector.ts";
import { isIP } from "node:net";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const PROTOCOLS = ["TCP", "UDP", "SCTP"];
const POLICY_TYPES = ["Ingress", "Egress"];
const CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** A CIDR as kube's sloppy parser reads it: the address as a number, its width and the prefix length. */
interface Cidr {
  bits: bigint;
  width: 32 | 128;
  prefix: number;
}

function ipBits(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  // An embedded IPv4 tail (`::ffff:10.0.0.0`) is two 16-bit groups.
  const groups = (s: string) =>
    (s ? s.split(":") : []).flatMap((g) => {
      if (!g.includes(".")) return [g];
      const v4 = ipBits(g);
      return [(v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16)];
    });
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** ParseCIDRSloppy: `address/prefix` with a prefix within the address's width (leading zeros in IPv4 allowed). */
function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const ip = text.slice(0, slash).replace(/(^|\.)0+(\d)/g, "$1$2");
  const prefixText = text.slice(slash + 1);
  const version = isIP(ip);
  if (!version || !/^\d+$/.test(prefixText)) return undefined;
  const width = version === 4 ? 32 : 128;
  const prefix = Number(prefixText);
  return prefix <= width ? { bits: ipBits(ip), width, prefix } : undefined;
}

/** The strict checks kube-apiserver v1.37 adds to a CIDR the sloppy parser read (StrictIPCIDRValidation). */
function strictCidrProblem(text: string, cidr: Cidr): string | undefined {
  const [ip, prefix] = text.split("/");
  if (/(^|\.)0\d/.test(ip) && !ip.includes(":") || /^0\d/.test(prefix)) {
    return "must not have leading 0s in IP or prefix length";
  }
  if (cidr.width === 128 && cidr.bits >> 32n === 0xffffn) return "must not have an IPv4-mapped IPv6 address";
  if ((cidr.bits & ((1n << BigInt(cidr.width - cidr.prefix)) - 1n)) !== 0n) {
    return "must not have bits set beyond the prefix length";
  }
  return undefined;
}

/** IsValidCIDRForLegacyField: the causes for `text` at `at`, and the CIDR when the sloppy parser reads it. */
function cidrCauses(text: string, at: string): [StatusCause[], Cidr | undefined] {
  const cidr = parseCidr(text);
  if (!cidr) return [[fieldInvalid(at, text, CIDR_MESSAGE)], undefined];
  const problem = strictCidrProblem(text, cidr);
  return [problem ? [fieldInvalid(at, text, problem)] : [], cidr];
}

/** Whether `inner` is a strict subset of `outer` (same family, longer prefix, within outer's network). */
function strictSubset(outer: Cidr, inner: Cidr): boolean {
  if (outer.width !== inner.width || outer.prefix >= inner.prefix) return false;
  const shift = BigInt(outer.width - outer.prefix);
  return (outer.bits >> shift) === (inner.bits >> shift);
}

function portCauses(port: Json, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (port?.protocol != null && !PROTOCOLS.includes(port.protocol)) {
    causes.push(fieldNotSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
  }
  const inRange = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;
  const { port: value, endPort } = port ?? {};
  if (typeof value === "number") {
    if (!inRange(value)) causes.push(fieldInvalid(`${at}.port`, value, PORT_NUMBER_RANGE));
    if (typeof endPort === "number") {
      if (endPort < value) {
        causes.push(fieldInvalid(`${at}.endPort`, endPort, "must be greater than or equal to `port`"));
      }
      if (!inRange(endPort)) causes.push(fieldInvalid(`${at}.endPort`, endPort, PORT_NUMBER_RANGE));
    }
  } else if (typeof value === "string") {
    if (endPort != null) {
      causes.push(fieldInvalid(`${at}.endPort`, endPort, "may not be specified when `port` is non-numeric"));
    }
    for (const msg of portNameErrors(value)) causes.push(fieldInvalid(`${at}.port`, value, msg));
  } else if (endPort != null) {
    causes.push(fieldInvalid(`${at}.endPort`, endPort, "may not be specified when `port` is not specified"));
  }
  return causes;
}

/** Causes for an ipBlock; a missing CIDR, checked declaratively, goes to `late`. */
function ipBlockCauses(block: Json, at: string, late: StatusCause[]): StatusCause[] {
  const cidrText = typeof block?.cidr === "string" ? block.cidr : "";
  if (!cidrText) {
    late.push(fieldRequired(`${at}.cidr`));
    return [];
  }
  const [causes, cidr] = cidrCauses(cidrText, `${at}.cidr`);
  if (!cidr) return causes;
  (Array.isArray(block.except) ? block.except : []).forEach((value: unknown, i: number) => {
    const exceptAt = `${at}.except[${i}]`;
    const [exceptCauses, except] = cidrCauses(String(value), exceptAt);
    causes.push(...exceptCauses);
    if (except && !strictSubset(cidr, except)) {
      causes.push(fieldInvalid(exceptAt, String(value), "must be a strict subset of `cidr`"));
    }
  });
  return causes;
}

function peerCauses(peer: Json, at: string, late: StatusCause[]): StatusCause[] {
  const causes: StatusCause[] = [];
  let peers = 0;
  if (peer?.podSelector != null) {
    peers++;
    causes.push(...validateLabelSelector(peer.podSelector, `${at}.podSelector`));
  }
  if (peer?.namespaceSelector != null) {
    peers++;
    causes.push(...validateLabelSelector(peer.namespaceSelector, `${at}.namespaceSelector`));
  }
  if (peer?.ipBlock != null) {
    peers++;
    causes.push(...ipBlockCauses(peer.ipBlock, `${at}.ipBlock`, late));
  }
  if (peers === 0) causes.push(fieldRequired(at, "must specify a peer"));
  else if (peers > 1 && peer.ipBlock != null) {
    causes.push(fieldForbidden(at, "may not specify both ipBlock and another peer"));
  }
  return causes;
}

/**
 * Causes for a NetworkPolicy's spec.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validateNetworkPolicy } from "./network_policy.ts";
 * const np = { metadata: {}, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/33" } }] }] } };
 * assert.equal(validateNetworkPolicy(np)[0].field, "spec.ingress[0].from[0].ipBlock.cidr");
 * ```
 */
export function validateNetworkPolicy(np: KubeObject): StatusCause[] {
  const spec: Json = np.spec && typeof np.spec === "object" ? np.spec : {};
  const causes = validateLabelSelector(spec.podSelector ?? {}, "spec.podSelector");
  // The declarative rules v1.37 enforces (an ipBlock's cidr required) report after the hand-written ones.
  const late: StatusCause[] = [];
  for (const [direction, peersKey] of [["ingress", "from"], ["egress", "to"]] as const) {
    (Array.isArray(spec[direction]) ? spec[direction] : []).forEach((rule: Json, i: number) => {
      const at = `spec.${direction}[${i}]`;
      (Array.isArray(rule?.ports) ? rule.ports : []).forEach((p: Json, j: number) =>
        causes.push(...portCauses(p, `${at}.ports[${j}]`))
      );
      (Array.isArray(rule?.[peersKey]) ? rule[peersKey] : []).forEach((peer: Json, j: number) =>
        causes.push(...peerCauses(peer, `${at}.${peersKey}[${j}]`, late))
      );
    });
  }
  const types: unknown[] = Array.isArray(spec.policyTypes) ? spec.policyTypes : [];
  if (types.length > POLICY_TYPES.length) {
    causes.push(fieldInvalid("spec.policyTypes", types, "may not specify more than two policyTypes"));
    return [...causes, ...late];
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(String(t))) causes.push(fieldNotSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return [...causes, ...late];
}
