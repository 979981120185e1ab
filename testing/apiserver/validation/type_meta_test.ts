import assert from "node:assert/strict";
import { ApiError } from "../../../runtime/client/errors.ts";
import { BUILTIN_RESOURCES } from "../builtin_resources.ts";
import { ResourceRegistry } from "../registry.ts";
import { checkTypeMeta } from "./type_meta.ts";

function message(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status.code, 400);
    return err.status.message;
  }
  return undefined;
}

Deno.test("kind and apiVersion must match the URL's; missing ones take the URL's", () => {
  const registry = new ResourceRegistry(BUILTIN_RESOURCES);
  const cm = registry.lookup("", "v1", "configmaps")!;
  const check = (body: Record<string, unknown>) =>
    message(() => checkTypeMeta(registry, cm, { metadata: {}, ...body }, "create"));
  assert.equal(check({}), undefined);
  assert.equal(check({ apiVersion: "v1", kind: "ConfigMap" }), undefined);
  assert.equal(
    check({ apiVersion: "v1", kind: "Secret" }),
    'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
  );
  assert.equal(
    check({ apiVersion: "apps/v1", kind: "ConfigMap" }),
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"',
  );
  const deploy = registry.lookup("apps", "v1", "deployments")!;
  assert.match(
    message(() =>
      checkTypeMeta(registry, deploy, { apiVersion: "apps/v1", kind: "StatefulSet", metadata: {} }, "create")
    )!,
    /converting \(v1\.StatefulSet\) to \(apps\.Deployment\)/,
  );
});
