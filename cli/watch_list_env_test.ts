import assert from "node:assert/strict";
import { WATCH_LIST_ENV, watchListFromEnv } from "./watch_list_env.ts";

Deno.test("KUBE_FEATURE_WatchListClient: true/false in any case, unset is the default, anything else is refused", () => {
  const env = (value: string | undefined) => (name: string) => name === WATCH_LIST_ENV ? value : undefined;
  assert.equal(watchListFromEnv(env("false")), false);
  assert.equal(watchListFromEnv(env(" FALSE ")), false);
  assert.equal(watchListFromEnv(env("True")), true);
  assert.equal(watchListFromEnv(env(undefined)), undefined);
  assert.equal(watchListFromEnv(env("")), undefined);
  assert.throws(
    () => watchListFromEnv(env("off")),
    /KUBE_FEATURE_WatchListClient must be "true" or "false", got "off"/,
  );
});
