/**
 * `meta.k8s.io/v1` Table responses for `kubectl get` (Accept `as=Table`): llamas print NAME WEIGHT HEIGHT AGE,
 * farmpods NAME CONTAINERS AGE. Rows carry PartialObjectMetadata so `-A`, `--show-labels` and `-L` work.
 * @module
 */
import { humanDuration } from "../runtime/apimachinery/durations.ts";
import type { KubeObject } from "../runtime/types.ts";
import { nestedField } from "../runtime/unstructured.ts";
import type { FarmResource } from "./llama.ts";
import { NAME_COLUMN, type TableColumn } from "../runtime/apimachinery/table.ts";

export type { TableColumn };

const AGE_COLUMN: TableColumn = {
  name: "Age",
  type: "date",
  format: "",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
};

/** Columns per kind, with how to read each cell. */
const COLUMNS: Record<string, Array<{ column: TableColumn; cell: (o: KubeObject) => unknown }>> = {
  Llama: [
    {
      column: { name: "Weight", type: "number", format: "", description: "Weight of the llama in kg.", priority: 0 },
      cell: (o) => nestedField(o, "spec", "weight") ?? null,
    },
    {
      column: { name: "Height", type: "number", format: "", description: "Height of the llama in m.", priority: 0 },
      cell: (o) => nestedField(o, "spec", "height") ?? null,
    },
  ],
  FarmPod: [
    {
      column: {
        name: "Containers",
        type: "integer",
        format: "",
        description: "Number of containers in the pod.",
        priority: 0,
      },
      cell: (o) => nestedField(o, "spec", "containers") ?? null,
    },
  ],
};

/** A meta.k8s.io/v1 Table. */
export interface Table {
  /** Always Table. */
  kind: "Table";
  /** Always meta.k8s.io/v1. */
  apiVersion: "meta.k8s.io/v1";
  /** The list's resourceVersion (kubectl get -w watches from it). */
  metadata: { resourceVersion?: string };
  /** Empty on watch events after the first. */
  columnDefinitions: TableColumn[];
  /** One row per object: cells in column order, and the object (PartialObjectMetadata by default). */
  rows: Array<{ cells: unknown[]; object: unknown }>;
}

/** The column definitions of a kind (identical in lists and every watch event). */
export function tableColumns(resource: FarmResource): TableColumn[] {
  return [NAME_COLUMN, ...(COLUMNS[resource.kind] ?? []).map((c) => c.column), AGE_COLUMN];
}

/**
 * Renders objects as a Table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toTable } from "./table.ts";
 * import { LLAMAS } from "./llama.ts";
 * const t = toTable([{ metadata: { name: "dolly", creationTimestamp: "2026-01-01T00:00:00Z" }, spec: { weight: 31.4, height: 0.5 } }],
 *   LLAMAS, { nowMs: Date.UTC(2026, 0, 1, 0, 1), resourceVersion: "7" });
 * assert.ok(t.rows[0].cells.join(" ") === "dolly 31.4 0.5 60s");
 * ```
 */
export function toTable(
  objects: KubeObject[],
  resource: FarmResource,
  opts: { nowMs: number; resourceVersion?: string; noHeaders?: boolean; includeObject?: string },
): Table {
  const extra = COLUMNS[resource.kind] ?? [];
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {},
    columnDefinitions: opts.noHeaders ? [] : tableColumns(resource),
    rows: objects.map((o) => {
      const created = Date.parse(o.metadata.creationTimestamp ?? "");
      return {
        cells: [
          o.metadata.name,
          ...extra.map((c) => c.cell(o)),
          Number.isNaN(created) ? "<unknown>" : humanDuration(opts.nowMs - created),
        ],
        object: opts.includeObject === "Object"
          ? o
          : opts.includeObject === "None"
          ? null
          : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata },
      };
    }),
  };
}
