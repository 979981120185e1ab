/**
 * meta.k8s.io/v1 Table responses (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), built like
 * kube-apiserver: CRDs use their additionalPrinterColumns (JSONPath evaluated with the apiextensions
 * tableconvertor's type rules) or a default Age column; built-in kinds use server printers ({@link builtinPrinter});
 * anything else gets Name + Created At. Column definitions are constants so repeated calls (list, then watch events)
 * are deep-equal, which kubectl relies on to avoid reprinting headers.
 * @module
 */

import type { ListMeta } from "../../runtime/types.ts";
import type { Unstructured as KubeObject } from "./unstructured.ts";
import { ageOf, humanDuration } from "../../runtime/apimachinery/durations.ts";
import { toPartialObjectMetadata } from "./partial_metadata.ts";
import type { PrintColumn, ResourceDef } from "./resource_def.ts";
import { builtinPrinter, NAME_COLUMN, type TableColumn, type TableRow } from "./table_builtin.ts";
import { copyJson } from "../../runtime/apimachinery/json_copy.ts";

export type { TableColumn, TableRow } from "./table_builtin.ts";

/** The Table object. */
export interface Table {
  kind: "Table";
  apiVersion: "meta.k8s.io/v1";
  metadata: ListMeta;
  columnDefinitions: TableColumn[];
  rows: TableRow[];
}

/** Options of {@link toTable}. */
export interface ToTableOptions {
  /** Server time, for AGE cells. */
  nowMs: number;
  /** False for watch events after the first: the real server sends no column definitions then. */
  includeColumns: boolean;
  /** Copied to the Table's metadata (resourceVersion, continue, remainingItemCount). */
  listMeta?: ListMeta;
  /** `includeObject` query parameter: `Metadata` (default), `Object` (sent with --sort-by) or `None`. */
  includeObject?: "None" | "Metadata" | "Object";
}

const CREATED_AT_COLUMN: TableColumn = {
  name: "Created At",
  type: "date",
  format: "",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created. " +
    "It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this " +
    "value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. " +
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  priority: 0,
};

/** A CRD without printer columns gets Age, described as kube describes metadata.creationTimestamp. */
const DEFAULT_CRD_COLUMNS: PrintColumn[] = [
  { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: CREATED_AT_COLUMN.description },
];

// ---------------------------------------------------------------------------------------------------------------
// JSONPath (the subset CRD printer columns use: `.a.b`, `['a.b']`, `[0]`, `[*]`, `[?(@.k=="v")]`)

type Step = { field: string } | { index: number } | { all: true } | {
  filter: { path: string[]; op: string; value: unknown };
};

function parseFilterValue(raw: string): unknown {
  const s = raw.trim();
  if (/^(["']).*\1$/.test(s)) return s.slice(1, -1);
  if (s === "true" || s === "false") return s === "true";
  const n = Number(s);
  return Number.isNaN(n) ? s : n;
}

/** Parses a printer-column JSONPath (with or without `{}`) into steps; throws on syntax it does not support. */
export function parseJsonPath(expression: string): Step[] {
  let path = expression.trim();
  if (path.startsWith("{") && path.endsWith("}")) path = path.slice(1, -1);
  if (path.startsWith("$")) path = path.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === ".") {
      i++;
      let name = "";
      while (i < path.length && path[i] !== "." && path[i] !== "[") {
        if (path[i] === "\\" && i + 1 < path.length) i++;
        name += path[i++];
      }
      if (name) steps.push({ field: name });
    } else if (path[i] === "[") {
      const end = path.indexOf("]", path.startsWith("[?(", i) ? path.indexOf(")", i) : i);
      if (end < 0) throw new Error(`unclosed [ in JSONPath ${expression}`);
      const inner = path.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === "*") steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^(["']).*\1$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else if (inner.startsWith("?(") && inner.endsWith(")")) {
        const m = /^@((?:\.[\w-]+)+)\s*(==|!=)\s*(.+)$/.exec(inner.slice(2, -1).trim());
        if (!m) throw new Error(`unsupported JSONPath filter ${inner}`);
        steps.push({ filter: { path: m[1].slice(1).split("."), op: m[2], value: parseFilterValue(m[3]) } });
      } else throw new Error(`unsupported JSONPath segment [${inner}]`);
    } else {
      throw new Error(`unexpected ${JSON.stringify(path[i])} in JSONPath ${expression}`);
    }
  }
  return steps;
}

/** Evaluates a JSONPath against an object; missing keys give no results (allowMissingKeys). */
export function evalJsonPath(root: unknown, expression: string): unknown[] {
  let current: unknown[] = [root];
  for (const step of parseJsonPath(expression)) {
    const next: unknown[] = [];
    for (const node of current) {
      if ("field" in step) {
        if (node && typeof node === "object" && !Array.isArray(node) && step.field in node) {
          next.push((node as Record<string, unknown>)[step.field]);
        }
      } else if ("index" in step) {
        if (Array.isArray(node)) {
          const idx = step.index < 0 ? node.length + step.index : step.index;
          if (idx >= 0 && idx < node.length) next.push(node[idx]);
        }
      } else if ("all" in step) {
        if (Array.isArray(node)) next.push(...node);
        else if (node && typeof node === "object") next.push(...Object.values(node));
      } else if (Array.isArray(node)) {
        for (const item of node) {
          let v: unknown = item;
          for (const f of step.filter.path) {
            v = v && typeof v === "object" ? (v as Record<string, unknown>)[f] : undefined;
          }
          const equal = v === step.filter.value || (v !== undefined && String(v) === String(step.filter.value));
          if (step.filter.op === "==" ? equal : !equal) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

/** A cell value per the apiextensions tableconvertor (`cellForJSONValue` and the string printer). */
export function cellForColumn(type: PrintColumn["type"], value: unknown, nowMs: number): unknown {
  if (value === undefined) return null;
  switch (type) {
    case "string":
      if (value === null) return "<nil>";
      return typeof value === "object" ? JSON.stringify(value) : String(value);
    case "integer":
      if (typeof value === "number") return Math.trunc(value);
      if (typeof value === "string" && /^-?\d+$/.test(value)) return Number(value);
      return null;
    case "number":
      if (typeof value === "number") return value;
      if (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) return Number(value);
      return null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      const t = Date.parse(value);
      if (Number.isNaN(t)) return "<invalid>";
      return humanDuration(nowMs - t);
    }
  }
  return null;
}

function crdColumns(columns: PrintColumn[]): TableColumn[] {
  return [
    NAME_COLUMN,
    ...columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? "",
      description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    })),
  ];
}

function crdCells(obj: KubeObject, columns: PrintColumn[], nowMs: number): unknown[] {
  return [
    obj.metadata.name ?? "",
    ...columns.map((c) => {
      let results: unknown[];
      try {
        results = evalJsonPath(obj, c.jsonPath);
      } catch {
        return null;
      }
      return results.length === 0 ? null : cellForColumn(c.type, results[0], nowMs);
    }),
  ];
}

/** A row's object: with `includeObject=None` an empty RawExtension, which Go encodes `null` (omitempty spares structs). */
function rowObject(obj: KubeObject, def: ResourceDef, includeObject: ToTableOptions["includeObject"]): unknown {
  if (includeObject === "None") return null;
  if (includeObject === "Object") {
    return { ...obj, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind };
  }
  return toPartialObjectMetadata(obj);
}

/**
 * Converts objects to a Table as kube-apiserver would for this resource.
 *
 * @example
 * ```ts
 * import { toTable } from "./table.ts";
 * import type { ResourceDef } from "./resource_def.ts";
 * const def = { group: "example.com", version: "v1", kind: "Foo", custom: true,
 *   printColumns: [{ name: "Replicas", type: "integer", jsonPath: ".spec.replicas" }] } as ResourceDef;
 * const table = toTable([{ metadata: { name: "a" }, spec: { replicas: 3 } }], def,
 *   { nowMs: Date.now(), includeColumns: true });
 * // table.rows[0].cells is ["a", 3]
 * ```
 */
export function toTable(objects: KubeObject[], def: ResourceDef, opts: ToTableOptions): Table {
  let columns: TableColumn[];
  let cellsOf: (obj: KubeObject) => { cells: unknown[]; conditions?: TableRow["conditions"] };
  const printer = def.custom ? undefined : builtinPrinter(def);
  if (def.custom) {
    const printColumns = def.printColumns && def.printColumns.length > 0 ? def.printColumns : DEFAULT_CRD_COLUMNS;
    columns = crdColumns(printColumns);
    cellsOf = (obj) => ({ cells: crdCells(obj, printColumns, opts.nowMs) });
  } else if (printer) {
    columns = printer.columns;
    cellsOf = (obj) => printer.row(obj, opts.nowMs);
  } else {
    columns = [NAME_COLUMN, CREATED_AT_COLUMN];
    cellsOf = (obj) => ({ cells: [obj.metadata.name ?? "", obj.metadata.creationTimestamp ?? null] });
  }
  const rows = objects.map((obj) => {
    const { cells, conditions } = cellsOf(obj);
    const row: TableRow = { cells };
    if (conditions) row.conditions = conditions;
    const object = rowObject(obj, def, opts.includeObject);
    if (object !== undefined) row.object = object;
    return row;
  });
  const metadata: ListMeta = {};
  if (opts.listMeta?.resourceVersion !== undefined) metadata.resourceVersion = opts.listMeta.resourceVersion;
  if (opts.listMeta?.continue) metadata.continue = opts.listMeta.continue;
  if (opts.listMeta?.remainingItemCount !== undefined) metadata.remainingItemCount = opts.listMeta.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata,
    columnDefinitions: opts.includeColumns ? copyJson(columns) : [],
    rows,
  };
}

export { ageOf };
