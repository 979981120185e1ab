/**
 * The `meta.k8s.io/v1` Table that servers answer `kubectl get` with (Accept `...;as=Table`): its column and row types
 * and the Name column every table starts with (description as kube-apiserver's, from ObjectMeta's field doc). Shared
 * by the fake API server's printers and the farm aggregated API server.
 * @module
 */

/** metav1.TableColumnDefinition. */
export interface TableColumn {
  /** The column's header, e.g. "Name". */
  name: string;
  /** Cell type: string, integer, number, boolean, date. */
  type: string;
  /** Format hint, e.g. "name" for the Name column ("" for none). */
  format: string;
  /** What the column shows. */
  description: string;
  /** 0: always shown; above 0: only with `-o wide`. */
  priority: number;
}

/** metav1.TableRow. */
export interface TableRow {
  /** One value per column. */
  cells: unknown[];
  /** Row conditions (e.g. Completed for a finished pod). */
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
  /** The object, as PartialObjectMetadata, a full object or none, per `includeObject`. */
  object?: unknown;
}

/**
 * The Name column every Table starts with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NAME_COLUMN } from "./table.ts";
 * assert.equal(NAME_COLUMN.format, "name");
 * ```
 */
export const NAME_COLUMN: TableColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace. Is required when creating resources, although some " +
    "resources may allow a client to request the generation of an appropriate name automatically. Name is primarily " +
    "intended for creation idempotence and configuration definition. Cannot be updated. More info: " +
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  priority: 0,
};
