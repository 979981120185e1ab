/**
 * The part of CEL's optional types a rule with `optionalOldSelf: true` needs: `oldSelf` is bound to an optional
 * (none on create, of the old value on updates) read with `hasValue()`, `value()` and `orValue(default)`. @bufbuild/cel
 * has no optional type, so an optional is a one-entry map (`{"@optional": value}`, empty for none) and the three
 * methods are declared on any value. (The `.?` and `[?` syntax is not parsed; see compile.ts.)
 * @module
 */
import { type CelFunc, celMethod, CelScalar, type CelValue, isCelMap } from "@bufbuild/cel";

const KEY = "@optional";

/** The optional of `value` (undefined: none). */
export function optionalOf(value: unknown): unknown {
  return value === undefined ? new Map([[KEY, new Map()]]) : new Map([[KEY, new Map([["value", value]])]]);
}

function inner(v: CelValue): { present: boolean; value?: CelValue } {
  const box = isCelMap(v) ? v.get(KEY) : undefined;
  if (!box || !isCelMap(box)) throw new Error("no such overload");
  return box.has("value") ? { present: true, value: box.get("value") } : { present: false };
}

/** hasValue(), value() and orValue(x) on optionals. */
export const OPTIONAL_FUNCS: CelFunc[] = [
  celMethod("hasValue", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return inner(this).present;
  }),
  celMethod("value", CelScalar.DYN, [], CelScalar.DYN, function () {
    const o = inner(this);
    if (!o.present) throw new Error("optional.none() dereference");
    return o.value as never;
  }),
  celMethod("orValue", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (fallback) {
    const o = inner(this);
    return (o.present ? o.value : fallback) as never;
  }),
];
