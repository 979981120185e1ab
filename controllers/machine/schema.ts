/**
 * Machine and Switch (`useless.container.training/v1alpha1`, seed 000): the kubebuilder "useless machine".
 * Stage 1 uses `spec.switchPosition`; stage 2 keeps `spec.switches` Switches labelled `machine=<name>`.
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

/** API group of both kinds. */
export const GROUP = "useless.container.training";
/** API version of both kinds. */
export const VERSION = "v1alpha1";

/** A switch position. */
export const PositionSchema = StringEnum(["up", "down"], { description: "Position of a switch: up or down." });

/** Machine.spec */
export const MachineSpecSchema = Type.Object({
  switchPosition: Type.Optional(StringEnum(["up", "down"], {
    description: "Stage 1: the machine's own switch. The controller moves it back to down ≥ 5 s after seeing it up.",
  })),
  switches: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 100,
    description: "Stage 2: how many Switches this machine keeps (0..100). Absent: Switches are not created or deleted.",
  })),
  selector: Type.Optional(Type.Record(Type.String(), Type.String(), {
    description:
      "Labels that tie Switches to this machine and that new Switches get. Default: machine=<name> (cut to 63 characters plus a hash when longer).",
    maxProperties: 16,
  })),
});

/** Machine.status */
export const MachineStatusSchema = Type.Object({
  seenAt: Type.Optional(Type.String({
    format: "date-time",
    description: "When the controller saw switchPosition not down (stage 1).",
  })),
  positions: Type.Optional(Type.String({
    description: "First letter of each Switch's position, Switches ordered by name (stage 2).",
  })),
  lastFlipAt: Type.Optional(Type.String({
    format: "date-time",
    description: "When the controller last flipped one of the Switches down (at most one flip per 5 s).",
  })),
  ...ObservedStatusFields,
});

/** Switch.spec */
export const SwitchSpecSchema = Type.Object({
  position: Type.Optional(StringEnum(["up", "down"], {
    description: "Position of the switch. The machine moves it back to down ≥ 5 s after seeing it up.",
    default: "down",
  })),
});

/** Switch.status */
export const SwitchStatusSchema = Type.Object({
  seenAt: Type.Optional(Type.String({ format: "date-time", description: "When the controller saw the switch up." })),
});

/** Machine.spec as a TypeScript type. */
export type MachineSpec = Static<typeof MachineSpecSchema>;
/** Machine.status as a TypeScript type. */
export type MachineStatus = Static<typeof MachineStatusSchema>;
/** A Machine object. */
export interface Machine extends KubeObject {
  /** Desired state. */
  spec: MachineSpec;
  /** Observed state (status subresource). */
  status?: MachineStatus;
}
/** A Switch object. */
export interface Switch extends KubeObject {
  /** Desired state. */
  spec: Static<typeof SwitchSpecSchema>;
  /** Observed state (status subresource). */
  status?: Static<typeof SwitchStatusSchema>;
}

/** The Machine CRD description. */
export const MachineResource: CustomResourceSpec = {
  group: GROUP,
  version: VERSION,
  kind: "Machine",
  plural: "machines",
  singular: "machine",
  shortNames: ["mach"],
  spec: MachineSpecSchema,
  status: MachineStatusSchema,
  description: "A useless machine: whatever is switched up, it switches back down.",
  printerColumns: [
    { name: "Position", type: "string", jsonPath: ".spec.switchPosition" },
    { name: "Switches", type: "integer", jsonPath: ".spec.switches" },
    { name: "Positions", type: "string", jsonPath: ".status.positions" },
    { name: "Seen", type: "date", jsonPath: ".status.seenAt" },
  ],
};

/** The Switch CRD description. */
export const SwitchResource: CustomResourceSpec = {
  group: GROUP,
  version: VERSION,
  kind: "Switch",
  plural: "switches",
  singular: "switch",
  shortNames: ["sw"],
  spec: SwitchSpecSchema,
  status: SwitchStatusSchema,
  description: "One switch of a useless machine (tied to it by labels and a controller ownerReference).",
  printerColumns: [
    { name: "Position", type: "string", jsonPath: ".spec.position" },
    { name: "Seen", type: "date", jsonPath: ".status.seenAt" },
  ],
};

/** Addresses Machines. */
export const MachineType: ResourceType = resourceTypeOf(MachineResource);
/** Addresses Switches. */
export const SwitchType: ResourceType = resourceTypeOf(SwitchResource);

/** Whole-object schemas for runtime validation. */
export const MachineObjectSchema = objectSchema(MachineResource);
/** Whole-object schema of a Switch. */
export const SwitchObjectSchema = objectSchema(SwitchResource);

/** The two CRDs of this system. */
export function machineCrds(): KubeObject[] {
  return [customResourceDefinition(MachineResource), customResourceDefinition(SwitchResource)];
}
