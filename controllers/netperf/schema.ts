/**
 * Netperf (`app.example.com/v1alpha1`, seed 003): a netperf server pod, a client pod against it, the measured
 * throughput in the status.
 * @module
 */

import { type Static, Type } from "@sinclair/typebox";
import type { KubeObject, ResourceType } from "../../runtime/types.ts";
import {
  customResourceDefinition,
  type CustomResourceSpec,
  objectSchema,
  ObservedStatusFields,
  resourceTypeOf,
  StringEnum,
} from "../schema_util.ts";

/** The image the original operator ran (netperf 2.7 with netserver). */
export const DEFAULT_IMAGE = "tailoredcloud/netperf:v2.7";

/** The states of a Netperf, in order (Error is terminal too). */
export const NETPERF_STATES = ["Initial", "Server", "Test", "Done", "Error"] as const;
/** One state. */
export type NetperfState = typeof NETPERF_STATES[number];

const NODE_NAME = "^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)?$";

/** An optional node name (a DNS subdomain, or empty). */
function optionalNodeName(description: string) {
  return Type.Optional(Type.String({ maxLength: 253, pattern: NODE_NAME, description }));
}

/** Netperf.spec */
export const NetperfSpecSchema = Type.Object({
  serverNode: optionalNodeName("Node for the netserver pod; empty: the scheduler decides."),
  clientNode: optionalNodeName("Node for the netperf client pod; empty: the scheduler decides."),
  image: Type.Optional(Type.String({
    minLength: 1,
    default: DEFAULT_IMAGE,
    description: "Image with netperf and netserver.",
  })),
  duration: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 10,
    description: "Test length in seconds (netperf -l).",
  })),
});

/** Netperf.status */
export const NetperfStatusSchema = Type.Object({
  status: Type.Optional(StringEnum(NETPERF_STATES, {
    description: "Initial → Server (netserver starting) → Test (client running) → Done, or Error.",
  })),
  serverPod: Type.Optional(Type.String({ description: "The netserver pod." })),
  clientPod: Type.Optional(Type.String({ description: "The netperf client pod." })),
  speedBitsPerSec: Type.Optional(Type.Number({ minimum: 0, description: "Measured throughput in bits per second." })),
  message: Type.Optional(Type.String({ description: "Why the test failed, or what it is waiting for." })),
  ...ObservedStatusFields,
});

/** A Netperf object. */
export interface Netperf extends KubeObject {
  /** Desired state. */
  spec: Static<typeof NetperfSpecSchema>;
  /** Observed state (status subresource). */
  status?: Static<typeof NetperfStatusSchema>;
}

/** The Netperf CRD description. */
export const NetperfResource: CustomResourceSpec = {
  group: "app.example.com",
  version: "v1alpha1",
  kind: "Netperf",
  plural: "netperfs",
  singular: "netperf",
  shortNames: ["netp"],
  spec: NetperfSpecSchema,
  status: NetperfStatusSchema,
  description: "A netperf TCP_STREAM test between two pods.",
  printerColumns: [
    { name: "Status", type: "string", jsonPath: ".status.status" },
    { name: "Speed", type: "number", jsonPath: ".status.speedBitsPerSec", description: "bits per second" },
    { name: "Server", type: "string", jsonPath: ".status.serverPod", priority: 1 },
    { name: "Client", type: "string", jsonPath: ".status.clientPod", priority: 1 },
  ],
};

/** Addresses Netperfs. */
export const NetperfType: ResourceType = resourceTypeOf(NetperfResource);

/** Whole-object schema for runtime validation. */
export const NetperfObjectSchema = objectSchema(NetperfResource);

/** The CRDs of this system. */
export function netperfCrds(): KubeObject[] {
  return [customResourceDefinition(NetperfResource)];
}
