/**
 * The Rulebook custom resource the CRD validation conformance cases (crd_cel.ts) create and write: its schema with CEL
 * `x-kubernetes-validations`, list types, nullable and defaulted fields, and helpers naming its paths and objects.
 * @module
 */
import { GROUP, type Json } from "./crd_helpers.ts";

/** The Rulebook CRD's spec schema: CEL rules on every kind of node, list-type set/map, nullable, defaults, status. */
export const RULES_SPEC = {
  type: "object",
  "x-kubernetes-validations": [
    { rule: "self.min <= self.max", message: "min must not exceed max" },
    {
      rule: "!has(self.mode) || self.mode != 'off'",
      fieldPath: ".mode",
      reason: "FieldValueForbidden",
      message: "mode off is forbidden",
    },
    {
      rule: "has(self.owner) || !has(self.team)",
      reason: "FieldValueRequired",
      fieldPath: ".owner",
      message: "owner is required with a team",
    },
  ],
  properties: {
    min: { type: "integer", default: 0 },
    max: { type: "integer", default: 10 },
    mode: { type: "string" },
    owner: { type: "string" },
    team: { type: "string" },
    name: {
      type: "string",
      maxLength: 20,
      "x-kubernetes-validations": [{
        rule: "self.startsWith('a')",
        messageExpression: "'name ' + self + ' must start with a'",
      }],
    },
    code: { type: "string", maxLength: 20, "x-kubernetes-validations": [{ rule: "self.matches('^[a-z]+\\\\d?$')" }] },
    fixed: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "fixed is immutable" }] },
    extra: {
      type: "object",
      additionalProperties: { type: "integer" },
      "x-kubernetes-validations": [{ rule: "self.deep > 0" }],
    },
    tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, port: { type: "integer" } },
      },
    },
    size: { type: "integer", default: 3 },
    level: { type: "integer", minimum: 1 },
    counter: {
      type: "integer",
      "x-kubernetes-validations": [{
        rule: "!oldSelf.hasValue() || self >= oldSelf.value()",
        message: "counter may only grow",
        optionalOldSelf: true,
      }],
    },
    seed: {
      type: "string",
      maxLength: 10,
      "x-kubernetes-validations": [{
        rule: "oldSelf.hasValue() || self == 'init'",
        message: "seed must start as init",
        optionalOldSelf: true,
      }],
    },
    memory: {
      type: "string",
      maxLength: 20,
      "x-kubernetes-validations": [{
        rule: "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))",
        message: "memory must be a quantity below 1Gi",
      }],
    },
    cpu: {
      type: "string",
      maxLength: 20,
      "x-kubernetes-validations": [{ rule: "quantity(self).isGreaterThan(quantity('0'))" }],
    },
    endpoint: {
      type: "string",
      maxLength: 200,
      "x-kubernetes-validations": [{ rule: "isURL(self) && url(self).getScheme() == 'https'", message: "https URL" }],
    },
    port: { "x-kubernetes-int-or-string": true, "x-kubernetes-validations": [{ rule: "self + 'x' == 'yx'" }] },
    slots: {
      type: "array",
      maxItems: 8,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name"],
        "x-kubernetes-validations": [{ rule: "self.port == oldSelf.port", message: "port is immutable" }],
        properties: { name: { type: "string", maxLength: 10 }, port: { type: "integer" } },
      },
    },
    legacy: { type: "string" },
  },
};

/** The Rulebook CRD's plural. */
export const PLURAL = "rulebooks";
/** `Rulebook.<group>`, as kube names the kind in messages. */
export const kindName = `Rulebook.${GROUP}`;
/** The Rulebook collection path in namespace `ns`. */
export const basePath = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}`;
/** A Rulebook named `name` with `spec` (and extra metadata). */
export const obj = (name: string, spec: Json, metadata: Json = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: "Rulebook",
  metadata: { name, ...metadata },
  spec,
});
