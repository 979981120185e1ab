/**
 * The part of Kubernetes' CEL library (k8s.io/apiserver pkg/cel/library) the fake implements on @bufbuild/cel:
 * the lists extension (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`), the sets extension
 * (`sets.contains`, `sets.equivalent`, `sets.intersects`), quantities (quantity.ts) and URLs (url.ts). IP/CIDR, format,
 * semver and authz are not implemented (rules using them fail at evaluation).
 * @module
 */
import { type CelFunc, celFunc, celMethod, CelScalar, type CelValue, listType } from "@bufbuild/cel";
import { OPTIONAL_FUNCS } from "./optional.ts";
import { QUANTITY_FUNCS } from "./quantity.ts";
import { URL_FUNCS } from "./url.ts";

const LIST = listType(CelScalar.DYN);

function items(list: Iterable<CelValue>): CelValue[] {
  return [...list];
}

function compare(a: CelValue, b: CelValue): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function same(a: CelValue, b: CelValue): boolean {
  return compare(a, b) === 0 && typeof a === typeof b;
}

/** Functions added to the fake's CEL environment. */
export const KUBERNETES_FUNCS: CelFunc[] = [
  ...OPTIONAL_FUNCS,
  ...QUANTITY_FUNCS,
  ...URL_FUNCS,
  celMethod("isSorted", LIST, [], CelScalar.BOOL, function () {
    const xs = items(this);
    return xs.every((x, i) => i === 0 || compare(xs[i - 1], x) <= 0);
  }),
  celMethod("sum", LIST, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    return xs.reduce((a, b) => (a as number) + (b as number)) as never;
  }),
  celMethod("min", LIST, [], CelScalar.DYN, function () {
    return items(this).reduce((a, b) => compare(a, b) <= 0 ? a : b) as never;
  }),
  celMethod("max", LIST, [], CelScalar.DYN, function () {
    return items(this).reduce((a, b) => compare(a, b) >= 0 ? a : b) as never;
  }),
  celMethod("indexOf", LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    return BigInt(items(this).findIndex((y) => same(x, y)));
  }),
  celMethod("lastIndexOf", LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    return BigInt(items(this).findLastIndex((y) => same(x, y)));
  }),
  celFunc("sets.contains", [LIST, LIST], CelScalar.BOOL, (a, b) => {
    const xs = items(a);
    return items(b).every((y) => xs.some((x) => same(x, y)));
  }),
  celFunc("sets.equivalent", [LIST, LIST], CelScalar.BOOL, (a, b) => {
    const [xs, ys] = [items(a), items(b)];
    return ys.every((y) => xs.some((x) => same(x, y))) && xs.every((x) => ys.some((y) => same(x, y)));
  }),
  celFunc("sets.intersects", [LIST, LIST], CelScalar.BOOL, (a, b) => {
    const xs = items(a);
    return items(b).some((y) => xs.some((x) => same(x, y)));
  }),
];
