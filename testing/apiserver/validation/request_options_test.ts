import assert from "node:assert/strict";
import { ApiError } from "../../../runtime/client/errors.ts";
import { checkDeleteOptions, checkWriteOptions } from "./request_options.ts";

function status(fn: () => void) {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err.status;
  }
  return undefined;
}

Deno.test("write options: dryRun All passes, anything else and long field managers are 422 on the verb's options", () => {
  assert.equal(status(() => checkWriteOptions("create", new URLSearchParams("dryRun=All"))), undefined);
  const dry = status(() => checkWriteOptions("patch", new URLSearchParams("dryRun=All&dryRun=x")));
  assert.equal(
    dry?.message,
    'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","x"]: supported values: "All"',
  );
  const manager = status(() => checkWriteOptions("update", new URLSearchParams(`fieldManager=${"é".repeat(65)}`)));
  assert.equal(manager?.details?.causes?.[0]?.field, "fieldManager", "130 bytes in 65 characters");
  assert.equal(status(() => checkWriteOptions("get", new URLSearchParams("dryRun=x"))), undefined);
});

Deno.test("delete options: known policies pass; unknown ones and policy with orphanDependents are 422", () => {
  for (const p of ["Foreground", "Background", "Orphan", undefined]) {
    assert.equal(status(() => checkDeleteOptions("delete", { dryRun: [], propagationPolicy: p })), undefined);
  }
  const both = status(() =>
    checkDeleteOptions("deletecollection", { dryRun: [], propagationPolicy: "Bogus", orphanDependents: false })
  );
  assert.deepEqual(both?.details?.causes?.map((c) => c.reason), ["FieldValueInvalid", "FieldValueNotSupported"]);
});
