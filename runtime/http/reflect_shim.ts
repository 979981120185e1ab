/**
 * The three `Reflect` metadata functions tsyringe (a dependency of @peculiar/x509) checks for at load time, so the
 * library loads without the reflect-metadata package. Import this module before "@peculiar/x509". Metadata is kept
 * per target and key in a WeakMap; a full polyfill is not needed because x509 only registers plain classes.
 * @module
 */

type MetadataReflect = typeof Reflect & {
  getMetadata?: (key: unknown, target: object) => unknown;
  getOwnMetadata?: (key: unknown, target: object) => unknown;
  defineMetadata?: (key: unknown, value: unknown, target: object) => void;
};

const reflect = Reflect as MetadataReflect;
if (!reflect.getMetadata) {
  const store = new WeakMap<object, Map<unknown, unknown>>();
  const own = (key: unknown, target: object) => store.get(target)?.get(key);
  reflect.getOwnMetadata = own;
  reflect.getMetadata = (key, target) => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t)) {
      const value = own(key, t);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  reflect.defineMetadata = (key, value, target) => {
    let map = store.get(target);
    if (!map) store.set(target, map = new Map());
    map.set(key, value);
  };
}
